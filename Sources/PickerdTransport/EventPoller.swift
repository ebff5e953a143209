public import SystemPackage
import CPickerdShims
import Glibc

/// Readiness of many descriptors at once, for a server that must not spend a thread per idle
/// connection (`epoll(7)`), and a way for other threads to wake the one waiting.
///
/// Each registered descriptor carries a caller-chosen token, handed back with its events. Connections
/// are registered one-shot: after an event is reported the descriptor stays silent until ``rearm(_:token:)``,
/// so exactly one thread at a time works on a connection.
///
/// Why not SwiftNIO: its channels cannot pass descriptors (`SCM_RIGHTS`), which every media release
/// needs, and pickerd's loop only decides *when* to read; the reading stays with ``FrameConnection``.
public final class EventPoller: Sendable {
    /// What a registered descriptor reported.
    public struct Event: Sendable {
        /// The token it was registered with.
        public var token: UInt64
        /// Readable (or a peer's end of stream).
        public var readable: Bool
        /// The peer hung up or the descriptor is in error.
        public var hangUp: Bool
    }

    /// The token ``wait(timeoutMilliseconds:)`` never reports: the wake-up descriptor's.
    public static let wakeToken = UInt64.max

    private let epoll: OwnedFileDescriptor
    private let wakeDescriptor: OwnedFileDescriptor

    /// Creates an epoll instance and its wake-up eventfd (`epoll_create1(2)`, `eventfd(2)`).
    /// - Throws: `TransportError` `.systemCall`.
    public init() throws(TransportError) {
        epoll = OwnedFileDescriptor(taking: FileDescriptor(rawValue: try syscall("epoll_create1") { pickerd_epoll_create() }))
        wakeDescriptor = OwnedFileDescriptor(taking: FileDescriptor(rawValue: try syscall("eventfd") { pickerd_eventfd() }))
        try control(pickerd_epoll_ctl_add, wakeDescriptor.descriptor!, token: Self.wakeToken, events: pickerd_epollin)
    }

    /// Watches a listening socket for connections, level-triggered (`EPOLL_CTL_ADD`).
    /// - Parameters:
    ///   - descriptor: the listening socket.
    ///   - token: what events on it are reported with.
    /// - Throws: `TransportError` `.systemCall`.
    public func addListener(_ descriptor: FileDescriptor, token: UInt64) throws(TransportError) {
        try control(pickerd_epoll_ctl_add, descriptor, token: token, events: pickerd_epollin)
    }

    /// Watches a connection for one readable or hang-up event (`EPOLL_CTL_ADD`, `EPOLLONESHOT`).
    /// - Parameters:
    ///   - descriptor: the connection's socket.
    ///   - token: what its events are reported with.
    /// - Throws: `TransportError` `.systemCall`.
    public func addConnection(_ descriptor: FileDescriptor, token: UInt64) throws(TransportError) {
        try control(pickerd_epoll_ctl_add, descriptor, token: token, events: Self.connectionEvents)
    }

    /// Watches a connection again after its event was handled (`EPOLL_CTL_MOD`).
    /// - Parameters:
    ///   - descriptor: the connection's socket.
    ///   - token: its token.
    /// - Throws: `TransportError` `.systemCall` (ENOENT when it was removed meanwhile).
    public func rearm(_ descriptor: FileDescriptor, token: UInt64) throws(TransportError) {
        try control(pickerd_epoll_ctl_mod, descriptor, token: token, events: Self.connectionEvents)
    }

    /// Stops watching a descriptor (`EPOLL_CTL_DEL`); one no longer watched is ignored.
    /// - Parameter descriptor: the descriptor.
    public func remove(_ descriptor: FileDescriptor) {
        _ = pickerd_epoll_ctl(epoll.descriptor!.rawValue, pickerd_epoll_ctl_del, descriptor.rawValue, 0, 0)
    }

    /// Waits for events (`epoll_wait(2)`), at most `timeoutMilliseconds` (-1: no limit). A wake-up
    /// from ``wake()`` ends the wait early and is not reported.
    /// - Parameter timeoutMilliseconds: the longest wait.
    /// - Returns: the events, possibly none.
    /// - Throws: `TransportError` `.systemCall`.
    public func wait(timeoutMilliseconds: Int32) throws(TransportError) -> [Event] {
        var tokens = [UInt64](repeating: 0, count: 128)
        var events = [UInt32](repeating: 0, count: 128)
        let fd = epoll.descriptor!.rawValue
        let count = try syscall("epoll_wait") { pickerd_epoll_wait(fd, &tokens, &events, 128, timeoutMilliseconds) }
        var ready: [Event] = []
        ready.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            if tokens[i] == Self.wakeToken {
                var value: UInt64 = 0
                _ = Glibc.read(wakeDescriptor.descriptor!.rawValue, &value, 8)
                continue
            }
            let hangUp = events[i] & (pickerd_epollhup | pickerd_epollerr | pickerd_epollrdhup) != 0
            ready.append(Event(token: tokens[i], readable: events[i] & pickerd_epollin != 0, hangUp: hangUp))
        }
        return ready
    }

    /// Ends a ``wait(timeoutMilliseconds:)`` in progress, or the next one (writes the eventfd).
    public func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor.descriptor!.rawValue, &one, 8)
    }

    private static let connectionEvents = pickerd_epollin | pickerd_epollrdhup | pickerd_epolloneshot

    private func control(_ operation: Int32, _ descriptor: FileDescriptor, token: UInt64, events: UInt32) throws(TransportError) {
        let epfd = epoll.descriptor!.rawValue
        _ = try syscall("epoll_ctl") { pickerd_epoll_ctl(epfd, operation, descriptor.rawValue, events, token) }
    }
}
