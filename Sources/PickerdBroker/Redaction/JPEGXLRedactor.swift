// Location redaction for JPEG XL (ISO/IEC 18181), the part of ``ExifRedactor`` for its two forms.
//
// - A bare codestream (`FF 0A`) has no place for metadata: its header holds the size, colour
//   encoding, ICC profile and orientation, nothing that says where. It is released as it is.
// - The container (ISO/IEC 18181-2: the signature box `JXL ` and `ftyp` with brand `jxl `, then
//   boxes in ISO base media's box syntax) keeps metadata in its own boxes:
//   - `Exif`: a 4-byte offset to the TIFF header, then the EXIF; its GPS IFD goes as a JPEG's does.
//   - `xml `: an XMP packet; its location properties are blanked (``ExifRedactor/blankXMPLocation(_:in:)``).
//   - `brob`: another box, brotli-compressed (its original type first). pickerd does not decompress
//     in the broker, so a `brob` box becomes a `free` box of zeroes whatever it wraps: a compressed
//     `Exif` or `xml ` loses its date and camera with its place.
//   - `jumb` (JUMBF: C2PA manifests, whose assertions may copy EXIF with GPS) and `jbrd` (the
//     brotli-compressed data that rebuilds the original JPEG, its APP segments such as IPTC's city
//     among them) are not parsed: they become `free` boxes of zeroes too. The picture decodes as
//     before; only the exact JPEG it was made from cannot be rebuilt.
//   - The boxes that hold the picture (`jxlc`, `jxlp`, `jxll`, `jxli`) and the signature, `ftyp`,
//     `free` and `skip` are kept; a box of any other type becomes a `free` box of zeroes (fail
//     closed: what is not understood does not leave). ISO/IEC 18181-2 has decoders skip box types
//     they do not know, and libjxl does, so the file still decodes.
// No length changes, as for the other types.

extension ExifRedactor {
    /// The JPEG XL container's signature box: size 12, `JXL `, then 0D 0A 87 0A.
    static let jpegXLSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Whether the bytes are a JPEG XL image: a bare codestream or the container.
    static func isJPEGXL(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFF, 0x0A]) || bytes.starts(with: jpegXLSignature)
    }

    /// A JPEG XL file, redacted in place (see the top of this file).
    /// - Throws: ``Unreadable`` when a box runs past the end, the container has no `ftyp` box of
    ///   brand `jxl ` second, or an `Exif` box's TIFF cannot be parsed.
    static func jpegXL(_ b: inout [UInt8]) throws {
        if b.starts(with: [0xFF, 0x0A]) { return }  // a bare codestream: nothing but the picture
        let kept = [fourCC("JXL "), fourCC("ftyp"), fourCC("jxlc"), fourCC("jxlp"), fourCC("jxll"), fourCC("jxli"),
                    fourCC("free"), fourCC("skip")]
        let found = try boxes(b, in: 0..<b.count)
        guard found.count >= 2, found[1].type == fourCC("ftyp"), found[1].end - found[1].body >= 4,
              be32(b, found[1].body) == fourCC("jxl ") else {
            throw Unreadable(description: "a JPEG XL container without its ftyp box of brand jxl")
        }
        for box in found {
            switch box.type {
            case fourCC("Exif"):
                guard box.end - box.body >= 4 else { throw Unreadable(description: "a JPEG XL Exif box is too short") }
                let offset = Int(be32(b, box.body))
                guard offset <= box.end - box.body - 4 else { throw Unreadable(description: "a JPEG XL Exif box's TIFF offset runs past it") }
                try stripTIFF(&b, in: (box.body + 4 + offset)..<box.end)
            case fourCC("xml "):
                _ = try blankXMPLocation(&b, in: box.body..<box.end)
            case let type where kept.contains(type):
                break
            default:  // brob, jumb, jbrd and anything unknown
                neutralise(&b, box)
            }
        }
    }
}
