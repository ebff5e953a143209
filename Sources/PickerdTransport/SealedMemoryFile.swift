public import SystemPackage
import CPickerdShims
import Glibc

/// Sealed, read-only anonymous files (`memfd_create(2)` with seals): how media reach a client.
///
/// The receiver gets a descriptor opened read-only on a file that no one can write, grow or shrink
/// any more (`F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL`), and whose only name is
/// `memfd:<name>`: no path into the person's library.
public enum SealedMemoryFile {
    /// Makes a sealed file holding `contents`.
    /// - Parameters:
    ///   - name: a label shown in `/proc/*/fd` as `memfd:<name>`; not a path.
    ///   - contents: the bytes.
    /// - Returns: a read-only descriptor to the sealed file.
    /// - Throws: `TransportError` `.systemCall`.
    public static func make(name: String, contents: [UInt8]) throws(TransportError) -> OwnedFileDescriptor {
        let writable = try create(name: name)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: contents)
        try writeAll(writable.descriptor!.rawValue, UnsafeRawBufferPointer(rebasing: buffer[..<contents.count]))
        return try sealAndReopen(writable)
    }

    /// Makes a sealed copy of everything `source` holds from its current offset on, with some byte
    /// ranges replaced before it is sealed (a large movie's location atoms, redacted without reading
    /// its media data into memory).
    /// - Parameters:
    ///   - source: a readable descriptor (a media file in the store, or one of the person's).
    ///   - name: a label shown in `/proc/*/fd` as `memfd:<name>`; not a path.
    ///   - patches: bytes to write over the copy at these offsets (within what was copied).
    /// - Returns: a read-only descriptor to the sealed copy.
    /// - Throws: `TransportError` `.systemCall`.
    public static func copy(from source: FileDescriptor, name: String,
                            patches: [(offset: Int, bytes: [UInt8])] = []) throws(TransportError) -> OwnedFileDescriptor {
        let writable = try create(name: name)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        var copied = 0
        while true {
            let count = try syscall("read") { Glibc.read(source.rawValue, buffer.baseAddress!, buffer.count) }
            if count == 0 { break }
            try writeAll(writable.descriptor!.rawValue, UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            copied += count
        }
        for patch in patches {
            guard patch.offset >= 0, patch.offset + patch.bytes.count <= copied else { throw TransportError(.systemCall, "a patch past the copy's end") }
            let written = patch.bytes.withUnsafeBytes { Glibc.pwrite(writable.descriptor!.rawValue, $0.baseAddress, $0.count, off_t(patch.offset)) }
            guard written == patch.bytes.count else { throw TransportError(.systemCall, "pwrite: \(String(cString: strerror(errno)))") }
        }
        return try sealAndReopen(writable)
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            offset += try syscall("write") { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }

    /// The seals set on a descriptor's file (`fcntl(F_GET_SEALS)`).
    /// - Parameter descriptor: a memfd.
    /// - Returns: the seals.
    /// - Throws: `TransportError` `.systemCall` (EINVAL when the file is not a memfd).
    public static func seals(of descriptor: FileDescriptor) throws(TransportError) -> Seals {
        Seals(rawValue: try syscall("fcntl(F_GET_SEALS)") { pickerd_memfd_get_seals(descriptor.rawValue) })
    }

    /// The `F_SEAL_*` bits.
    public struct Seals: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int32
        /// Wraps bits.
        /// - Parameter rawValue: `F_SEAL_*` bits.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// No more writes (`F_SEAL_WRITE`).
        public static let write = Seals(rawValue: pickerd_seal_write)
        /// No growing (`F_SEAL_GROW`).
        public static let grow = Seals(rawValue: pickerd_seal_grow)
        /// No shrinking (`F_SEAL_SHRINK`).
        public static let shrink = Seals(rawValue: pickerd_seal_shrink)
        /// No more seal changes (`F_SEAL_SEAL`).
        public static let seal = Seals(rawValue: pickerd_seal_seal)
        /// Everything pickerd sets.
        public static let all: Seals = [.write, .grow, .shrink, .seal]
    }

    private static func create(name: String) throws(TransportError) -> OwnedFileDescriptor {
        let fd = try syscall("memfd_create") { pickerd_memfd_create(name) }
        return OwnedFileDescriptor(taking: FileDescriptor(rawValue: fd))
    }

    /// Seals the file, then opens it again read-only through `/proc/self/fd` so the descriptor handed
    /// out cannot write even where seals were not checked; the writable one is closed.
    private static func sealAndReopen(_ writable: OwnedFileDescriptor) throws(TransportError) -> OwnedFileDescriptor {
        let fd = writable.descriptor!.rawValue
        try syscall("lseek") { lseek(fd, 0, SEEK_SET) }
        try syscall("fcntl(F_ADD_SEALS)") { pickerd_memfd_seal_all(fd) }
        let readOnly = try syscall("open(/proc/self/fd)") { open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC) }
        try writable.close()
        return OwnedFileDescriptor(taking: FileDescriptor(rawValue: readOnly))
    }
}
