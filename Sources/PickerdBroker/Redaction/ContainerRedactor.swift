// Location redaction for ISO base media files (HEIC/HEIF/AVIF stills, QuickTime and MP4 movies) and
// for XMP packets, the part of ``ExifRedactor`` that walks boxes. Everything edits one buffer in
// place and never changes a length, so every offset in the file (`iloc` extents, `stco`/`co64`
// chunk offsets, TIFF offsets) stays valid.
//
// What each location store becomes:
//
// - HEIF `Exif` item (found through `meta` → `iinf` and `iloc`, in the file or in `idat`): the TIFF
//   GPS IFD is zeroed and unlinked, as for JPEG.
// - HEIF XMP item (`mime`, application/rdf+xml), `XMP_` in a movie's `udta`, an XMP `uuid` box: every
//   location property is overwritten with spaces, markup and all (see ``ExifRedactor/blankXMPLocation(_:in:)``).
// - A movie's `©xyz` (ISO 6709 in `udta`), `loci` (3GPP location in `udta`), and an `ilst` item whose
//   key names a location (`com.apple.quicktime.location.ISO6709`, `….location.accuracy.horizontal`,
//   any key containing "location", "ISO6709" or "GPS", or the item `©xyz`): the box's type becomes
//   `free` and its payload zeroes. ISO/IEC 14496-12 allows a free-space box in any container and
//   every reader skips it, which removes the tag outright, where blanking the value would leave a
//   tag with an empty or malformed value for readers to trip on. The key's name stays in `keys`
//   (it says nothing of where), so the indices of the other items stay right.

/// One box of an ISO base media file, as offsets into the buffer.
struct MediaBox {
    /// The four-character type.
    var type: UInt32
    /// Where the box starts (its size field).
    var start: Int
    /// Where the size, type and 64-bit size end: what becomes a `free` box's payload.
    var payload: Int
    /// Where the contents start (after a `uuid` box's extended type too).
    var body: Int
    /// Where the box ends.
    var end: Int
}

extension ExifRedactor {
    /// Four-character code as a big-endian integer.
    static func fourCC(_ s: StaticString) -> UInt32 {
        var v: UInt32 = 0
        s.withUTF8Buffer { for b in $0 { v = v << 8 | UInt32(b) } }
        return v
    }

    /// The XMP `uuid` box's extended type, BE7ACFCB-97A9-42E8-9C71-999491E3AFAC.
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// Whether the bytes are an ISO base media file: an `ftyp` box first (HEIC, HEIF, AVIF, MP4, MOV,
    /// 3GP, whatever its brands say, since they all keep metadata in the same boxes), or a classic
    /// QuickTime movie that starts with `moov`, `mdat`, `wide`, `free`, `skip` or `pnot`.
    static func isISOBaseMedia(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 else { return false }
        let type = be32(bytes, 4)
        if type == fourCC("ftyp") { return true }
        let size = be32(bytes, 0)
        let quickTime = [fourCC("moov"), fourCC("mdat"), fourCC("wide"), fourCC("free"), fourCC("skip"), fourCC("pnot")]
        return quickTime.contains(type) && (size == 0 || size == 1 || size >= 8)
    }

    /// Redacts every location store of an ISO base media file in place.
    static func isoBaseMedia(_ b: inout [UInt8]) throws {
        for box in try boxes(b, in: 0..<b.count) {
            switch box.type {
            case fourCC("meta"):
                let contents = try metaContents(b, box)
                try heifItems(&b, in: contents)
                try metadata(&b, in: contents)
            case fourCC("moov"): try movie(&b, box)
            case fourCC("uuid"): try xmpBox(&b, box)
            default: break
            }
        }
    }

    // MARK: Boxes

