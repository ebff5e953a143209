public import SystemPackage
import Synchronization


import Glibc




/// A file descriptor with one owner, closed exactly once: by ``close()``, or when the last
/// reference goes away. ``take()`` hands ownership on (to a `Process`, another object…).
///
/// Descriptors received over a socket arrive as these, so none can leak and none is closed twice.
public final class OwnedFileDescriptor: Sendable, CustomStringConvertible {
    private let raw: Atomic<Int32>

    /// Takes ownership of `descriptor`.
    /// - Parameter descriptor: an open descriptor nobody else will close.
    public init(taking descriptor: FileDescriptor) {
        precondition(descriptor.rawValue >= 0, "not a descriptor: \(descriptor.rawValue)")
        raw = Atomic(descriptor.rawValue)
    }

    deinit {
        let fd = raw.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// The descriptor, or `nil` once closed or taken. Valid only while this object owns it.
    public var descriptor: FileDescriptor? {
        let fd = raw.load(ordering: .acquiring)
        return fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    }

    /// Whether this object still owns an open descriptor.
    public var isOpen: Bool { raw.load(ordering: .acquiring) >= 0 }

    /// Closes the descriptor (`close(2)`). A second call does nothing.
    /// - Throws: `TransportError` `.systemCall` when `close` reports an error (the descriptor is
    ///   released all the same).
    public func close() throws(TransportError) {
        let fd = raw.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }
        // Linux releases the descriptor even when close fails; never retry (EINTR included).
        try syscall("close", retryOnInterrupt: false) { Glibc.close(fd) }
    }

    /// Gives up ownership without closing.
    /// - Returns: the descriptor, now the caller's to close, or `nil` if already closed or taken.
    public func take() -> FileDescriptor? {
        let fd = raw.exchange(-1, ordering: .acquiringAndReleasing)
        return fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    }

    /// `fd N` or `fd (closed)`.
    public var description: String {
        let fd = raw.load(ordering: .acquiring)
        return fd >= 0 ? "fd \(fd)" : "fd (closed)"
    }
}
