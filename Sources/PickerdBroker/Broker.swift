import Foundation
import Glibc
public import Logging
public import PickerdLibrary
public import PickerdStore
public import PickerdTransport
import PickerdWire
import Synchronization

/// pickerd: owns the store and every decision, serves its sockets, one thread per connection.
///
/// `main` builds a ``Broker`` and calls ``run()``, which returns after ``shutdown()`` (on SIGTERM or
/// SIGINT) once every connection is closed.
public final class Broker: Sendable {
    /// What to run with.
    public struct Configuration: Sendable {
        /// Where sockets, store and configuration live.
        public var paths: PickerdPaths
        /// The most connections served at once; more are refused with `BUSY`.
        public var maxConnections: Int
        /// Creates a configuration.
        /// - Parameters:
        ///   - paths: where sockets, store and configuration live.
        ///   - maxConnections: the most connections served at once.
        public init(paths: PickerdPaths, maxConnections: Int = 256) {
            self.paths = paths
            self.maxConnections = maxConnections
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The store.
    public let store: Store
    let logger: Logger
    let startedAt = Date()
    let builder = SuggestionBuilder()
    private let runtime: RuntimeDirectory
    private let listeners: [UnixListener]
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var shuttingDown = false
        var connections: [ObjectIdentifier: FrameConnection] = [:]
        var acceptLoops = 0
    }

    /// Prepares pickerd: takes the runtime directory, opens the store, binds the sockets.
    /// - Parameters:
    ///   - configuration: paths and limits.
    ///   - logger: where logs go.
    /// - Throws: ``BrokerError`` (another pickerd runs; a directory is unusable; a socket cannot be
    ///   bound) or ``StoreError`` (the store cannot be opened), each with one clear message.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        runtime = try RuntimeDirectory(path: configuration.paths.runtimeDirectory)
        store = try Store(dataDirectory: configuration.paths.dataDirectory)
        let control = configuration.paths.controlSocket
        runtime.removeStaleSocket(control)
        do {
            listeners = [try UnixListener(path: control)]
        } catch {
            throw BrokerError("cannot listen on \(control): \(error.message)")
        }
    }

    /// Seeds the demo library into an empty store, reporting progress.
    /// - Parameter progress: called as seeding advances.
    /// - Returns: `nil` when the store already held a library (nothing was changed).
    /// - Throws: ``StoreError``.
    @discardableResult
    public func seedDemoIfEmpty(progress: (DemoLibrary.Progress) -> Void) throws -> DemoLibrary.Summary? {
        guard try store.itemCounts().isEmpty else { return nil }
        return try DemoLibrary.seed(into: store, progress: progress)
    }

    /// Serves until ``shutdown()``.
    public func run() {
        logger.info("pickerd serving", metadata: ["control": "\(configuration.paths.controlSocket)", "data": "\(store.dataDirectory)"])
        for listener in listeners {
            state.withLock { $0.acceptLoops += 1 }
            let thread = Thread { [self] in acceptLoop(listener) }
            thread.name = "pickerd-accept"
            thread.start()
        }
        finished.wait()
        logger.info("pickerd stopped")
    }

    /// Stops accepting, closes every connection, and lets ``run()`` return. Safe to call from a
    /// signal handler's queue, and more than once.
    public func shutdown() {
        let connections = state.withLock { state -> [FrameConnection] in
            guard !state.shuttingDown else { return [] }
            state.shuttingDown = true
            return Array(state.connections.values)
        }
        logger.info("pickerd shutting down", metadata: ["connections": "\(connections.count)"])
        for listener in listeners { listener.shutdown() }
        for connection in connections { connection.shutdown() }
    }

