public import PickerdWire
public import SystemPackage
import CPickerdShims
import Glibc

/// Unix-domain stream sockets: connect, socket pairs, and the address check.
public enum UnixSocket {
    /// The largest path `sockaddr_un.sun_path` holds, not counting its terminating NUL.
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Checks that `path` fits a Unix socket address.
    /// - Parameter path: a filesystem path.
    /// - Throws: `TransportError` `.pathTooLong`, naming the path and the limit.
    public static func checkPath(_ path: String) throws(TransportError) {
        let length = path.utf8.count
        guard length <= maxPathBytes else {
            throw TransportError(.pathTooLong,
                "socket path is \(length) bytes, over the \(maxPathBytes)-byte limit of Unix socket addresses: \(path)")
        }
        guard length > 0, !path.utf8.contains(0) else {
            throw TransportError(.pathTooLong, "socket path is empty or contains a NUL byte")
        }
    }

    /// Runs `body` with a `sockaddr_un` for `path`.
    static func withAddress<R>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(TransportError) -> R
    ) throws(TransportError) -> R {
        try checkPath(path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + path.utf8.count + 1)
        return try withUnsafePointer(to: &address) { (p) throws(TransportError) -> R in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(TransportError) -> R in
                try body(sa, length)
            }
        }
    }

    /// A new `AF_UNIX`, `SOCK_STREAM` socket with `SOCK_CLOEXEC` (`socket(2)`).
    static func makeSocket() throws(TransportError) -> OwnedFileDescriptor {
        let fd = try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        return OwnedFileDescriptor(taking: FileDescriptor(rawValue: fd))
    }

    /// Connects to a listening socket (`connect(2)`).
    /// - Parameters:
    ///   - path: the socket's path.
    ///   - limits: the frame limits the connection enforces on what it receives.
    /// - Returns: the connection.
    /// - Throws: `TransportError` `.pathTooLong`, or `.systemCall` (ENOENT or ECONNREFUSED when nothing
    ///   listens there) with a message naming the path.
    public static func connect(path: String, limits: FrameLimits = .standard) throws(TransportError) -> FrameConnection {
        let socket = try makeSocket()
        let fd = socket.descriptor!.rawValue
        do {
            try withAddress(path) { (sa, length) throws(TransportError) in
                _ = try syscall("connect") { Glibc.connect(fd, sa, length) }
            }
        } catch where error.code == .systemCall {
            let reason = switch error.errno {
            case .noSuchFileOrDirectory?: "no socket at that path (is pickerd running?)"
            case .connectionRefused?: "nothing is listening there (is pickerd running?)"
            case .permissionDenied?: "permission denied"
            default: error.message
            }
            throw TransportError(.systemCall, "cannot connect to \(path): \(reason)", errno: error.errno)
        }
        return FrameConnection(socket: socket, limits: limits)
    }

    /// A connected pair of sockets (`socketpair(2)`), for tests and for handing one end to a child.
    /// - Parameter limits: the frame limits both ends enforce.
    /// - Returns: the two ends.
    /// - Throws: `TransportError` `.systemCall`.
    public static func pair(limits: FrameLimits = .standard) throws(TransportError) -> (FrameConnection, FrameConnection) {
        var fds: [Int32] = [-1, -1]
        try syscall("socketpair") {
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        }
        return (
            FrameConnection(socket: OwnedFileDescriptor(taking: FileDescriptor(rawValue: fds[0])), limits: limits),
            FrameConnection(socket: OwnedFileDescriptor(taking: FileDescriptor(rawValue: fds[1])), limits: limits)
        )
    }
}

/// A listening Unix stream socket.
public final class UnixListener: Sendable {
    /// The path the listener is bound to, or `nil` when adopted from elsewhere (systemd).
    public let path: String?
    /// The frame limits every accepted connection enforces.
    public let limits: FrameLimits
    private let socket: OwnedFileDescriptor

