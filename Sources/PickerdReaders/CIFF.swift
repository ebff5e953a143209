import Foundation

/// Canon's Camera Image File Format heap, as early PowerShots wrote it in a JPEG's APP0: the byte
/// order (`II`/`MM`), the header's length, `HEAPJPGM`, then a heap whose last 4 bytes point to its
/// record table (a count, then 10-byte records: tag, size, offset), records of type 0x2800/0x3000
/// being heaps of their own. Only the make and model (tag 0x080A: "Canon\0Canon PowerShot S20\0")
/// are read, four heaps deep at most, every offset checked.
enum CIFF {
    /// The make and model a CIFF APP0 payload holds, nil when it is not one or has none.
    static func makeAndModel(_ payload: [UInt8]) -> (make: String, model: String)? {
        guard payload.count >= 26, payload.starts(with: [0x49, 0x49]) || payload.starts(with: [0x4D, 0x4D]),
              payload[6..<14].elementsEqual("HEAPJPGM".utf8) || payload[6..<14].elementsEqual("HEAPCCDR".utf8) else { return nil }
        let little = payload[0] == 0x49
        func u16(_ i: Int) -> Int { little ? Int(payload[i]) | Int(payload[i + 1]) << 8 : Int(payload[i]) << 8 | Int(payload[i + 1]) }
        func u32(_ i: Int) -> Int {
            little ? Int(payload[i]) | Int(payload[i + 1]) << 8 | Int(payload[i + 2]) << 16 | Int(payload[i + 3]) << 24
                : Int(payload[i]) << 24 | Int(payload[i + 1]) << 16 | Int(payload[i + 2]) << 8 | Int(payload[i + 3])
        }
        func search(_ start: Int, _ end: Int, depth: Int) -> (String, String)? {
            guard depth < 4, start >= 0, end <= payload.count, end - start >= 6 else { return nil }
            let table = start + u32(end - 4)
            guard table >= start, table + 2 <= end - 4 else { return nil }
            let count = u16(table)
            for index in 0..<min(count, 1_024) {
                let at = table + 2 + index * 10
                guard at + 10 <= end - 4 else { return nil }
                let tag = u16(at), size = u32(at + 2), offset = start + u32(at + 6)
                guard tag & 0xC000 == 0, offset >= start, size >= 0, offset + size <= end else { continue }
                if tag & 0x3FFF == 0x080A {
                    let strings = payload[offset..<(offset + size)].split(separator: 0, omittingEmptySubsequences: false)
                    let text = strings.prefix(2).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
                    return (text.first ?? "", text.count > 1 ? text[1] : "")
                }
                if [0x2800, 0x3000].contains(tag & 0x3800), let found = search(offset, offset + size, depth: depth + 1) { return found }
            }
            return nil
        }
        let headerLength = u32(2)
        return search(headerLength, payload.count, depth: 0)
    }
}
