import PickerdChecksum

/// Removes location metadata from a photo or video before it leaves pickerd, when the person did
/// not approve the place, so no coordinate byte remains in what an app receives. It fails closed:
/// a file is returned only when every part of it was understood and redacted, or cut off.
///
/// - TIFF and DNG (a DNG is a TIFF): every GPS IFD reachable from IFD0 (IFD0's chain of IFDs,
///   SubIFDs, the EXIF IFD), XMP in tag 700, and the EXIF thumbnail. See `TIFFRedactor.swift`.
/// - PNG: the `eXIf` chunk's TIFF, GPS and place names in an `iTXt` XMP packet, and text chunks
///   that hold location (ImageMagick's "Raw profile type …" hex copies of EXIF, XMP or IPTC, its
///   one-property chunks such as "exif:GPSLatitude" or "photoshop:City"), which become private
///   chunks of zeroes. Anything after `IEND` is cut off.
/// - JPEG: APP1 `Exif`'s TIFF, and the same XMP names in APP1 XMP (standard and extended), and
///   APP13's Photoshop resources (IPTC-IIM's place names blanked, Photoshop's copies of EXIF and XMP
///   redacted as APP1's are), in every segment of the image, before and between its scans; then what follows the image's end (see
///   `JPEGTrailer.swift`): an appended JPEG (a multi-picture file's second image) gets the same
///   treatment, an appended ISO base media file (a motion photo's MP4) the movie redaction, and
///   anything else is cut off.
/// - ISO base media files, recognised by their content (an `ftyp` box, or a classic QuickTime first
///   atom), never by name: HEIC/HEIF/AVIF `Exif` and XMP items, and a QuickTime or MP4 movie's
///   `©xyz`, `loci`, location keys in `keys`/`ilst`, and XMP (`XMP_`, `uuid`). See
///   `ContainerRedactor.swift` for what each one becomes.
/// - WebP: the `EXIF` chunk's TIFF and the `XMP ` chunk; anything after the RIFF data is cut off.
/// - JPEG XL: a bare codestream holds no metadata; the container's `Exif` box's TIFF and `xml `
///   box, and every box it does not understand (`brob`, `jumb`, `jbrd`, …) becomes a `free` box of
///   zeroes. See `JPEGXLRedactor.swift`.
/// - GIF: an XMP application extension's location properties; anything after the trailer is cut off.
/// - YUV4MPEG2 (pickerd's own generated videos): `X` parameters other than the colour ones are
///   dropped from the stream and frame headers; the pictures carry nothing else.
///
/// Everything but a cut-off trailer and YUV4MPEG2's dropped parameters is done in place on one
/// buffer and no length changes, so offsets elsewhere in the file (`iloc`, `stco`, TIFF offsets)
/// stay right. A file of any other type is refused with ``NotRedactable``; a file in one of these
/// types whose structure cannot be parsed is refused with ``Unreadable`` (release less, not more).
public enum ExifRedactor {
    /// A file whose metadata or container structure could not be understood.
    public struct Unreadable: Error, CustomStringConvertible {
        /// What was wrong.
        public var description: String
    }

    /// A file of a type pickerd cannot remove location from: it cannot be released without its place,
    /// so the caller leaves it out of the release.
    public struct NotRedactable: Error, CustomStringConvertible {
        /// What the file's first bytes say it is, in a few words ("BigTIFF", "an unknown type").
        public var type: String
        /// A sentence for the log and the person.
        public var description: String { "this file type (\(type)) cannot be released without its place: pickerd cannot remove location from it" }
    }

