import Testing

/// A little-endian TIFF's IFDs, to move a GPS pointer by hand where no tool writes one. Editing
/// keeps every length: an entry is overwritten, never added.
struct TIFFFile {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) throws {
        try #require(bytes.starts(with: [0x49, 0x49, 42, 0]), "not a little-endian TIFF")
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
    mutating func put16(_ at: Int, _ v: Int) { bytes[at] = UInt8(v & 0xFF); bytes[at + 1] = UInt8(v >> 8 & 0xFF) }
    mutating func put32(_ at: Int, _ v: Int) { put16(at, v & 0xFFFF); put16(at + 2, v >> 16) }

    /// IFD0's offset.
    var ifd0: Int { u32(4) }
    /// The IFD after `ifd` in its chain (0: none).
    func next(_ ifd: Int) -> Int { u32(ifd + 2 + u16(ifd) * 12) }
    /// Links `ifd` to `next`.
    mutating func setNext(of ifd: Int, _ next: Int) { put32(ifd + 2 + u16(ifd) * 12, next) }
    /// Where the entry for `tag` is in `ifd`.
    func entry(in ifd: Int, tag: Int) -> Int? {
        (0..<u16(ifd)).map { ifd + 2 + $0 * 12 }.first { u16($0) == tag }
    }
    /// Where the last entry of `ifd` is.
    func lastEntry(of ifd: Int) -> Int { ifd + 2 + (u16(ifd) - 1) * 12 }
    /// Changes an entry's tag only.
    mutating func setTag(at entry: Int, _ tag: Int) { put16(entry, tag) }
    /// Overwrites an entry.
    mutating func setEntry(at entry: Int, tag: Int, type: Int, count: Int, value: Int) {
        put16(entry, tag)
        put16(entry + 2, type)
        put32(entry + 4, count)
        put32(entry + 8, value)
    }
}