    private func acceptLoop(_ listener: UnixListener) {
        while !state.withLock({ $0.shuttingDown }) {
            let connection: FrameConnection
            do {
                connection = try listener.accept()
            } catch {
                if state.withLock({ $0.shuttingDown }) { break }
                logger.warning("accept failed", metadata: ["error": "\(error)"])
                continue
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.shuttingDown, state.connections.count < configuration.maxConnections else { return false }
                state.connections[ObjectIdentifier(connection)] = connection
                return true
            }
            guard admitted else {
                try? connection.send(Envelope(requestId: 0, body: .error(ErrorInfo(code: .busy, message: "pickerd is serving its maximum of \(configuration.maxConnections) connections"))))
                try? connection.close()
                continue
            }
            let thread = Thread { [self] in
                serve(connection, role: .control)
                state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
                try? connection.close()
            }
            thread.name = "pickerd-connection"
            thread.start()
        }
        try? listener.close()
        if let path = listener.path { unlink(path) }
        let last = state.withLock { state -> Bool in
            state.acceptLoops -= 1
            return state.acceptLoops == 0
        }
        if last {
            // Let connection threads see their shut-down sockets and finish.
            while !state.withLock({ $0.connections.isEmpty }) { usleep(10_000) }
            finished.signal()
        }
    }

    /// One connection: identity from the kernel, the hello, then requests until it closes.
    private func serve(_ connection: FrameConnection, role: Role) {
        let peer: PeerCredentials
        do {
            peer = try connection.peerCredentials()
        } catch {
            logger.warning("no peer credentials; closing", metadata: ["error": "\(error)"])
            return
        }
        let log = logger.with(["peer.pid": "\(peer.pid)", "peer.uid": "\(peer.uid)", "role": "\(role)"])
        guard peer.uid == getuid() else {
            log.warning("refused a connection from another user")
            reply(connection, 0, .error(ErrorInfo(code: .permissionDenied, message: "pickerd serves only uid \(getuid())")))
            return
        }
        var greeted = false
        while true {
            let frame: ReceivedFrame
            do {
                guard let received = try connection.receive() else { return }
                frame = received
            } catch {
                // The stream cannot be trusted after a framing error: say why, then close.
                let code = error.wireError?.protocolCode ?? .malformed
                log.notice("closing after a bad frame", metadata: ["error": "\(error)"])
                reply(connection, 0, .error(ErrorInfo(code: code, message: error.message)))
                return
            }
            let id = frame.envelope.requestId
            guard let body = frame.envelope.body else { continue }
            if !greeted {
                guard case .hello(let hello) = body else {
                    reply(connection, id, .error(ErrorInfo(code: .handshakeRequired, message: "the first message must be a hello")))
                    return
                }
                guard hello.role == role else {
                    reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "this socket serves the \(role) role, not \(hello.role)")))
                    return
                }
                do {
                    let version = try ProtocolVersion.negotiate(peerMinimum: hello.minVersion, peerMaximum: hello.maxVersion)
                    reply(connection, id, .helloReply(HelloReply(version: version, software: "pickerd \(Broker.version)",
                                                                 maxFrameBytes: UInt64(connection.limits.maxBodyBytes),
                                                                 maxFdsPerFrame: UInt32(connection.limits.maxDescriptors))))
                    greeted = true
                    log.debug("hello", metadata: ["software": "\(hello.software)"])
                } catch {
                    reply(connection, id, .error(ErrorInfo(code: .unsupportedVersion, message: error.message)))
                    return
                }
                continue
            }
            let answer = ControlHandler(broker: self, connection: connection, requestID: id, logger: log).handle(body)
            if let answer { reply(connection, id, answer) }
        }
    }

    func reply(_ connection: FrameConnection, _ id: UInt64, _ body: Envelope.Body) {
        do {
            try connection.send(Envelope(requestId: id, body: body))
        } catch {
            logger.debug("reply not delivered", metadata: ["error": "\(error)"])
        }
    }

    /// pickerd's version.
    public static let version = "0.1.0"
}

extension Logger {
    func with(_ metadata: Logger.Metadata) -> Logger {
        var copy = self
        for (key, value) in metadata { copy[metadataKey: key] = value }
        return copy
    }
}
