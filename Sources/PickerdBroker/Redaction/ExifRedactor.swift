import PickerdLibrary

/// Removes GPS metadata from a photo's EXIF before it leaves pickerd, when the person did not
/// approve the place: the GPS IFD and every value it points at are zeroed, and IFD0's pointer to it
/// is removed, so no coordinate byte remains. Handles PNG (`eXIf` chunk) and JPEG (APP1 `Exif`).
/// Anything it does not recognise is returned unchanged only if it holds no EXIF at all; a file with
/// EXIF it cannot parse is refused (release less, not more).
public enum ExifRedactor {
    /// A file whose EXIF could not be understood.
    public struct Unreadable: Error, CustomStringConvertible {
        /// What was wrong.
        public var description: String
    }

    /// The file without GPS metadata.
    /// - Parameter bytes: a PNG or JPEG file.
    /// - Returns: the same file with its GPS IFD removed (the length stays the same for JPEG).
    /// - Throws: ``Unreadable`` when the file has EXIF that cannot be parsed.
    public static func strippingGPS(_ bytes: [UInt8]) throws -> [UInt8] {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8]) { return try jpeg(bytes) }
        return bytes
    }

    private static func png(_ bytes: [UInt8]) throws -> [UInt8] {
        var out = bytes
        var offset = 8
        while offset + 12 <= out.count {
            let length = Int(be32(out, offset))
            guard offset + 12 + length <= out.count else { throw Unreadable(description: "a PNG chunk runs past the end") }
            if out[(offset + 4)..<(offset + 8)].elementsEqual("eXIf".utf8) {
                var tiff = Array(out[(offset + 8)..<(offset + 8 + length)])
                try stripTIFF(&tiff)
                out.replaceSubrange((offset + 8)..<(offset + 8 + length), with: tiff)
                let crc = CRC32.checksum(Array(out[(offset + 4)..<(offset + 8 + length)]))
                out.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: bigEndian32(crc))
            }
            offset += 12 + length
        }
        return out
    }

    private static func jpeg(_ bytes: [UInt8]) throws -> [UInt8] {
        var out = bytes
        var offset = 2
        while offset + 4 <= out.count, out[offset] == 0xFF {
            let marker = out[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // image data follows: no more metadata
            let length = Int(out[offset + 2]) << 8 | Int(out[offset + 3])
            guard length >= 2, offset + 2 + length <= out.count else { throw Unreadable(description: "a JPEG segment runs past the end") }
            let body = offset + 4
            if marker == 0xE1, length >= 8, out[body..<(body + 6)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                var tiff = Array(out[(body + 6)..<(offset + 2 + length)])
                try stripTIFF(&tiff)
                out.replaceSubrange((body + 6)..<(offset + 2 + length), with: tiff)
            }
            offset += 2 + length
        }
        return out
    }

    /// Zeroes the GPS IFD and its values and drops IFD0's pointer to it, in place.
    static func stripTIFF(_ tiff: inout [UInt8]) throws {
        guard tiff.count >= 8 else { throw Unreadable(description: "EXIF shorter than a TIFF header") }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw Unreadable(description: "EXIF with an unknown byte order")
        }
        func u16(_ at: Int) throws -> Int {
            guard at + 2 <= tiff.count else { throw Unreadable(description: "EXIF offset out of range") }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) throws -> Int {
            guard at + 4 <= tiff.count else { throw Unreadable(description: "EXIF offset out of range") }
            let b = tiff[at..<(at + 4)].map(Int.init)
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8, 11: 4, 12: 8]
        let ifd0 = try u32(4)
        let count = try u16(ifd0)
        guard ifd0 + 2 + count * 12 + 4 <= tiff.count else { throw Unreadable(description: "IFD0 runs past the end") }
        guard let index = try (0..<count).first(where: { try u16(ifd0 + 2 + $0 * 12) == 0x8825 }) else { return }
        let gps = try u32(ifd0 + 2 + index * 12 + 8)
        let gpsCount = try u16(gps)
        guard gps + 2 + gpsCount * 12 + 4 <= tiff.count else { throw Unreadable(description: "the GPS IFD runs past the end") }
        // Zero every out-of-line value of the GPS IFD, then the IFD itself.
        for entry in 0..<gpsCount {
            let at = gps + 2 + entry * 12
            let size = (sizes[try u16(at + 2)] ?? 1) * (try u32(at + 4))
            if size > 4 {
                let value = try u32(at + 8)
                guard value + size <= tiff.count else { throw Unreadable(description: "a GPS value runs past the end") }
                for i in value..<(value + size) { tiff[i] = 0 }
            }
        }
        for i in gps..<(gps + 2 + gpsCount * 12 + 4) { tiff[i] = 0 }
        // Remove the pointer: shift the later entries down, blank the last slot, decrement the count.
        let entries = ifd0 + 2
        for e in index..<(count - 1) {
            for b in 0..<12 { tiff[entries + e * 12 + b] = tiff[entries + (e + 1) * 12 + b] }
        }
        let nextIFD = Array(tiff[(entries + count * 12)..<(entries + count * 12 + 4)])
        for b in 0..<12 { tiff[entries + (count - 1) * 12 + b] = 0 }
        tiff.replaceSubrange((entries + (count - 1) * 12)..<(entries + (count - 1) * 12 + 4), with: nextIFD)
        let newCount = count - 1
        tiff[ifd0] = little ? UInt8(newCount & 0xFF) : UInt8(newCount >> 8)
        tiff[ifd0 + 1] = little ? UInt8(newCount >> 8) : UInt8(newCount & 0xFF)
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
    private static func bigEndian32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}