    /// Binds and listens on `path` (`socket(2)`, `bind(2)`, `listen(2)`), then sets its mode
    /// (`chmod(2)`). Put the socket in a directory only its owner can enter: the mode is applied
    /// just after `bind`.
    /// - Parameters:
    ///   - path: where to create the socket; nothing may exist there.
    ///   - mode: the socket file's permissions.
    ///   - backlog: the `listen` backlog.
    ///   - limits: the frame limits accepted connections enforce.
    /// - Throws: `TransportError` `.pathTooLong`, or `.systemCall` (EADDRINUSE when the path exists).
    public init(path: String, mode: FilePermissions = [.ownerRead, .ownerWrite], backlog: Int32 = 128,
                limits: FrameLimits = .standard) throws(TransportError) {
        let socket = try UnixSocket.makeSocket()
        let fd = socket.descriptor!.rawValue
        do {
            try UnixSocket.withAddress(path) { (sa, length) throws(TransportError) in
                _ = try syscall("bind") { bind(fd, sa, length) }
            }
        } catch where error.code == .systemCall {
            let reason = error.errno == .addressInUse ? "something already exists at that path" : error.message
            throw TransportError(.systemCall, "cannot listen on \(path): \(reason)", errno: error.errno)
        }
        try syscall("chmod") { chmod(path, mode_t(mode.rawValue)) }
        try syscall("listen") { listen(fd, backlog) }
        self.path = path
        self.socket = socket
        self.limits = limits
    }

    /// Adopts an already listening socket, as systemd passes with `LISTEN_FDS`.
    /// - Parameters:
    ///   - descriptor: a listening `AF_UNIX` stream socket; the listener owns it from now on.
    ///   - limits: the frame limits accepted connections enforce.
    public init(adopting descriptor: FileDescriptor, limits: FrameLimits = .standard) {
        self.path = nil
        self.socket = OwnedFileDescriptor(taking: descriptor)
        self.limits = limits
    }

    /// The listening descriptor, for `poll(2)`; `nil` once closed.
    public var descriptor: FileDescriptor? { socket.descriptor }

    /// Waits for and accepts one connection (`accept4(2)` with `SOCK_CLOEXEC`).
    /// - Returns: the connection.
    /// - Throws: `TransportError` `.closed` after ``close()``, or `.systemCall`.
    public func accept() throws(TransportError) -> FrameConnection {
        guard let fd = socket.descriptor?.rawValue else { throw TransportError(.closed, "the listener is closed") }
        let client = try syscall("accept4") { pickerd_accept_cloexec(fd) }
        return FrameConnection(socket: OwnedFileDescriptor(taking: FileDescriptor(rawValue: client)), limits: limits)
    }

    /// Makes ``acceptIfReady()`` return at once when no connection waits (`O_NONBLOCK`), for an
    /// event loop.
    /// - Throws: `TransportError` `.systemCall`.
    public func makeNonBlocking() throws(TransportError) {
        guard let fd = socket.descriptor?.rawValue else { throw TransportError(.closed, "the listener is closed") }
        _ = try syscall("fcntl(O_NONBLOCK)") { pickerd_set_nonblocking(fd) }
    }

    /// Accepts one waiting connection on a non-blocking listener (`accept4(2)`).
    /// - Returns: the connection, or `nil` when none waits.
    /// - Throws: `TransportError` `.closed` after ``close()``, or `.systemCall` (EMFILE when out of
    ///   descriptors, ECONNABORTED when the peer gave up first).
    public func acceptIfReady() throws(TransportError) -> FrameConnection? {
        do {
            return try accept()
        } catch where error.errno == .resourceTemporarilyUnavailable {
            return nil
        }
    }

    /// Wakes a blocked ``accept()`` (`shutdown(2)`); it then fails.
    public func shutdown() {
        if let fd = socket.descriptor?.rawValue { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Closes the listening socket. The socket file stays; the caller removes it.
    /// - Throws: `TransportError` `.systemCall`.
    public func close() throws(TransportError) { try socket.close() }
}
