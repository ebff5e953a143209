import Foundation
import Glibc
public import Logging
public import PickerdLibrary
public import PickerdStore
public import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

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
        /// The executables accepted as picker agents (checked through the peer's pidfd).
        public var agentExecutables: [String]
        /// What to start when an app presents and no agent is registered (argv); empty for nothing.
        public var agentCommand: [String]
        /// How long a started agent has to register before the presentation fails.
        public var agentStartTimeout: Double
        /// The time reminders follow.
        public var clock: PickerdClock
        /// What to start for a presentation that hands over its terminal (argv; the terminal picker
        /// registers and draws on that terminal); empty to ignore handed-over terminals.
        public var terminalAgentCommand: [String]

        /// Creates a configuration.
        /// - Parameters:
        ///   - paths: where sockets, store and configuration live.
        ///   - maxConnections: the most connections served at once.
        ///   - agentExecutables: programs accepted as picker agents; by default `picker-agent` beside
        ///     pickerd's own executable.
        ///   - agentCommand: what to start when no agent is registered.
        ///   - agentStartTimeout: seconds a started agent has to register.
        ///   - clock: the time reminders follow (the system clock by default).
        ///   - terminalAgentCommand: what to start for a presentation with a terminal; by default
        ///     `picker-agent --tui` beside pickerd.
        public init(paths: PickerdPaths, maxConnections: Int = 256, agentExecutables: [String]? = nil,
                    agentCommand: [String] = [], agentStartTimeout: Double = 15, clock: PickerdClock = PickerdClock(),
                    terminalAgentCommand: [String]? = nil) {
            self.paths = paths
            self.maxConnections = maxConnections
            let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            let sibling = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("picker-agent").path
            self.agentExecutables = (agentExecutables ?? [sibling]).map(AppRegistry.canonical)
            self.agentCommand = agentCommand
            self.agentStartTimeout = agentStartTimeout
            self.clock = clock
            self.terminalAgentCommand = terminalAgentCommand ?? [sibling, "--tui"]
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The store.
    public let store: Store
    /// The app registry.
    public let registry: AppRegistry
    let logger: Logger
    let startedAt = Date()
    let builder = SuggestionBuilder()
    private let runtime: RuntimeDirectory
    private let listeners: [(UnixListener, Role)]
    let sessions: SessionManager
    let reminders: ReminderScheduler
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
        registry = AppRegistry(configDirectory: configuration.paths.configDirectory)
        var listeners: [(UnixListener, Role)] = []
        let activated = SocketActivation.listeners()
        for (path, role) in [(configuration.paths.clientSocket, Role.client), (configuration.paths.agentSocket, .agent),
                             (configuration.paths.controlSocket, .control)] {
            if let listener = activated[role] {
                listeners.append((listener, role))
                logger.info("socket from systemd", metadata: ["role": "\(role)"])
                continue
            }
            runtime.removeStaleSocket(path)
            do {
                listeners.append((try UnixListener(path: path), role))
            } catch {
                throw BrokerError("cannot listen on \(path): \(error.message)")
            }
        }
        self.listeners = listeners
        sessions = SessionManager(broker: nil, logger: logger)
        reminders = ReminderScheduler(logger: logger)
        sessions.attach(self)
        reminders.attach(self)
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
        logger.info("pickerd serving", metadata: ["runtime": "\(configuration.paths.runtimeDirectory)", "data": "\(store.dataDirectory)"])
        for (listener, role) in listeners {
            state.withLock { $0.acceptLoops += 1 }
            let thread = Thread { [self] in acceptLoop(listener, role: role) }
            thread.name = "pickerd-accept"
            thread.start()
        }
        reminders.start()
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
        sessions.shutdown()
        reminders.stop()
        for (listener, _) in listeners { listener.shutdown() }
        for connection in connections { connection.shutdown() }
    }

    private func acceptLoop(_ listener: UnixListener, role: Role) {
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
                serve(connection, role: role)
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
        let identity = PeerIdentity(peer)
        let log = logger.with(["peer.pid": "\(peer.pid)", "peer.uid": "\(peer.uid)", "role": "\(role)"])
        guard peer.uid == getuid() else {
            log.warning("refused a connection from another user")
            reply(connection, 0, .error(ErrorInfo(code: .permissionDenied, message: "pickerd serves only uid \(getuid())")))
            return
        }
        var greeted = false
        var registeredAgent = false
        defer {
            if role == .client { sessions.clientGone(connection) }
            if registeredAgent { sessions.agentGone(connection) }
        }
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
            switch role {
            case .client:
                handleClient(body, descriptors: frame.descriptors, id: id, connection: connection, identity: identity, logger: log)
            case .agent:
                if !registeredAgent {
                    guard case .agentRegister(let registration) = body else {
                        reply(connection, id, .error(ErrorInfo(code: .handshakeRequired, message: "an agent must register first")))
                        return
                    }
                    guard let exe = identity.executablePath, configuration.agentExecutables.contains(AppRegistry.canonical(exe)) else {
                        log.warning("refused an agent", metadata: ["executable": "\(identity.executablePath ?? "unknown")"])
                        reply(connection, id, .error(ErrorInfo(code: .permissionDenied,
                                                               message: "\(identity.executablePath ?? "this program") is not a picker agent pickerd accepts")))
                        return
                    }
                    registeredAgent = true
                    reply(connection, id, .agentRegistered(AgentRegistered(agentId: "\(peer.pid)")))
                    let terminal = registration.capabilities.contains(.terminal)
                    log.info("picker agent registered", metadata: ["name": "\(registration.name)", "terminal": "\(terminal)"])
                    sessions.registerAgent(connection, terminal: terminal)
                    continue
                }
                handleAgent(body, id: id, connection: connection)
            default:
                let answer = ControlHandler(broker: self, connection: connection, requestID: id, logger: log).handle(body)
                if let answer { reply(connection, id, answer) }
            }
        }
    }

    /// The client role: present, close, configuration.
    private func handleClient(_ body: Envelope.Body, descriptors: [OwnedFileDescriptor], id: UInt64, connection: FrameConnection,
                              identity: PeerIdentity, logger: Logger) {
        switch body {
        case .present(let request):
            guard let exe = identity.executablePath, let app = registry.app(forExecutable: exe) else {
                let what = identity.executablePath ?? "this program"
                logger.notice("not entitled: unregistered", metadata: ["executable": "\(what)"])
                reply(connection, id, .error(ErrorInfo(code: .notEntitled, message: "\(what) is not a registered app (pickerctl apps register)")))
                return
            }
            if let refusal = EntitlementGate.refusal(for: app, executableBytes: identity.executableBytes) {
                logger.notice("not entitled", metadata: ["reason": "\(refusal)"])
                reply(connection, id, .error(ErrorInfo(code: .notEntitled, message: refusal)))
                return
            }
            var terminal: OwnedFileDescriptor?
            if request.hasTerminal {
                // Only a real terminal is passed on to a picker (never, say, a file or a socket).
                guard descriptors.indices.contains(Int(request.terminalFdIndex)),
                      let fd = descriptors[Int(request.terminalFdIndex)].descriptor, isatty(fd.rawValue) == 1 else {
                    reply(connection, id, .error(ErrorInfo(code: .invalidArgument, message: "the descriptor handed over as a terminal is not one")))
                    return
                }
                // Invariant 13: and only one whose other end neither the app nor its sandbox holds.
                if let refusal = TerminalGuard.refusal(terminal: fd, caller: identity) {
                    logger.notice("terminal refused", metadata: ["reason": "\(refusal.detail)"])
                    reply(connection, id, .error(ErrorInfo(code: .permissionDenied, message: refusal.message)))
                    return
                }
                terminal = descriptors[Int(request.terminalFdIndex)]
            }
            sessions.present(client: connection, requestID: id, app: app, request: request, terminal: terminal)
        case .close(let request):
            sessions.close(client: connection, requestID: id, handle: request.sessionHandle)
        case .configuration:
            let app = identity.executablePath.flatMap(registry.app(forExecutable:))
            do {
                let configuration = NotificationPolicy.configuration(for: app, settings: try store.notificationSettings(),
                                                                     consentGiven: try store.consentDate() != nil)
                reply(connection, id, .configurationReply(configuration))
            } catch {
                reply(connection, id, .error(ErrorInfo(code: .storage, message: "\(error)")))
            }
        case .donation:
            reply(connection, id, .error(ErrorInfo(code: .unknownRequest, message: "this pickerd does not take donations yet")))
        case .hello:
            reply(connection, id, .error(ErrorInfo(code: .invalidArgument, message: "hello was already exchanged")))
        default:
            reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "\(ControlHandler.name(body)) is not a client request")))
        }
    }

    /// The agent role, once registered: consent, decisions, media for previews.
    private func handleAgent(_ body: Envelope.Body, id: UInt64, connection: FrameConnection) {
        switch body {
        case .consentDecision(let decision): sessions.consent(from: connection, requestID: id, decision)
        case .reviewDecision(let decision): sessions.decide(from: connection, requestID: id, decision)
        case .fetchMedia(let request): sessions.fetchMedia(from: connection, requestID: id, request)
        case .cyclePrompt(let request): sessions.cyclePrompt(from: connection, requestID: id, request)
        default:
            reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "\(ControlHandler.name(body)) is not an agent request")))
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
