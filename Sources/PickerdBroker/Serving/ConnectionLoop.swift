import Foundation
import Glibc
import Logging
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// What the event loop asks of whoever answers requests (the broker).
protocol FrameHandler: Sendable {
    /// Handles one whole frame from `connection`; returns whether the connection stays open.
    func handle(_ frame: ReceivedFrame, from connection: ServedConnection) -> ConnectionLoop.Verdict
    /// The connection is closed: whatever it had open ends.
    func ended(_ connection: ServedConnection)
    /// Whether an app connection that has been idle has something in progress (a presentation
    /// under review), so it must not be closed for idleness.
    func hasWorkInProgress(_ connection: ServedConnection) -> Bool
}

/// pickerd's connections, served without a thread each: one thread waits on every socket at once
/// (`epoll`), accepts and admits connections, keeps their deadlines, and hands a connection with
/// something to read to the worker pool of its socket's role. Idle, slow and stalled connections
/// cost a table entry and a descriptor, never a thread.
///
/// Admission: each socket has its own capacity (apps cannot take the agents' or `pickerctl`'s), and
/// on `client.sock` each caller its own share; a connection beyond either is told
/// `TOO_MANY_CONNECTIONS` and closed at once. Deadlines: the hello, the rest of a frame once it has
/// begun, and (apps only) idleness with nothing in progress each end the connection with
/// `DEADLINE_EXCEEDED`. The table is scanned for deadlines only when the earliest one comes.
///
/// A connection is registered one-shot: after it reports readable, one worker reads and answers
/// what has arrived, then re-arms it. So a connection's requests are answered in order, and never
/// by two threads at once.
final class ConnectionLoop: Sendable {
    /// Whether a connection stays open after a frame.
    enum Verdict: Sendable { case keepOpen, close }

    private let poller: EventPoller
    private let listeners: [(UnixListener, Role)]
    private let limits: ConnectionLimits
    private let handlerReference = Mutex<(any FrameHandler)?>(nil)
    private var handler: any FrameHandler { handlerReference.withLock { $0! } }
    private let logger: Logger
    private let pools: [Role: WorkerPool]
    private let table = Mutex(Table())
    /// The earliest moment a connection's deadline may come, as last reckoned (`nil`: reckon now).
    /// The loop scans the table only once it has come; a connection whose deadline may now come
    /// sooner lowers it (``note(_:wake:)``), so an ordinary request costs no scan of every connection.
    private let nextDeadline = Mutex<ContinuousClock.Instant?>(nil)

    private struct Table {
        var connections: [UInt64: ServedConnection] = [:]
        var perRole: [Role: Int] = [:]
        var perCaller: [CallerKey: Int] = [:]
        var nextToken: UInt64 = 16
        var stopping = false
    }

    /// Tokens 0, 1, 2… are the listeners'; connections count up from 16.
    private static let firstConnectionToken: UInt64 = 16

    /// Prepares the loop over `listeners`; ``run(handler:)`` serves.
    init(listeners: [(UnixListener, Role)], limits: ConnectionLimits, logger: Logger) throws {
        poller = try EventPoller()
        self.listeners = listeners
        self.limits = limits
        self.logger = logger
        for (index, (listener, _)) in listeners.enumerated() {
            try listener.makeNonBlocking()
            try poller.addListener(listener.descriptor!, token: UInt64(index))
        }
        var pools: [Role: WorkerPool] = [:]
        for role in [Role.client, .agent, .control] {
            pools[role] = WorkerPool(name: "pickerd-\(role)", threads: limits.workersPerRole[role] ?? 2)
        }
        self.pools = pools
    }

    /// Connections open now, per role.
    var openConnections: [Role: Int] { table.withLock { $0.perRole } }

    /// Serves until ``stop()``, with `handler` answering; then closes every connection and listener
    /// and returns.
    func run(handler: any FrameHandler) {
        handlerReference.withLock { $0 = handler }
        while !table.withLock({ $0.stopping }) {
            let timeout = expireDue()
            let events: [EventPoller.Event]
            do {
                events = try poller.wait(timeoutMilliseconds: timeout)
            } catch {
                logger.error("the event loop cannot wait", metadata: ["error": "\(error)"])
                usleep(100_000)
                continue
            }
            for event in events {
                if event.token < Self.firstConnectionToken {
                    let (listener, role) = listeners[Int(event.token)]
                    acceptAll(listener, role: role)
                } else {
                    dispatch(event.token)
                }
            }
        }
        let open = table.withLock { Array($0.connections.values) }
        for served in open { close(served) }
        for (listener, _) in listeners {
            try? listener.close()
            if let path = listener.path { unlink(path) }
        }
        for pool in pools.values { pool.stop() }
    }

    /// Ends ``run()`` (from any thread).
    func stop() {
        table.withLock { $0.stopping = true }
        poller.wake()
    }

    // MARK: Accepting