    /// The boxes that fill `range`, checked to fit inside it. A size of 0 means "to the end of the
    /// container"; fewer than 8 zero bytes at the end (QuickTime's `udta` terminator) end the list.
    /// - Throws: ``Unreadable`` when a box is shorter than its header or runs past the range.
    static func boxes(_ b: [UInt8], in range: Range<Int>) throws -> [MediaBox] {
        var found: [MediaBox] = []
        var at = range.lowerBound
        while at < range.upperBound {
            let left = range.upperBound - at
            if left < 8 {
                guard b[at..<range.upperBound].allSatisfy({ $0 == 0 }) else { throw Unreadable(description: "a box is cut short") }
                break
            }
            var size = Int(be32(b, at))
            let type = be32(b, at + 4)
            var header = 8
            if size == 1 {
                guard left >= 16 else { throw Unreadable(description: "a box's 64-bit size is cut short") }
                let large = UInt64(be32(b, at + 8)) << 32 | UInt64(be32(b, at + 12))
                guard large <= UInt64(left) else { throw Unreadable(description: "a box runs past the end") }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = left
            }
            guard size >= header, size <= left else { throw Unreadable(description: "a box runs past the end") }
            let payload = at + header
            if type == fourCC("uuid") {
                header += 16
                guard size >= header else { throw Unreadable(description: "a uuid box is shorter than its type") }
            }
            found.append(MediaBox(type: type, start: at, payload: payload, body: at + header, end: at + size))
            at += size
        }
        return found
    }

    /// The range of a `meta` box's children: ISO's `meta` is a full box (version and flags first),
    /// QuickTime's is not; QuickTime's starts straight with its `hdlr`.
    static func metaContents(_ b: [UInt8], _ meta: MediaBox) throws -> Range<Int> {
        if meta.end - meta.body >= 8, be32(b, meta.body + 4) == fourCC("hdlr") { return meta.body..<meta.end }
        guard meta.end - meta.body >= 4 else { throw Unreadable(description: "a meta box is too short") }
        return (meta.body + 4)..<meta.end
    }

    /// Makes a box a `free` box of zeroes, the same size.
    static func neutralise(_ b: inout [UInt8], _ box: MediaBox) {
        b.replaceSubrange((box.start + 4)..<(box.start + 8), with: Array("free".utf8))
        for i in box.payload..<box.end { b[i] = 0 }
    }

    // MARK: Movies

    private static func movie(_ b: inout [UInt8], _ moov: MediaBox) throws {
        for box in try boxes(b, in: moov.body..<moov.end) {
            switch box.type {
            case fourCC("trak"):
                for inner in try boxes(b, in: box.body..<box.end) {
                    switch inner.type {
                    case fourCC("udta"): try userData(&b, inner)
                    case fourCC("meta"): try metadata(&b, in: try metaContents(b, inner))
                    case fourCC("uuid"): try xmpBox(&b, inner)
                    default: break
                    }
                }
            case fourCC("udta"): try userData(&b, box)
            case fourCC("meta"): try metadata(&b, in: try metaContents(b, box))
            case fourCC("uuid"): try xmpBox(&b, box)
            default: break
            }
        }
    }

    /// `udta`: `©xyz` and `loci` become `free`; `meta` and `XMP_` are redacted inside.
    private static func userData(_ b: inout [UInt8], _ udta: MediaBox) throws {
        for box in try boxes(b, in: udta.body..<udta.end) {
            switch box.type {
            case 0xA978_797A, fourCC("loci"): neutralise(&b, box)  // ©xyz
            case fourCC("meta"): try metadata(&b, in: try metaContents(b, box))
            case fourCC("XMP_"): try blankXMPLocation(&b, in: box.body..<box.end)
            default: break
            }
        }
    }

    /// A metadata `meta`'s `keys` and `ilst`: items with a location key (or `©xyz`, or a `----` item
    /// whose name says location) become `free`.
    static func metadata(_ b: inout [UInt8], in contents: Range<Int>) throws {
        let children = try boxes(b, in: contents)
        var keys: [String] = []
        if let box = children.first(where: { $0.type == fourCC("keys") }) {
            guard box.end - box.body >= 8 else { throw Unreadable(description: "a keys box is too short") }
            let count = Int(be32(b, box.body + 4))
            var at = box.body + 8
            for _ in 0..<count {
                guard at + 8 <= box.end else { throw Unreadable(description: "a keys box is cut short") }
                let size = Int(be32(b, at))
                guard size >= 8, at + size <= box.end else { throw Unreadable(description: "a key runs past its box") }
                keys.append(String(decoding: b[(at + 8)..<(at + size)], as: UTF8.self))
                at += size
            }
        }
        for list in children where list.type == fourCC("ilst") {
            for item in try boxes(b, in: list.body..<list.end) {
                var location = item.type == 0xA978_797A  // ©xyz
                if item.type >= 1, Int(item.type) <= keys.count, isLocationName(keys[Int(item.type) - 1]) {
                    location = true
                }
                if item.type == fourCC("----") {
                    for part in try boxes(b, in: item.body..<item.end) where part.type == fourCC("name") {
                        if part.end - part.body > 4, isLocationName(String(decoding: b[(part.body + 4)..<part.end], as: UTF8.self)) {
                            location = true
                        }
                    }
                }
                if location { neutralise(&b, item) }
            }
        }
    }

