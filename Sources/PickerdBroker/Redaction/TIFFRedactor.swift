// The one TIFF walker of ``ExifRedactor``: a TIFF or DNG file, and the EXIF of JPEG, PNG, WebP and
// HEIF (all TIFF structures), lose their location in place, without a length changing.
//
// The walk starts at IFD0 and follows every link a reader may follow: the next-IFD links of IFD0's
// chain (IFD1, a TIFF's further pages), SubIFDs (tag 0x014A: a DNG's raw image and previews) and
// their chains, and the EXIF IFD (0x8769). In every IFD it reaches:
//
// - a GPS IFD pointer (0x8825) is removed from its IFD (the later entries move down, the count
//   drops), and the GPS IFD it pointed at is zeroed with every value it holds out of line;
// - an XMP packet (tag 700, 0x02BC) has its location properties blanked (``ExifRedactor/blankXMPLocation(_:in:)``);
// - an IPTC-IIM record (IPTC-NAA, tag 33723, 0x83BB, as exiftool writes a TIFF's IPTC) has its place
//   datasets blanked, and Photoshop's image resources (tag 34377, 0x8649) are treated as a JPEG's
//   APP13 (``ExifRedactor/photoshopResources(_:in:nesting:)``): what pickerd-reader reads a TIFF's
//   or a DNG's place from, no app receives;
// - a JPEG thumbnail (0x0201 offset, 0x0202 length) is redacted as a JPEG in its place; what follows
//   its end inside its bytes and is not understood is zeroed, since it cannot be cut there, and a
//   thumbnail that cannot be parsed is zeroed whole.
//
// Every offset is checked against the structure's bounds before it is read; an IFD reached twice
// (a cycle) is walked once, and a structure of more than ``ExifRedactor/maximumIFDs`` IFDs is refused.

extension ExifRedactor {
    /// The most IFDs one TIFF structure may hold before it is refused; a photo has a handful, a DNG
    /// a dozen or so, a multi-page TIFF one per page.
    static let maximumIFDs = 1024

    /// How deep images may nest inside each other (a JPEG after a JPEG, a thumbnail in an EXIF block
    /// in an appended JPEG, …) before the rest is treated as not understood.
    static let maximumNesting = 8

    /// TIFF tags the walk acts on.
    enum TIFFTag {
        static let subIFDs = 0x014A
        static let xmp = 0x02BC
        static let thumbnailOffset = 0x0201
        static let thumbnailLength = 0x0202
        static let stripOffsets = 0x0111
        static let stripByteCounts = 0x0117
        static let tileOffsets = 0x0144
        static let tileByteCounts = 0x0145
        static let exifIFD = 0x8769
        static let gpsIFD = 0x8825
        static let iptc = 0x83BB
        static let photoshop = 0x8649
    }

    /// Removes location from a TIFF or DNG file, whole, in place. Its image data (strips and tiles)
    /// is checked to lie inside it too, so a file cut short is refused.
    static func stripTIFF(_ tiff: inout [UInt8]) throws {
        try stripTIFF(&tiff, in: 0..<tiff.count, wholeFile: true)
    }