    /// The file without location metadata.
    /// - Parameter bytes: a TIFF (or DNG), PNG, JPEG, HEIC/HEIF/AVIF, MOV, MP4, WebP, JPEG XL, GIF
    ///   or YUV4MPEG2 file, whole. Pass it as the last use of the caller's array and it is edited
    ///   without being copied.
    /// - Returns: the same file with its location metadata removed or blanked, the same length
    ///   except that a trailer that was not understood (after a JPEG's last image, a PNG's `IEND`, a
    ///   GIF's trailer, a WebP's RIFF data) is cut off and YUV4MPEG2 loses its `X` parameters. A file
    ///   that has none of these and no location comes back byte for byte the same.
    /// - Throws: ``NotRedactable`` for any other type of file (it must not be released when its
    ///   place was not kept); ``Unreadable`` when the file is one of those types but its metadata or
    ///   its structure cannot be parsed (a box running past the end, a GPS IFD out of range, …).
    public static func strippingLocation(_ bytes: consuming [UInt8]) throws -> [UInt8] {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            try png(&bytes)
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            let end = try jpegWithTrailer(&bytes, at: 0, nesting: 0)
            if end < bytes.count { bytes.removeSubrange(end...) }
        } else if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            try stripTIFF(&bytes)
        } else if isJPEGXL(bytes) {
            try jpegXL(&bytes)
        } else if isISOBaseMedia(bytes) {
            try isoBaseMedia(&bytes)
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
            try webP(&bytes)
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            try gif(&bytes)
        } else if bytes.starts(with: Array("YUV4MPEG2".utf8)) {
            bytes = try y4m(bytes)
        } else if bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            throw NotRedactable(type: "BigTIFF")
        } else {
            throw NotRedactable(type: "an unknown type")
        }
        return bytes
    }

    // MARK: PNG

    private static func png(_ out: inout [UInt8]) throws {
        var offset = 8
        while offset + 12 <= out.count {
            let length = Int(be32(out, offset))
            guard offset + 12 + length <= out.count else { throw Unreadable(description: "a PNG chunk runs past the end") }
            let data = (offset + 8)..<(offset + 8 + length)
            let type = out[(offset + 4)..<(offset + 8)]
            var changed = false
            if type.elementsEqual("eXIf".utf8) {
                try stripTIFF(&out, in: data)
                changed = true
            } else if type.elementsEqual("iTXt".utf8) {
                changed = try pngXMP(&out, chunk: offset, data: data)
            }
            if type.elementsEqual("tEXt".utf8) || type.elementsEqual("zTXt".utf8) || type.elementsEqual("iTXt".utf8),
               isPNGLocationText(out[data]) {
                neutralisePNGChunk(&out, chunk: offset, data: data)
                changed = true
            }
            if changed {
                let crc = CRC32.checksum(Array(out[(offset + 4)..<(offset + 8 + length)]))
                out.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: bigEndian32(crc))
            }
            offset += 12 + length
            if type.elementsEqual("IEND".utf8) {
                if offset < out.count { out.removeSubrange(offset...) }
                return
            }
        }
        throw Unreadable(description: "a PNG ends without its IEND chunk")
    }

    /// Whether a PNG text chunk (its data, keyword first) holds location: ImageMagick's copy of a
    /// profile ("Raw profile type exif", hex text of the whole EXIF, XMP or IPTC block, often
    /// compressed), or one property per chunk as ImageMagick also writes them ("exif:GPSLatitude",
    /// "xmp:GPSLongitude", "photoshop:City"), or a keyword such as "Location". Such a chunk cannot
    /// be edited in place, so it goes whole.
    private static func isPNGLocationText(_ data: ArraySlice<UInt8>) -> Bool {
        guard let end = data.firstIndex(of: 0) else { return false }
        let keyword = data[data.startIndex..<end]
        if keyword.starts(with: Array("Raw profile type ".utf8)) { return true }
        let local = keyword.lastIndex(of: UInt8(ascii: ":")).map { keyword[($0 + 1)...] } ?? keyword
        return isXMPLocation(local) || String(decoding: keyword, as: UTF8.self).lowercased().contains("gps")
    }

    /// Makes a chunk a private ancillary chunk (`xmPd`) of zeroes, which decoders skip. The caller
    /// writes its CRC.
    private static func neutralisePNGChunk(_ out: inout [UInt8], chunk: Int, data: Range<Int>) {
        out.replaceSubrange((chunk + 4)..<(chunk + 8), with: Array("xmPd".utf8))
        for i in data { out[i] = 0 }
    }

    /// An `iTXt` chunk holding XMP ("XML:com.adobe.xmp"): its location names are blanked when the
    /// text is stored plainly; a compressed packet cannot be blanked in place, so the chunk becomes a
    /// private ancillary chunk (`xmPd`) of zeroes, which decoders skip. Returns whether it changed.
    private static func pngXMP(_ out: inout [UInt8], chunk: Int, data: Range<Int>) throws -> Bool {
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        guard out[data].starts(with: keyword) else { return false }
        var at = data.lowerBound + keyword.count
        guard at + 2 <= data.upperBound else { throw Unreadable(description: "a PNG XMP chunk is too short") }
        let compressed = out[at] != 0
        at += 2
        for _ in 0..<2 {  // the language tag, the translated keyword
            guard let zero = out[at..<data.upperBound].firstIndex(of: 0) else {
                throw Unreadable(description: "a PNG XMP chunk's header is not terminated")
            }
            at = zero + 1
        }
        if compressed {
            neutralisePNGChunk(&out, chunk: chunk, data: data)
            return true
        }
        return try blankXMPLocation(&out, in: at..<data.upperBound)
    }

    // MARK: JPEG

    /// One JPEG image that starts (with its SOI) at `start`: every APP1 `Exif` and XMP segment in it,
    /// and every APP13 "Photoshop 3.0" segment (``photoshopResources(_:in:nesting:)``: IPTC-IIM's
    /// place names, Photoshop's copies of EXIF and XMP), before and between its scans, is redacted in place. After a start of scan (SOS) the
    /// entropy-coded data is skipped: `FF00` and the restart markers `FFD0`–`FFD7` (and fill `FF`s)
    /// are part of it, and any other marker ends it, such as the next SOS of a progressive JPEG.
    /// - Parameters:
    ///   - out: the file.
    ///   - start: where the image's SOI is.
    ///   - nesting: how deep the image is inside others (for its EXIF thumbnail).
    /// - Returns: where the image ends (just after its EOI), or `nil` when the buffer ends first:
    ///   inside a scan (a JPEG cut short in its image data, which decoders show in part) or after a
    ///   whole segment.
    /// - Throws: ``Unreadable`` when a segment runs past the end, a byte where a marker belongs is
    ///   not one, or its EXIF or XMP cannot be parsed.
    static func jpegImage(_ out: inout [UInt8], at start: Int, nesting: Int) throws -> Int? {
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        let extendedXMP = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
        let photoshop = Array("Photoshop 3.0".utf8) + [0]
        var extended: [[UInt8]: [(offset: Int, range: Range<Int>)]] = [:]  // GUID → its chunks
        var offset = start + 2
        var imageEnd: Int?
        segments: while offset < out.count {
            guard out[offset] == 0xFF else { throw Unreadable(description: "a JPEG has no marker where a segment belongs") }
            guard offset + 1 < out.count else { break }
            let marker = out[offset + 1]
            switch marker {
            case 0xFF:  // a fill byte before a marker
                offset += 1
                continue segments
            case 0xD9:
                imageEnd = offset + 2
                break segments
            case 0x01, 0xD0...0xD7:  // markers without a length
                offset += 2
                continue segments
            case 0xD8:
                throw Unreadable(description: "a JPEG image starts inside another")
            default:
                break
            }
            guard offset + 4 <= out.count else { throw Unreadable(description: "a JPEG segment is cut short") }
            let length = Int(out[offset + 2]) << 8 | Int(out[offset + 3])
            guard length >= 2, offset + 2 + length <= out.count else { throw Unreadable(description: "a JPEG segment runs past the end") }
            let body = offset + 4
            let end = offset + 2 + length
            if marker == 0xE1, length >= 8, out[body..<(body + 6)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                try stripTIFF(&out, in: (body + 6)..<end, nesting: nesting)
            } else if marker == 0xE1, out[body..<end].starts(with: xmp) {
                try blankXMPLocation(&out, in: (body + xmp.count)..<end)
            } else if marker == 0xED, out[body..<end].starts(with: photoshop) {
                try photoshopResources(&out, in: (body + photoshop.count)..<end, nesting: nesting)
            } else if marker == 0xE1, out[body..<end].starts(with: extendedXMP) {
                // The GUID (32 hex digits), the full length, this chunk's offset, then the chunk.
                let header = body + extendedXMP.count
                guard header + 40 <= end else { throw Unreadable(description: "an extended XMP segment is too short") }
                let guid = Array(out[header..<(header + 32)])
                extended[guid, default: []].append((Int(be32(out, header + 36)), (header + 40)..<end))
            }
            offset = end
            if marker == 0xDA {
                // Entropy-coded data, up to the next marker that is not part of it.
                var at = end
                scan: while true {
                    guard let ff = out[at...].firstIndex(of: 0xFF), ff + 1 < out.count else { break segments }
                    switch out[ff + 1] {
                    case 0x00, 0xD0...0xD7: at = ff + 2
                    case 0xFF: at = ff + 1
                    default:
                        offset = ff
                        break scan
                    }
                }
            }
        }
        // Extended XMP is one packet split over segments: it is blanked as a whole, so a name split
        // between two segments is still found.
        for chunks in extended.values {
            try blankXMPLocation(&out, across: chunks.sorted { $0.offset < $1.offset }.map(\.range))
        }
        return imageEnd
    }

    /// The IPTC-IIM datasets of record 2 that say where: 2:26 Content Location Code, 2:27 Content
    /// Location Name, 2:90 City, 2:92 Sub-location, 2:95 Province/State, 2:100 Country Code, 2:101
    /// Country Name.
    static let iimPlaceDatasets: Set<UInt8> = [26, 27, 90, 92, 95, 100, 101]

    /// A JPEG APP13 segment's Photoshop image resources (after "Photoshop 3.0\0"), in place: the
    /// IPTC-IIM record (resource 0x0404) has its place datasets (``iimPlaceDatasets``) blanked to
    /// spaces, Photoshop's copies of EXIF (0x0422, 0x0423) lose their GPS as APP1's EXIF does, and
    /// its copy of XMP (0x0424) loses the same names as APP1's XMP. Each block is "8BIM" (or one of
    /// Photoshop's rarer signatures), a 2-byte id, a Pascal name padded to even, a 4-byte size and the
    /// data padded to even; zeros may pad the segment's end.
    /// - Throws: ``Unreadable`` when a block or a dataset runs past its end, a block has no
    ///   signature, or an IIM dataset has an extended length (never a place's): released less, not more.
    static func photoshopResources(_ out: inout [UInt8], in range: Range<Int>, nesting: Int) throws {
        let signatures: Set<[UInt8]> = Set(["8BIM", "MeSa", "PHUT", "AgHg", "DCSR"].map { Array($0.utf8) })
        var at = range.lowerBound
        while at < range.upperBound {
            if out[at..<range.upperBound].allSatisfy({ $0 == 0 }) { return }
            guard at + 12 <= range.upperBound, signatures.contains(Array(out[at..<(at + 4)])) else {
                throw Unreadable(description: "a JPEG's Photoshop resources (APP13) cannot be read")
            }
            let id = Int(out[at + 4]) << 8 | Int(out[at + 5])
            let sizeAt = at + 6 + ((Int(out[at + 6]) + 2) & ~1)
            guard sizeAt + 4 <= range.upperBound else { throw Unreadable(description: "a Photoshop resource (APP13) is cut short") }
            let size = Int(be32(out, sizeAt))
            let data = sizeAt + 4
            guard size <= range.upperBound - data else { throw Unreadable(description: "a Photoshop resource (APP13) runs past its segment") }
            switch id {
            case 0x0404: try blankIIMPlace(&out, in: data..<(data + size))
            case 0x0422, 0x0423: if size > 0 { try stripTIFF(&out, in: data..<(data + size), nesting: nesting) }
            case 0x0424: _ = try blankXMPLocation(&out, in: data..<(data + size))
            default: break
            }
            at = data + size + (size & 1)
        }
    }

    /// An IPTC-IIM record (datasets of 0x1C, record, dataset, a 2-byte length, the value): the
    /// values of ``iimPlaceDatasets`` become spaces, in place; zeros may pad its end.
    static func blankIIMPlace(_ out: inout [UInt8], in range: Range<Int>) throws {
        var at = range.lowerBound
        while at < range.upperBound {
            if out[at..<range.upperBound].allSatisfy({ $0 == 0 }) { return }
            guard out[at] == 0x1C, at + 5 <= range.upperBound else { throw Unreadable(description: "an IPTC-IIM record (APP13) cannot be read") }
            let length = Int(out[at + 3]) << 8 | Int(out[at + 4])
            guard length & 0x8000 == 0 else { throw Unreadable(description: "an IPTC-IIM dataset (APP13) has an extended length") }
            let value = (at + 5)..<(at + 5 + length)
            guard value.upperBound <= range.upperBound else { throw Unreadable(description: "an IPTC-IIM dataset (APP13) runs past its record") }
            if out[at + 1] == 2, iimPlaceDatasets.contains(out[at + 2]) {
                for index in value { out[index] = 0x20 }
            }
            at = value.upperBound
        }
    }

    // MARK: WebP

    /// A WebP (RIFF) file: the `EXIF` chunk's TIFF (with or without an "Exif\0\0" prefix) and the
    /// `XMP ` chunk are redacted in place; bytes after the RIFF data are cut off.
    private static func webP(_ out: inout [UInt8]) throws {
        func le32(_ at: Int) -> Int { Int(out[at]) | Int(out[at + 1]) << 8 | Int(out[at + 2]) << 16 | Int(out[at + 3]) << 24 }
        let end = 8 + le32(4)
        guard end >= 12, end <= out.count else { throw Unreadable(description: "a WebP file's RIFF data runs past the end") }
        var at = 12
        while at < end {
            guard at + 8 <= end else { throw Unreadable(description: "a WebP chunk header is cut short") }
            let length = le32(at + 4)
            let body = at + 8
            guard body + length <= end else { throw Unreadable(description: "a WebP chunk runs past the end") }
            let type = out[at..<(at + 4)]
            if type.elementsEqual("EXIF".utf8) {
                let tiff = out[body..<(body + length)].starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? body + 6 : body
                try stripTIFF(&out, in: tiff..<(body + length))
            } else if type.elementsEqual("XMP ".utf8) {
                try blankXMPLocation(&out, in: body..<(body + length))
            }
            at = body + length + (length & 1)
        }
        guard at <= end + 1 else { throw Unreadable(description: "a WebP chunk's padding runs past the end") }
        if end < out.count { out.removeSubrange(end...) }
    }

    // MARK: GIF

    /// A GIF: an XMP application extension ("XMP DataXMP") has its location properties blanked in
    /// place. Its packet is stored raw, followed by a "magic trailer" that leads any reading of it as
    /// sub-blocks to the same terminator, so blanking keeps the block structure; this is checked.
    /// Bytes after the GIF's trailer are cut off.
    private static func gif(_ out: inout [UInt8]) throws {
        /// The end of a run of sub-blocks that starts at `start` (just after its zero terminator).
        func subBlocksEnd(_ start: Int) throws -> Int {
            var at = start
            while true {
                guard at < out.count else { throw Unreadable(description: "a GIF block runs past the end") }
                let size = Int(out[at])
                at += 1
                if size == 0 { return at }
                at += size
            }
        }
        func colourTableSize(_ flags: UInt8) -> Int { flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1) }
        guard out.count >= 13 else { throw Unreadable(description: "a GIF shorter than its header") }
        var at = 13 + colourTableSize(out[10])
        let xmpIdentifier: [UInt8] = [11] + Array("XMP DataXMP".utf8)
        while true {
            guard at < out.count else { throw Unreadable(description: "a GIF ends without its trailer") }
            switch out[at] {
            case 0x3B:
                if at + 1 < out.count { out.removeSubrange((at + 1)...) }
                return
            case 0x2C:  // an image: its descriptor, local colour table, LZW code size, data
                guard at + 11 <= out.count else { throw Unreadable(description: "a GIF image descriptor is cut short") }
                at = try subBlocksEnd(at + 10 + colourTableSize(out[at + 9]) + 1)
            case 0x21:
                guard at + 2 <= out.count else { throw Unreadable(description: "a GIF extension is cut short") }
                let data = at + 2
                let end = try subBlocksEnd(data)
                if out[at + 1] == 0xFF, out[data..<end].starts(with: xmpIdentifier) {
                    let changed = try blankXMPLocation(&out, in: (data + xmpIdentifier.count)..<end)
                    let blankedEnd = changed ? try subBlocksEnd(data) : end
                    guard blankedEnd == end else {
                        throw Unreadable(description: "a GIF's XMP has no magic trailer: it cannot be blanked in place")
                    }
                }
                at = end
            default:
                throw Unreadable(description: "a GIF block of an unknown kind")
            }
        }
    }

    // MARK: YUV4MPEG2

    /// `X` parameters of a YUV4MPEG2 stream that say how to show the pictures, nothing else.
    private static let y4mKeptParameters: Set<String> = ["XYSCSS", "XCOLORRANGE"]

    /// A YUV4MPEG2 video: raw pictures, each after a `FRAME` header. Its only free-form data are `X`
    /// parameters (in the stream header and in frame headers): all but the colour ones are dropped
    /// and the file is written anew (it holds no offsets). Without any it comes back as it was.
    private static func y4m(_ bytes: [UInt8]) throws -> [UInt8] {
        func header(at start: Int) throws -> (tokens: [Substring], end: Int) {
            guard let newline = bytes[start..<min(bytes.count, start + 4096)].firstIndex(of: 0x0A) else {
                throw Unreadable(description: "a YUV4MPEG2 header is not terminated")
            }
            return (String(decoding: bytes[start..<newline], as: UTF8.self).split(separator: " "), newline + 1)
        }
        func kept(_ tokens: [Substring]) -> [Substring] {
            tokens.filter { !$0.hasPrefix("X") || y4mKeptParameters.contains(String($0.prefix { $0 != "=" })) }
        }
        let stream = try header(at: 0)
        guard stream.tokens.first == "YUV4MPEG2" else { throw Unreadable(description: "not a YUV4MPEG2 stream header") }
        var width = 0, height = 0, colour = "420jpeg"
        for token in stream.tokens.dropFirst() {
            switch token.first {
            case "W": width = Int(token.dropFirst()) ?? 0
            case "H": height = Int(token.dropFirst()) ?? 0
            case "C": colour = String(token.dropFirst())
            default: break
            }
        }
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else { throw Unreadable(description: "a YUV4MPEG2 stream without its size") }
        let frameSize = try y4mFrameSize(width: width, height: height, colour: colour)
        var out = Array((kept(stream.tokens).joined(separator: " ") + "\n").utf8)
        var changed = kept(stream.tokens).count != stream.tokens.count
        var at = stream.end
        while at < bytes.count {
            let frame = try header(at: at)
            guard frame.tokens.first == "FRAME" else { throw Unreadable(description: "a YUV4MPEG2 frame without its header") }
            guard frame.end + frameSize <= bytes.count else { throw Unreadable(description: "a YUV4MPEG2 frame is cut short") }
            let tokens = kept(frame.tokens)
            changed = changed || tokens.count != frame.tokens.count
            out += Array((tokens.joined(separator: " ") + "\n").utf8)
            out += bytes[frame.end..<(frame.end + frameSize)]
            at = frame.end + frameSize
        }
        return changed ? out : bytes
    }

    /// The bytes of one YUV4MPEG2 picture of `colour` (`C` parameter: 420jpeg, 420paldv, 420mpeg2,
    /// 420, 422, 444, 444alpha, 411, mono, and FFmpeg's deeper 420p10, 444p16, mono16, …).
    private static func y4mFrameSize(width w: Int, height h: Int, colour: String) throws -> Int {
        var base = colour
        for suffix in ["jpeg", "paldv", "mpeg2"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        var depth = 8
        if let p = base.firstIndex(of: "p"), let bits = Int(base[base.index(after: p)...]) {
            depth = bits
            base = String(base[..<p])
        } else if base.hasPrefix("mono"), let bits = Int(base.dropFirst(4)) {
            depth = bits
            base = "mono"
        }
        let samples: Int
        switch base {
        case "420": samples = w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2)
        case "422": samples = w * h + 2 * ((w + 1) / 2) * h
        case "411": samples = w * h + 2 * ((w + 3) / 4) * h
        case "444": samples = 3 * w * h
        case "444alpha": samples = 4 * w * h
        case "mono": samples = w * h
        default: throw Unreadable(description: "a YUV4MPEG2 stream of an unknown colour space")
        }
        guard (8...16).contains(depth) else { throw Unreadable(description: "a YUV4MPEG2 stream of an unknown depth") }
        return samples * (depth > 8 ? 2 : 1)
    }

    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
    private static func bigEndian32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}
