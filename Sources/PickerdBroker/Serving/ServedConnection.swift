import Glibc
import Logging
import PickerdTransport
import PickerdWire
import Synchronization

/// One accepted connection, who is at the other end, and where it is in its life:
/// `awaitingHello → serving → (agents) registered → closed`. Each transition happens in one place
/// (``ConnectionLoop`` for accepting and closing, ``Broker``'s frame handler for the rest).
final class ServedConnection: Sendable {
    /// Where the connection is in the protocol.
    enum Phase: Sendable {
        /// Accepted; the first frame must be a hello, before the hello deadline.
        case awaitingHello
        /// The hello was exchanged; requests are served (an agent must register first).
        case serving
        /// A picker agent whose executable pickerd accepted.
        case registeredAgent
    }

    /// What the event loop needs to know, behind one lock.
    struct State: Sendable {
        var phase = Phase.awaitingHello
        /// A worker thread is reading from or answering on it (the loop leaves it alone meanwhile).
        var busy = false
        /// Closed: nothing more is read, sent or counted.
        var closed = false
        /// When a frame began arriving that has not arrived whole.
        var insideFrameSince: ContinuousClock.Instant?
        /// When the last whole frame arrived (or the connection was accepted).
        var lastActivity: ContinuousClock.Instant
    }

    let connection: FrameConnection
    let role: Role
    let identity: PeerIdentity
    /// Whose share of the socket's capacity this connection takes.
    let caller: CallerKey
    /// The event loop's name for it.
    let token: UInt64
    let acceptedAt: ContinuousClock.Instant
    let logger: Logger
    let state: Mutex<State>

    init(connection: FrameConnection, role: Role, identity: PeerIdentity, token: UInt64, logger: Logger) {
        self.connection = connection
        self.role = role
        self.identity = identity
        caller = CallerKey(identity)
        self.token = token
        acceptedAt = .now
        self.logger = logger
        state = Mutex(State(lastActivity: acceptedAt))
    }

    /// The connection's phase.
    var phase: Phase {
        get { state.withLock { $0.phase } }
        set { state.withLock { $0.phase = newValue } }
    }
}

/// A caller as the kernel knows it: its uid and the executable file it runs (device and inode, so a
/// copy is another caller and a hard link or a path inside a sandbox is not).
struct CallerKey: Hashable, Sendable, CustomStringConvertible {
    let uid: UInt32
    let device: UInt64
    let inode: UInt64

    init(_ identity: PeerIdentity) {
        uid = identity.uid
        // The file it ran when it connected; gone already or not inspectable: one shared share for
        // every such caller.
        device = identity.runningFile?.device ?? 0
        inode = identity.runningFile?.inode ?? 0
    }

    var description: String { "uid \(uid), executable \(device):\(inode)" }
}