    /// Removes location, in place, from the TIFF structure that occupies `range` of `buffer` (TIFF
    /// offsets count from the range's start): every GPS IFD reachable from IFD0, XMP location in tag
    /// 700, and the location in an embedded JPEG thumbnail. See the top of this file.
    /// - Parameters:
    ///   - buffer: the file.
    ///   - range: where the TIFF structure is (a whole TIFF file, or an EXIF block).
    ///   - nesting: how deep this structure is inside other images (see ``maximumNesting``).
    ///   - wholeFile: whether the structure is a whole TIFF file, whose strips and tiles must lie
    ///     inside it (an EXIF block's offsets to image data may point outside it).
    /// - Throws: ``Unreadable`` when the header, an IFD or a value it must edit lies outside the
    ///   range (or, in a whole file, image data does), or there are more than ``maximumIFDs`` IFDs.
    static func stripTIFF(_ buffer: inout [UInt8], in range: Range<Int>, nesting: Int = 0, wholeFile: Bool = false) throws {
        guard range.count >= 8, range.lowerBound >= 0, range.upperBound <= buffer.count else {
            throw Unreadable(description: "EXIF shorter than a TIFF header")
        }
        let tiff = try TIFFStructure(buffer, range)
        let walk = try tiff.walk(buffer, checkingImageData: wholeFile)
        // 1. Zero every GPS IFD and the values it holds out of line.
        for gps in Set(walk.gpsIFDs) {
            let count = try tiff.u16(buffer, gps)
            guard gps + 2 + count * 12 + 4 <= tiff.length else { throw Unreadable(description: "a GPS IFD runs past the end") }
            for entry in 0..<count {
                let at = gps + 2 + entry * 12
                if let value = try tiff.outOfLineValue(buffer, entry: at) {
                    for i in value { buffer[tiff.base + i] = 0 }
                }
            }
            for i in gps..<(gps + 2 + count * 12 + 4) { buffer[tiff.base + i] = 0 }
        }
        // 2. Drop the pointers: each IFD that held one is written back without it, read afresh (so
        //    nothing zeroed above comes back), its next-IFD link moved up after its last entry.
        for ifd in walk.gpsParents {
            let count = try tiff.u16(buffer, ifd)
            guard ifd + 2 + count * 12 + 4 <= tiff.length else { throw Unreadable(description: "an IFD runs past the end") }
            let start = tiff.base + ifd + 2
            var kept: [UInt8] = []
            for entry in 0..<count where try tiff.u16(buffer, ifd + 2 + entry * 12) != TIFFTag.gpsIFD {
                kept += buffer[(start + entry * 12)..<(start + entry * 12 + 12)]
            }
            guard kept.count < count * 12 else { continue }
            let next = Array(buffer[(start + count * 12)..<(start + count * 12 + 4)])
            let rewritten = kept + next + [UInt8](repeating: 0, count: count * 12 - kept.count)
            buffer.replaceSubrange(start..<(start + count * 12 + 4), with: rewritten)
            let newCount = kept.count / 12
            buffer[tiff.base + ifd] = tiff.little ? UInt8(newCount & 0xFF) : UInt8(newCount >> 8)
            buffer[tiff.base + ifd + 1] = tiff.little ? UInt8(newCount >> 8) : UInt8(newCount & 0xFF)
        }
        // 3. XMP packets, then thumbnails.
        for xmp in walk.xmp {
            try blankXMPLocation(&buffer, in: (tiff.base + xmp.lowerBound)..<(tiff.base + xmp.upperBound))
        }
        for iptc in walk.iptc {
            try blankIIMPlace(&buffer, in: (tiff.base + iptc.lowerBound)..<(tiff.base + iptc.upperBound))
        }
        for resources in walk.photoshop {
            try photoshopResources(&buffer, in: (tiff.base + resources.lowerBound)..<(tiff.base + resources.upperBound), nesting: nesting + 1)
        }
        for thumbnail in walk.thumbnails {
            redactEmbeddedJPEG(&buffer, in: (tiff.base + thumbnail.lowerBound)..<(tiff.base + thumbnail.upperBound),
                               nesting: nesting + 1)
        }
    }

    /// A JPEG inside another structure (an EXIF thumbnail), redacted where it lies: nothing can be
    /// cut there, so what follows its end inside `range` is zeroed instead. A range that does not
    /// hold a JPEG, or one that cannot be parsed, is zeroed whole (the picture keeps everything but
    /// its thumbnail), and so is one nested past ``maximumNesting``.
    static func redactEmbeddedJPEG(_ buffer: inout [UInt8], in range: Range<Int>, nesting: Int) {
        var end = range.lowerBound
        if nesting <= maximumNesting, range.count >= 4, buffer[range.lowerBound] == 0xFF, buffer[range.lowerBound + 1] == 0xD8 {
            var part = Array(buffer[range])
            if let kept = try? jpegWithTrailer(&part, at: 0, nesting: nesting) {
                end = range.lowerBound + kept
                buffer.replaceSubrange(range.lowerBound..<end, with: part[0..<kept])
            }
        }
        for i in end..<range.upperBound { buffer[i] = 0 }
    }
}