    static func isLocationName(_ key: String) -> Bool {
        let key = key.lowercased()
        return key.contains("location") || key.contains("iso6709") || key.contains("gps")
    }

    private static func xmpBox(_ b: inout [UInt8], _ box: MediaBox) throws {
        guard b[(box.payload)..<(box.body)].elementsEqual(xmpUUID) else { return }
        try blankXMPLocation(&b, in: box.body..<box.end)
    }

    // MARK: HEIF items

    /// A HEIF `meta`'s `Exif` and XMP items, found through `iinf` and `iloc`.
    private static func heifItems(_ b: inout [UInt8], in contents: Range<Int>) throws {
        let children = try boxes(b, in: contents)
        guard let iinf = children.first(where: { $0.type == fourCC("iinf") }) else { return }
        var exif: Set<Int> = [], xmp: Set<Int> = []
        guard iinf.end - iinf.body >= 6 else { throw Unreadable(description: "an iinf box is too short") }
        let entries = iinf.body + (b[iinf.body] == 0 ? 6 : 8)
        guard entries <= iinf.end else { throw Unreadable(description: "an iinf box is too short") }
        for infe in try boxes(b, in: entries..<iinf.end) where infe.type == fourCC("infe") {
            var reader = Reader(bytes: b, at: infe.body, end: infe.end)
            let version = try reader.byte()
            try reader.skip(3)
            if version >= 2 {
                let id = try reader.int(version == 2 ? 2 : 4)
                try reader.skip(2)  // protection index
                let type = UInt32(try reader.int(4))
                _ = reader.string()  // name
                if type == fourCC("Exif") { exif.insert(id) }
                if type == fourCC("mime") {
                    let contentType = reader.string()
                    if try isXMP(contentType, encoding: reader.string()) { xmp.insert(id) }
                }
            } else {
                let id = try reader.int(2)
                try reader.skip(2)
                _ = reader.string()  // name
                let contentType = reader.string()
                if try isXMP(contentType, encoding: reader.string()) { xmp.insert(id) }
            }
        }
        guard !exif.isEmpty || !xmp.isEmpty else { return }
        guard let iloc = children.first(where: { $0.type == fourCC("iloc") }) else {
            throw Unreadable(description: "a HEIF file has metadata items but no iloc")
        }
        let idat = children.first(where: { $0.type == fourCC("idat") }).map { $0.body..<$0.end }
        for (id, extents) in try locations(b, iloc: iloc, idat: idat) where exif.contains(id) || xmp.contains(id) {
            guard let extents else { throw Unreadable(description: "a metadata item built from other items") }
            if exif.contains(id) {
                try edit(&b, extents) { payload in
                    guard payload.count >= 4 else { throw Unreadable(description: "an Exif item is too short") }
                    let tiff = 4 + Int(be32(payload, 0))
                    guard tiff < payload.count else { throw Unreadable(description: "an Exif item's TIFF offset is out of range") }
                    try stripTIFF(&payload, in: tiff..<payload.count)
                }
            } else if xmp.contains(id) {
                try edit(&b, extents) { payload in _ = try blankXMPLocation(&payload, in: 0..<payload.count) }
            }
        }
    }

    /// Whether an item's content type is XMP; XMP with a content encoding (deflate) cannot be blanked
    /// in place, so it is refused.
    private static func isXMP(_ type: String, encoding: String) throws -> Bool {
        guard type == "application/rdf+xml" || type == "application/xmp+xml" else { return false }
        guard encoding.isEmpty else { throw Unreadable(description: "an XMP item is \(encoding)-encoded") }
        return true
    }

