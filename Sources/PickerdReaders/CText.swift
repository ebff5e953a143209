/// Text from CMedia's C structs and error buffers.
enum CText {
/// A C string in a fixed-size field (a tuple of `CChar`), `nil` when empty.
static func field<Field>(_ field: Field) -> String? {
    withUnsafeBytes(of: field) { raw in
        let bytes = raw.prefix(while: { $0 != 0 })
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}

/// The NUL-terminated text in a C error buffer.
static func error(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    return bytes.isEmpty ? "unknown error" : String(decoding: bytes, as: UTF8.self)
}
}