    private func acceptAll(_ listener: UnixListener, role: Role) {
        while true {
            let connection: FrameConnection
            do {
                guard let accepted = try listener.acceptIfReady() else { return }
                connection = accepted
            } catch where error.errno == .connectionAbort {
                continue
            } catch {
                // EMFILE/ENFILE: out of descriptors. The waiting connection stays queued; the loop
                // comes back to it once a connection has closed (level-triggered), and says so once.
                logger.warning("cannot accept a connection", metadata: ["role": "\(role)", "error": "\(error)"])
                usleep(10_000)
                return
            }
            admit(connection, role: role)
        }
    }

    private func admit(_ connection: FrameConnection, role: Role) {
        do {
            try connection.makeNonBlocking(sendTimeout: limits.sendTimeout)
        } catch {
            connection.shutdown()
            return
        }
        let peer: PeerCredentials
        do {
            peer = try connection.peerCredentials()
        } catch {
            logger.warning("no peer credentials; closing", metadata: ["error": "\(error)"])
            connection.shutdown()
            return
        }
        let log = logger.with(["peer.pid": "\(peer.pid)", "peer.uid": "\(peer.uid)", "role": "\(role)"])
        guard peer.uid == getuid() else {
            log.warning("refused a connection from another user")
            refuse(connection, .permissionDenied, "pickerd serves only uid \(getuid())")
            return
        }
        let identity = PeerIdentity(peer)
        enum Admission { case admitted(ServedConnection), full(String) }
        let admission = table.withLock { table -> Admission in
            let token = table.nextToken
            let served = ServedConnection(connection: connection, role: role, identity: identity, token: token, logger: log)
            guard !table.stopping else { return .full("pickerd is shutting down") }
            let capacity = limits.capacity(role)
            guard table.perRole[role, default: 0] < capacity else {
                return .full("pickerd is serving its maximum of \(capacity) \(Self.noun(role)) connections")
            }
            if role == .client {
                guard table.perCaller[served.caller, default: 0] < limits.connectionsPerCaller else {
                    return .full("\(identity.executablePath ?? "this program") already holds \(limits.connectionsPerCaller) connections to pickerd, "
                                 + "the most one app may; close some first")
                }
                table.perCaller[served.caller, default: 0] += 1
            }
            table.perRole[role, default: 0] += 1
            table.nextToken += 1
            table.connections[token] = served
            return .admitted(served)
        }
        switch admission {
        case .full(let reason):
            log.notice("refused a connection", metadata: ["reason": "\(reason)"])
            refuse(connection, .tooManyConnections, reason)
        case .admitted(let served):
            do {
                try poller.addConnection(connection.descriptor!, token: served.token)
                // Its hello deadline; this is the loop's own thread, which reckons its wait next.
                note(served, wake: false)
            } catch {
                log.error("cannot watch a connection", metadata: ["error": "\(error)"])
                close(served)
            }
        }
    }

    /// Tells a connection why it is refused (it is new, so the reply fits its buffer) and ends it.
    private func refuse(_ connection: FrameConnection, _ code: ErrorCode, _ message: String) {
        try? connection.send(Envelope(requestId: 0, body: .error(ErrorInfo(code: code, message: message))))
        connection.shutdown()
    }

    private static func noun(_ role: Role) -> String {
        switch role {
        case .client: "app"
        case .agent: "picker agent"
        default: "control"
        }
    }

    // MARK: Reading and answering

    /// Hands a connection that reported readable (or hung up) to its role's workers.
    private func dispatch(_ token: UInt64) {
        guard let served = table.withLock({ $0.connections[token] }) else { return }
        let take = served.state.withLock { state -> Bool in
            guard !state.closed, !state.busy else { return false }
            state.busy = true
            return true
        }
        if take { pools[served.role]!.submit { [self] in process(served) } }
    }

    /// On a worker: reads and answers what has arrived, then watches the connection again. After a
    /// few frames it yields to other connections (its remaining frames go to the back of the queue).
    private func process(_ served: ServedConnection) {
        for _ in 0..<16 {
            let received: FrameConnection.Received
            do {
                received = try served.connection.receiveAvailable()
            } catch {
                // The stream cannot be trusted after a framing error: say why, then close.
                let code = error.wireError?.protocolCode ?? .malformed
                served.logger.notice("closing after a bad frame", metadata: ["error": "\(error)"])
                try? served.connection.send(Envelope(requestId: 0, body: .error(ErrorInfo(code: code, message: error.message))))
                close(served)
                return
            }
            switch received {
            case .closed:
                close(served)
                return
            case .wouldBlock:
                let inside = served.connection.isInsideFrame
                served.state.withLock { state in
                    state.busy = false
                    state.insideFrameSince = inside ? (state.insideFrameSince ?? .now) : nil
                }
                if let descriptor = served.connection.descriptor { try? poller.rearm(descriptor, token: served.token) }
                // Left alone again, perhaps with a frame deadline begun.
                note(served, wake: true)
                return
            case .frame(let frame):
                served.state.withLock { state in
                    state.lastActivity = .now
                    state.insideFrameSince = nil
                }
                if handler.handle(frame, from: served) == .close {
                    close(served)
                    return
                }
            }
        }
        pools[served.role]!.submit { [self] in process(served) }
    }