/// What a walk of one TIFF structure found, as offsets from the structure's start.
struct TIFFWalk {
    /// Every GPS IFD a pointer leads to.
    var gpsIFDs: [Int] = []
    /// The IFDs that hold a GPS IFD pointer.
    var gpsParents: Set<Int> = []
    /// XMP packets (tag 700).
    var xmp: [Range<Int>] = []
    /// IPTC-IIM records (tag 33723).
    var iptc: [Range<Int>] = []
    /// Photoshop's image resources (tag 34377).
    var photoshop: [Range<Int>] = []
    /// JPEG thumbnails (tags 0x0201 and 0x0202) that lie inside the structure.
    var thumbnails: [Range<Int>] = []
}

/// A TIFF structure inside a buffer: its start, length and byte order, and bounds-checked readers.
struct TIFFStructure {
    /// Where the header starts in the buffer.
    let base: Int
    /// How many bytes it spans; every offset must fall inside.
    let length: Int
    /// Intel byte order ("II") rather than Motorola ("MM").
    let little: Bool

    /// Reads the header of the structure at `range` of `buffer`.
    /// - Throws: ``ExifRedactor/Unreadable`` for an unknown byte order or a header that is not TIFF's.
    init(_ buffer: [UInt8], _ range: Range<Int>) throws {
        base = range.lowerBound
        length = range.count
        switch (buffer[base], buffer[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw ExifRedactor.Unreadable(description: "EXIF with an unknown byte order")
        }
        guard try u16(buffer, 2) == 42 else { throw ExifRedactor.Unreadable(description: "a TIFF header without its 42") }
    }

    /// The 16-bit value at offset `at`.
    func u16(_ buffer: [UInt8], _ at: Int) throws -> Int {
        guard at >= 0, at + 2 <= length else { throw ExifRedactor.Unreadable(description: "EXIF offset out of range") }
        let b0 = Int(buffer[base + at]), b1 = Int(buffer[base + at + 1])
        return little ? b0 | b1 << 8 : b0 << 8 | b1
    }

    /// The 32-bit value at offset `at`.
    func u32(_ buffer: [UInt8], _ at: Int) throws -> Int {
        guard at >= 0, at + 4 <= length else { throw ExifRedactor.Unreadable(description: "EXIF offset out of range") }
        let b = (0..<4).map { Int(buffer[base + at + $0]) }
        return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
    }

    /// Bytes per value of each TIFF field type (BYTE, ASCII, SHORT, LONG, RATIONAL, SBYTE, UNDEFINED,
    /// SSHORT, SLONG, SRATIONAL, FLOAT, DOUBLE, IFD, and BigTIFF's 8-byte types); an unknown type
    /// counts as one byte per value.
    static let typeSizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8]

    /// Where the entry at offset `entry` keeps its value: inline (in the entry's last four bytes)
    /// or out of line, checked to lie inside the structure.
    func value(_ buffer: [UInt8], entry: Int) throws -> Range<Int> {
        let size = (Self.typeSizes[try u16(buffer, entry + 2)] ?? 1) * (try u32(buffer, entry + 4))
        if size <= 4 { return (entry + 8)..<(entry + 8 + size) }
        let offset = try u32(buffer, entry + 8)
        guard offset + size <= length else { throw ExifRedactor.Unreadable(description: "an EXIF value runs past the end") }
        return offset..<(offset + size)
    }

    /// The entry's value when it is kept out of line, `nil` when it is inline.
    func outOfLineValue(_ buffer: [UInt8], entry: Int) throws -> Range<Int>? {
        let range = try value(buffer, entry: entry)
        return range.lowerBound == entry + 8 ? nil : range
    }

    /// The entry's values as integers: each SHORT, LONG or IFD of an array (strip offsets, counts).
    func integers(_ buffer: [UInt8], entry: Int) throws -> [Int] {
        let type = try u16(buffer, entry + 2)
        guard [3, 4, 13].contains(type) else { throw ExifRedactor.Unreadable(description: "image data offsets of TIFF type \(type)") }
        let values = try value(buffer, entry: entry)
        return try stride(from: values.lowerBound, to: values.upperBound, by: type == 3 ? 2 : 4).map {
            type == 3 ? try u16(buffer, $0) : try u32(buffer, $0)
        }
    }

