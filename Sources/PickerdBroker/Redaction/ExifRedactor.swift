import PickerdLibrary

/// Removes location metadata from a photo or video before it leaves pickerd, when the person did
/// not approve the place, so no coordinate byte remains in what an app receives:
///
/// - PNG: the `eXIf` chunk's GPS IFD, and GPS names and place names in an `iTXt` XMP packet.
/// - JPEG: APP1 `Exif`'s GPS IFD, and the same XMP names in APP1 XMP (standard and extended).
/// - ISO base media files, recognised by their content (an `ftyp` box, or a classic QuickTime first
///   atom), never by name: HEIC/HEIF/AVIF `Exif` and XMP items, and a QuickTime or MP4 movie's
///   `©xyz`, `loci`, location keys in `keys`/`ilst`, and XMP (`XMP_`, `uuid`). See
///   `ContainerRedactor.swift` for what each one becomes.
///
/// In TIFF (the EXIF of all three image formats) the GPS IFD and every value it points at are zeroed
/// and IFD0's pointer to it is removed. Everything is done in place on one buffer and no length
/// changes, so offsets elsewhere in the file (`iloc`, `stco`, TIFF offsets) stay right. Anything it
/// does not recognise is returned unchanged; a file in a recognised format whose structure cannot be
/// parsed is refused (release less, not more).
public enum ExifRedactor {
    /// A file whose metadata or container structure could not be understood.
    public struct Unreadable: Error, CustomStringConvertible {
        /// What was wrong.
        public var description: String
    }

