// The bridge between the generated Swift value types and the protoc-c structs. Nothing here is
// public: no C type leaves PickerdWire.

internal import CPickerdProtocol
internal import CProtobufC

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns every allocation made while building one C message tree for packing; frees them all at once
/// when the arena goes away. The protoc-c structs only borrow these pointers.
///
/// A bump allocator: small messages (the common case) cost one allocation for the whole tree.
final class CArena {
    private static let chunkSize = 2048
    private var chunks: [UnsafeMutableRawPointer] = []
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    private func raw(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        let size = max(byteCount, 1)
        if let cursor {
            let padding = (alignment - Int(bitPattern: cursor) % alignment) % alignment
            if padding + size <= remaining {
                let block = cursor + padding
                self.cursor = block + size
                remaining -= padding + size
                return block
            }
        }
        if size > Self.chunkSize / 2 {
            let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: max(alignment, 16))
            chunks.append(block)
            return block
        }
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        chunks.append(chunk)
        cursor = chunk + size
        remaining = Self.chunkSize - size
        return chunk
    }

    /// Uninitialised storage for one `T`; the caller initialises it (protoc-c's `*__init`).
    func allocate<T>(_ type: T.Type) -> UnsafeMutablePointer<T> {
        raw(byteCount: MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: 1)
    }

    /// A NUL-terminated copy of `string`.
    func string(_ string: String) -> UnsafeMutablePointer<CChar> {
        var utf8 = Array(string.utf8)
        utf8.append(0)
        let p = raw(byteCount: utf8.count, alignment: 1).bindMemory(to: CChar.self, capacity: utf8.count)
        utf8.withUnsafeBytes { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return p
    }

    /// protobuf-c's `bytes` representation of `bytes`.
    func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
        let p = array(bytes)
        return ProtobufCBinaryData(len: bytes.count, data: p)
    }

    /// A C array holding `elements`, or `nil` when empty (protobuf-c reads nothing then).
    func array<T>(_ elements: [T]) -> UnsafeMutablePointer<T>? {
        guard !elements.isEmpty else { return nil }
        let p = raw(byteCount: MemoryLayout<T>.stride * elements.count, alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: elements.count)
        p.initialize(from: elements, count: elements.count)
        return p
    }
}

/// A copy of a C array of `count` elements.
func cArray<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int) -> [T] {
    guard let pointer, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: pointer, count: count))
}

/// A Swift string from a protoc-c string field (NULL reads as empty; invalid UTF-8 is repaired).
func swiftString(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

/// A Swift byte array from a protoc-c `bytes` field.
func swiftBytes(_ data: ProtobufCBinaryData) -> [UInt8] {
    guard let p = data.data, data.len > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: p, count: data.len))
}

/// A Swift value type that has a protoc-c struct twin. Generated for every message.
protocol CMessageConvertible {
    associatedtype CMessage
    init(c pointer: UnsafePointer<CMessage>)
    func toC(_ arena: CArena) -> UnsafeMutablePointer<CMessage>
    static func packedSize(_ c: UnsafePointer<CMessage>) -> Int
    static func pack(_ c: UnsafePointer<CMessage>, into out: UnsafeMutablePointer<UInt8>) -> Int
    static func unpack(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<CMessage>?
    static func freeUnpacked(_ c: UnsafeMutablePointer<CMessage>)
}

/// Packs `message` with protoc-c. `headerRoom` zero bytes come first, so a frame header can be
/// written in front of the body without copying it.
func serializeThroughC<M: CMessageConvertible>(_ message: M, headerRoom: Int = 0) -> [UInt8] {
    let arena = CArena()
    let c = message.toC(arena)
    let size = M.packedSize(c)
    return [UInt8](unsafeUninitializedCapacity: headerRoom + size) { buffer, initialized in
        guard let base = buffer.baseAddress else {
            initialized = 0
            return
        }
        base.initialize(repeating: 0, count: headerRoom)
        let packed = M.pack(c, into: base + headerRoom)
        precondition(packed == size, "protoc-c packed \(packed) bytes of \(size)")
        initialized = headerRoom + packed
    }
}

func deserializeThroughC<M: CMessageConvertible & ProtobufMessage>(_ bytes: [UInt8]) throws(WireError) -> M {
    let decoded: M? = bytes.withUnsafeBufferPointer { buffer in
        // protobuf-c wants a non-NULL pointer even for an empty message.
        var empty: UInt8 = 0
        let c = buffer.count == 0
            ? withUnsafePointer(to: &empty) { M.unpack(UnsafeBufferPointer(start: $0, count: 0)) }
            : M.unpack(buffer)
        guard let c else { return nil }
        defer { M.freeUnpacked(c) }
        return M(c: c)
    }
    guard let decoded else {
        throw WireError(.undecodable, "\(bytes.count) bytes are not a valid \(M.protoName) message")
    }
    return decoded
}