    /// Where each item's bytes are, by item ID, as ranges of the buffer, from `iloc`: construction
    /// method 0 gives file offsets, 1 offsets into `idat`; 2 (an item built from other items) gives
    /// `nil`. The data reference index is taken to be this file (0, or a self-contained `url `).
    private static func locations(_ b: [UInt8], iloc: MediaBox, idat: Range<Int>?) throws -> [(Int, [Range<Int>]?)] {
        var reader = Reader(bytes: b, at: iloc.body, end: iloc.end)
        let version = try reader.byte()
        guard version <= 2 else { throw Unreadable(description: "an iloc box of version \(version)") }
        try reader.skip(3)
        let sizes1 = try reader.byte(), sizes2 = try reader.byte()
        let offsetSize = Int(sizes1 >> 4), lengthSize = Int(sizes1 & 0xF), baseSize = Int(sizes2 >> 4)
        let indexSize = version == 0 ? 0 : Int(sizes2 & 0xF)
        for size in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(size) {
            throw Unreadable(description: "an iloc field of \(size) bytes")
        }
        let count = try reader.int(version < 2 ? 2 : 4)
        var items: [(Int, [Range<Int>]?)] = []
        for _ in 0..<count {
            let id = try reader.int(version < 2 ? 2 : 4)
            let method = if version == 0 { 0 } else { try reader.int(2) & 0xF }
            try reader.skip(2)  // data reference index
            let base = try reader.int(baseSize)
            let extentCount = try reader.int(2)
            var ranges: [Range<Int>] = []
            for _ in 0..<extentCount {
                try reader.skip(indexSize)
                let offset = try reader.int(offsetSize), length = try reader.int(lengthSize)
                let space: Range<Int>
                switch method {
                case 0: space = 0..<b.count
                case 1:
                    guard let idat else { throw Unreadable(description: "an item in idat without an idat box") }
                    space = idat
                default: continue
                }
                let start = space.lowerBound + base + offset
                let end = length == 0 ? space.upperBound : start + length
                guard start <= end, end <= space.upperBound else { throw Unreadable(description: "an item's extent runs past the end") }
                ranges.append(start..<end)
            }
            items.append((id, method > 1 ? nil : ranges))
        }
        return items
    }

    /// Gathers an item's extents, lets `change` edit the copy, and writes it back where it came from.
    private static func edit(_ b: inout [UInt8], _ extents: [Range<Int>],
                             _ change: (inout [UInt8]) throws -> Void) throws {
        var payload: [UInt8] = []
        for range in extents { payload += b[range] }
        let original = payload
        try change(&payload)
        guard payload != original else { return }
        var at = 0
        for range in extents {
            b.replaceSubrange(range, with: payload[at..<(at + range.count)])
            at += range.count
        }
    }

    // MARK: XMP

    /// Blanks XMP's location properties in an XMP packet split over several ranges (extended XMP).
    static func blankXMPLocation(_ b: inout [UInt8], across ranges: [Range<Int>]) throws {
        try edit(&b, ranges) { payload in _ = try blankXMPLocation(&payload, in: 0..<payload.count) }
    }

    /// Local names of XMP properties that say where: anything starting with "GPS" in any namespace
    /// (`exif:GPSLatitude`, `exifEX:GPS…`, DJI's `drone-dji:GpsLatitude`), and IPTC and Photoshop
    /// place names.
    private static let placeNames: Set<String> = [
        "city", "state", "country", "countrycode", "location", "sublocation", "locationcreated", "locationshown",
        "provincestate", "countryname", "worldregion",
    ]

    /// Whether an XMP property's local name (or a PNG text keyword's part after its last colon)
    /// says where.
    static func isXMPLocation(_ local: ArraySlice<UInt8>) -> Bool {
        let name = String(decoding: local, as: UTF8.self).lowercased()
        return name.hasPrefix("gps") || placeNames.contains(name)
    }