    /// Walks every IFD reachable from IFD0 (see the top of TIFFRedactor.swift) and notes what the
    /// redaction acts on.
    /// - Parameter checkingImageData: whether each IFD's strips and tiles must lie inside the
    ///   structure (a whole TIFF file).
    /// - Throws: ``ExifRedactor/Unreadable`` when an IFD (or checked image data) lies outside the
    ///   structure or there are more than ``ExifRedactor/maximumIFDs``.
    func walk(_ buffer: [UInt8], checkingImageData: Bool) throws -> TIFFWalk {
        typealias Tag = ExifRedactor.TIFFTag
        var found = TIFFWalk()
        let ifd0 = try u32(buffer, 4)
        guard ifd0 >= 8 else { throw ExifRedactor.Unreadable(description: "IFD0 overlaps the TIFF header") }
        // IFDs to visit, each with whether its next-IFD link is followed (IFD0's chain and SubIFDs'
        // chains are lists of images; the EXIF IFD's link means nothing).
        var pending: [(offset: Int, chained: Bool)] = [(ifd0, true)]
        var visited: Set<Int> = []
        while let (ifd, chained) = pending.popLast() {
            guard visited.insert(ifd).inserted else { continue }
            guard visited.count <= ExifRedactor.maximumIFDs else { throw ExifRedactor.Unreadable(description: "a TIFF with too many IFDs") }
            let count = try u16(buffer, ifd)
            guard ifd + 2 + count * 12 + 4 <= length else { throw ExifRedactor.Unreadable(description: "an IFD runs past the end") }
            var thumbnail: (offset: Int?, length: Int?) = (nil, nil)
            var imageData: [Int: [Int]] = [:]  // offsets' and byte counts' tags → their values
            for index in 0..<count {
                let entry = ifd + 2 + index * 12
                switch try u16(buffer, entry) {
                case Tag.gpsIFD:
                    found.gpsParents.insert(ifd)
                    let gps = try u32(buffer, entry + 8)
                    if gps != 0 { found.gpsIFDs.append(gps) }
                case Tag.exifIFD:
                    let exif = try u32(buffer, entry + 8)
                    if exif != 0 { pending.append((exif, false)) }
                case Tag.subIFDs:
                    let values = try value(buffer, entry: entry)
                    guard values.count % 4 == 0 else { throw ExifRedactor.Unreadable(description: "SubIFDs that are not 32-bit offsets") }
                    for at in stride(from: values.lowerBound, to: values.upperBound, by: 4) {
                        let sub = try u32(buffer, at)
                        if sub != 0 { pending.append((sub, true)) }
                    }
                case Tag.xmp:
                    found.xmp.append(try value(buffer, entry: entry))
                case Tag.iptc:
                    found.iptc.append(try value(buffer, entry: entry))
                case Tag.photoshop:
                    found.photoshop.append(try value(buffer, entry: entry))
                case Tag.thumbnailOffset: thumbnail.offset = try u32(buffer, entry + 8)
                case Tag.thumbnailLength: thumbnail.length = try u32(buffer, entry + 8)
                case Tag.stripOffsets, Tag.stripByteCounts, Tag.tileOffsets, Tag.tileByteCounts:
                    if checkingImageData { imageData[try u16(buffer, entry)] = try integers(buffer, entry: entry) }
                default: break
                }
            }
            for (offsets, counts) in [(Tag.stripOffsets, Tag.stripByteCounts), (Tag.tileOffsets, Tag.tileByteCounts)] {
                guard let starts = imageData[offsets] else { continue }
                guard let sizes = imageData[counts], sizes.count == starts.count,
                      zip(starts, sizes).allSatisfy({ $0 + $1 <= length }) else {
                    throw ExifRedactor.Unreadable(description: "a TIFF's image data runs past the end")
                }
            }
            // A thumbnail whose bytes are not inside the structure is found by no reader: left alone.
            if let offset = thumbnail.offset, let size = thumbnail.length, offset >= 8, size > 0, offset + size <= length {
                found.thumbnails.append(offset..<(offset + size))
            }
            let next = try u32(buffer, ifd + 2 + count * 12)
            if chained, next != 0 { pending.append((next, true)) }
        }
        return found
    }
}