    /// The file without location metadata.
    /// - Parameter bytes: a PNG, JPEG, HEIC/HEIF/AVIF, MOV or MP4 file, whole. Anything else is
    ///   returned as it is. Pass it as the last use of the caller's array and it is edited without
    ///   being copied.
    /// - Returns: the same file, the same length, with its location metadata removed or blanked.
    ///   A file that has none comes back byte for byte the same.
    /// - Throws: ``Unreadable`` when the file is one of those formats but its metadata or its box
    ///   structure cannot be parsed (a box running past the end, a GPS IFD out of range, …).
    public static func strippingGPS(_ bytes: consuming [UInt8]) throws -> [UInt8] {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            try png(&bytes)
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            try jpeg(&bytes)
        } else if isISOBaseMedia(bytes) {
            try isoBaseMedia(&bytes)
        }
        return bytes
    }

    private static func png(_ out: inout [UInt8]) throws {
        var offset = 8
        while offset + 12 <= out.count {
            let length = Int(be32(out, offset))
            guard offset + 12 + length <= out.count else { throw Unreadable(description: "a PNG chunk runs past the end") }
            let data = (offset + 8)..<(offset + 8 + length)
            var changed = false
            if out[(offset + 4)..<(offset + 8)].elementsEqual("eXIf".utf8) {
                try stripTIFF(&out, in: data)
                changed = true
            } else if out[(offset + 4)..<(offset + 8)].elementsEqual("iTXt".utf8) {
                changed = try pngXMP(&out, chunk: offset, data: data)
            }
            if changed {
                let crc = CRC32.checksum(Array(out[(offset + 4)..<(offset + 8 + length)]))
                out.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: bigEndian32(crc))
            }
            offset += 12 + length
        }
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
            out.replaceSubrange((chunk + 4)..<(chunk + 8), with: Array("xmPd".utf8))
            for i in data { out[i] = 0 }
            return true
        }
        return try blankXMPLocation(&out, in: at..<data.upperBound)
    }

    private static func jpeg(_ out: inout [UInt8]) throws {
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        let extendedXMP = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
        var extended: [[UInt8]: [(offset: Int, range: Range<Int>)]] = [:]  // GUID → its chunks
        var offset = 2
        while offset + 4 <= out.count, out[offset] == 0xFF {
            let marker = out[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // image data follows: no more metadata
            let length = Int(out[offset + 2]) << 8 | Int(out[offset + 3])
            guard length >= 2, offset + 2 + length <= out.count else { throw Unreadable(description: "a JPEG segment runs past the end") }
            let body = offset + 4
            let end = offset + 2 + length
            if marker == 0xE1, length >= 8, out[body..<(body + 6)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                try stripTIFF(&out, in: (body + 6)..<end)
            } else if marker == 0xE1, out[body..<end].starts(with: xmp) {
                try blankXMPLocation(&out, in: (body + xmp.count)..<end)
            } else if marker == 0xE1, out[body..<end].starts(with: extendedXMP) {
                // The GUID (32 hex digits), the full length, this chunk's offset, then the chunk.
                let header = body + extendedXMP.count
                guard header + 40 <= end else { throw Unreadable(description: "an extended XMP segment is too short") }
                let guid = Array(out[header..<(header + 32)])
                extended[guid, default: []].append((Int(be32(out, header + 36)), (header + 40)..<end))
            }
            offset = end
        }
        // Extended XMP is one packet split over segments: it is blanked as a whole, so a name split
        // between two segments is still found.
        for chunks in extended.values {
            try blankXMPLocation(&out, across: chunks.sorted { $0.offset < $1.offset }.map(\.range))
        }
    }

    /// Zeroes the GPS IFD and its values and drops IFD0's pointer to it, in place.
    static func stripTIFF(_ tiff: inout [UInt8]) throws {
        try stripTIFF(&tiff, in: 0..<tiff.count)
    }

    /// Zeroes the GPS IFD and its values and drops IFD0's pointer to it, in place, in the TIFF
    /// structure that occupies `range` of `buffer` (TIFF offsets count from the range's start).
    static func stripTIFF(_ buffer: inout [UInt8], in range: Range<Int>) throws {
        let base = range.lowerBound
        let length = range.count
        guard length >= 8, range.upperBound <= buffer.count else { throw Unreadable(description: "EXIF shorter than a TIFF header") }
        let little: Bool
        switch (buffer[base], buffer[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw Unreadable(description: "EXIF with an unknown byte order")
        }
        func u16(_ at: Int) throws -> Int {
            guard at >= 0, at + 2 <= length else { throw Unreadable(description: "EXIF offset out of range") }
            let b0 = Int(buffer[base + at]), b1 = Int(buffer[base + at + 1])
            return little ? b0 | b1 << 8 : b0 << 8 | b1
        }
        func u32(_ at: Int) throws -> Int {
            guard at >= 0, at + 4 <= length else { throw Unreadable(description: "EXIF offset out of range") }
            let b = (0..<4).map { Int(buffer[base + at + $0]) }
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8, 11: 4, 12: 8]
        let ifd0 = try u32(4)
        let count = try u16(ifd0)
        guard ifd0 + 2 + count * 12 + 4 <= length else { throw Unreadable(description: "IFD0 runs past the end") }
        guard let index = try (0..<count).first(where: { try u16(ifd0 + 2 + $0 * 12) == 0x8825 }) else { return }
        let gps = try u32(ifd0 + 2 + index * 12 + 8)
        let gpsCount = try u16(gps)
        guard gps + 2 + gpsCount * 12 + 4 <= length else { throw Unreadable(description: "the GPS IFD runs past the end") }
        // Zero every out-of-line value of the GPS IFD, then the IFD itself.
        for entry in 0..<gpsCount {
            let at = gps + 2 + entry * 12
            let size = (sizes[try u16(at + 2)] ?? 1) * (try u32(at + 4))
            if size > 4 {
                let value = try u32(at + 8)
                guard value + size <= length else { throw Unreadable(description: "a GPS value runs past the end") }
                for i in value..<(value + size) { buffer[base + i] = 0 }
            }
        }
        for i in gps..<(gps + 2 + gpsCount * 12 + 4) { buffer[base + i] = 0 }
        // Remove the pointer: shift the later entries down, blank the last slot, decrement the count.
        let entries = base + ifd0 + 2
        for e in index..<(count - 1) {
            for b in 0..<12 { buffer[entries + e * 12 + b] = buffer[entries + (e + 1) * 12 + b] }
        }
        let nextIFD = Array(buffer[(entries + count * 12)..<(entries + count * 12 + 4)])
        for b in 0..<12 { buffer[entries + (count - 1) * 12 + b] = 0 }
        buffer.replaceSubrange((entries + (count - 1) * 12)..<(entries + (count - 1) * 12 + 4), with: nextIFD)
        let newCount = count - 1
        buffer[base + ifd0] = little ? UInt8(newCount & 0xFF) : UInt8(newCount >> 8)
        buffer[base + ifd0 + 1] = little ? UInt8(newCount >> 8) : UInt8(newCount & 0xFF)
    }

    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
    private static func bigEndian32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}