    /// Overwrites every XMP location property in `range` with spaces, in place: an attribute
    /// (`exif:GPSLatitude="45,30.0N"`) from its name to its closing quote, an element
    /// (`<exif:GPSLatitude>…</exif:GPSLatitude>`) from its `<` to the `>` that closes it. Whitespace
    /// is allowed where either stood, so the packet stays well-formed XML, offsets do not move, and
    /// readers see no property rather than an empty one.
    /// - Returns: whether anything changed.
    /// - Throws: ``Unreadable`` when a location property's value or element is not terminated.
    @discardableResult
    static func blankXMPLocation(_ b: inout [UInt8], in range: Range<Int>) throws -> Bool {
        let colon = UInt8(ascii: ":"), less = UInt8(ascii: "<"), greater = UInt8(ascii: ">")
        let equals = UInt8(ascii: "="), slash = UInt8(ascii: "/")
        func isName(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D || c == 0x2E || c >= 0x80
        }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        let end = range.upperBound
        var changed = false
        func blank(_ r: ClosedRange<Int>) {
            for i in r { b[i] = 0x20 }
            changed = true
        }
        var i = range.lowerBound
        while i < end {
            guard b[i] == colon else { i += 1; continue }
            var p = i
            while p > range.lowerBound, isName(b[p - 1]) { p -= 1 }
            var l = i + 1
            while l < end, isName(b[l]) { l += 1 }
            guard p < i, p > range.lowerBound, l > i + 1, isXMPLocation(b[(i + 1)..<l]) else { i = l; continue }
            let before = b[p - 1]
            if before == less {
                // An element: find the end of its start tag, outside quotes.
                var t = l
                var quote: UInt8?
                while t < end {
                    let c = b[t]
                    if let q = quote {
                        if c == q { quote = nil }
                    } else if c == 0x22 || c == 0x27 {
                        quote = c
                    } else if c == greater {
                        break
                    }
                    t += 1
                }
                guard t < end else { throw Unreadable(description: "an XMP location element is not terminated") }
                if b[t - 1] == slash {
                    blank((p - 1)...t)
                    i = t + 1
                    continue
                }
                // Find its end tag, "</" + the same qualified name + optional space + ">".
                let name = Array(b[p..<l])
                var c = t + 1
                var close: Int?
                while c + 2 + name.count < end {
                    if b[c] == less, b[c + 1] == slash, b[(c + 2)..<(c + 2 + name.count)].elementsEqual(name) {
                        var e = c + 2 + name.count
                        while e < end, isSpace(b[e]) { e += 1 }
                        if e < end, b[e] == greater { close = e; break }
                    }
                    c += 1
                }
                guard let close else { throw Unreadable(description: "an XMP location element has no end tag") }
                blank((p - 1)...close)
                i = close + 1
            } else if isSpace(before) {
                // Perhaps an attribute: name, optional space, "=", optional space, a quoted value.
                var t = l
                while t < end, isSpace(b[t]) { t += 1 }
                guard t < end, b[t] == equals else { i = l; continue }
                t += 1
                while t < end, isSpace(b[t]) { t += 1 }
                guard t < end, b[t] == 0x22 || b[t] == 0x27 else { i = l; continue }
                let quote = b[t]
                guard let closing = b[(t + 1)..<end].firstIndex(of: quote) else {
                    throw Unreadable(description: "an XMP location attribute is not terminated")
                }
                blank(p...closing)
                i = closing + 1
            } else {
                i = l
            }
        }
        return changed
    }
}

/// Reads big-endian fields of a box, checked against its end.
private struct Reader {
    let bytes: [UInt8]
    var at: Int
    let end: Int

    mutating func byte() throws -> UInt8 {
        guard at < end else { throw ExifRedactor.Unreadable(description: "a box is cut short") }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func skip(_ count: Int) throws {
        guard at + count <= end else { throw ExifRedactor.Unreadable(description: "a box is cut short") }
        at += count
    }

    /// An unsigned big-endian integer of `size` bytes (0 reads as 0).
    mutating func int(_ size: Int) throws -> Int {
        guard at + size <= end else { throw ExifRedactor.Unreadable(description: "a box is cut short") }
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
        at += size
        guard v <= UInt64(Int.max >> 1) else { throw ExifRedactor.Unreadable(description: "a box field out of range") }
        return Int(v)
    }

    /// A NUL-terminated string, or the rest of the box when the NUL is missing; empty at the end.
    mutating func string() -> String {
        let stop = bytes[at..<end].firstIndex(of: 0) ?? end
        defer { at = min(stop + 1, end) }
        return String(decoding: bytes[at..<stop], as: UTF8.self)
    }
}