    /// Closes a connection once: out of the loop and the table, shut down both ways, its sessions
    /// ended. The descriptor itself closes when the last reference goes (a thread that still holds
    /// it sends into a shut-down socket, never into a reused descriptor number).
    private func close(_ served: ServedConnection) {
        let first = served.state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            return true
        }
        guard first else { return }
        if let descriptor = served.connection.descriptor { poller.remove(descriptor) }
        table.withLock { table in
            guard table.connections.removeValue(forKey: served.token) != nil else { return }
            table.perRole[served.role, default: 1] -= 1
            if served.role == .client {
                table.perCaller[served.caller, default: 1] -= 1
                if table.perCaller[served.caller] == 0 { table.perCaller[served.caller] = nil }
            }
        }
        served.connection.shutdown()
        handler.ended(served)
    }

    // MARK: Deadlines

    /// Closes every connection past its deadline (on its role's workers: a goodbye may have to wait
    /// for room); returns the milliseconds until the next deadline. Scans the table only when the
    /// earliest deadline reckoned has come.
    private func expireDue() -> Int32 {
        let now = ContinuousClock.Instant.now
        // Notes made during the scan lower this: none is lost.
        let scan = nextDeadline.withLock { next -> Bool in
            if let next, next > now { return false }
            next = now + .seconds(3600)
            return true
        }
        if scan {
            var next: ContinuousClock.Instant?
            var due: [(ServedConnection, String)] = []
            for served in table.withLock({ Array($0.connections.values) }) {
                let verdict = served.state.withLock { state -> (deadline: ContinuousClock.Instant?, expired: String?) in
                    guard !state.closed, !state.busy, let (deadline, reason) = deadline(of: served, state) else { return (nil, nil) }
                    if deadline > now { return (deadline, nil) }
                    state.busy = true
                    return (nil, reason)
                }
                if let deadline = verdict.deadline { next = min(next ?? deadline, deadline) }
                if let reason = verdict.expired { due.append((served, reason)) }
            }
            for (served, reason) in due {
                pools[served.role]!.submit { [self] in expire(served, reason) }
            }
            if let next { nextDeadline.withLock { $0 = min($0 ?? next, next) } }
        }
        let wait = nextDeadline.withLock { $0 ?? now }
        return Int32(clamping: Int64((now.duration(to: wait) / .milliseconds(1)).rounded(.up)) + 1)
    }

    /// The earliest of a connection's deadlines, and what it would be closed for: the hello, the
    /// rest of a begun frame, and (apps) idleness.
    private func deadline(of served: ServedConnection, _ state: ServedConnection.State) -> (ContinuousClock.Instant, String)? {
        var deadlines: [(ContinuousClock.Instant, String)] = []
        if state.phase == .awaitingHello {
            deadlines.append((served.acceptedAt + limits.helloTimeout, "no hello arrived within \(limits.helloTimeout)"))
        }
        if let since = state.insideFrameSince {
            deadlines.append((since + limits.frameTimeout, "the rest of a frame did not arrive within \(limits.frameTimeout)"))
        }
        if served.role == .client, state.phase != .awaitingHello {
            deadlines.append((state.lastActivity + limits.idleTimeout, "the connection was idle for \(limits.idleTimeout) with nothing in progress"))
        }
        return deadlines.min { $0.0 < $1.0 }
    }

    /// A connection the loop leaves alone again (accepted, or done with by a worker): lowers the
    /// loop's next deadline to its own if that is sooner, waking the loop (`wake`) to wait less.
    private func note(_ served: ServedConnection, wake: Bool) {
        guard let (deadline, _) = served.state.withLock({ state in
            state.closed || state.busy ? nil : self.deadline(of: served, state)
        }) else { return }
        let lowered = nextDeadline.withLock { next -> Bool in
            // nil: the loop reckons anew anyway.
            guard let current = next, deadline < current else { return false }
            next = deadline
            return true
        }
        if lowered && wake { poller.wake() }
    }

    private func expire(_ served: ServedConnection, _ reason: String) {
        // Idle, but a presentation is under review: it may wait as long as the person takes.
        if served.role == .client, served.phase != .awaitingHello, !served.connection.isInsideFrame,
           handler.hasWorkInProgress(served) {
            served.state.withLock { state in
                state.lastActivity = .now
                state.busy = false
            }
            // An event that arrived while the expiry was pending was passed over: watch afresh.
            if let descriptor = served.connection.descriptor { try? poller.rearm(descriptor, token: served.token) }
            note(served, wake: true)
            return
        }
        served.logger.notice("closing at its deadline", metadata: ["reason": "\(reason)"])
        try? served.connection.send(Envelope(requestId: 0, body: .error(ErrorInfo(code: .deadlineExceeded, message: reason))))
        close(served)
    }
}
