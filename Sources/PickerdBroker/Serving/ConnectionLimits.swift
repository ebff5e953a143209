public import PickerdWire

/// How many connections pickerd serves, and how long it waits for each, so that no client can lock
/// others out (Documentation/design.md, "Privacy invariants", I14).
///
/// Each socket has its own capacity: apps can fill only `client.sock`'s, never the room kept for
/// picker agents and `pickerctl`. On `client.sock` each caller (one executable file, whatever its
/// path) has a share of its own. A connection that has not said hello, or that stops in the middle
/// of a frame, is closed at its deadline; an app connection with nothing in progress (no
/// presentation open, no request being answered) is closed when it has been idle too long. A
/// presentation under review is never cut short.
public struct ConnectionLimits: Sendable {
    /// The most app connections (`client.sock`) at once, all apps together.
    public var clientConnections: Int
    /// The most app connections one caller (one executable file) may hold.
    public var connectionsPerCaller: Int
    /// The most picker agent connections (`agent.sock`) at once.
    public var agentConnections: Int
    /// The most control connections (`control.sock`) at once.
    public var controlConnections: Int
    /// How long a new connection has to complete its hello.
    public var helloTimeout: Duration
    /// How long the rest of a frame may take once its first byte has arrived.
    public var frameTimeout: Duration
    /// How long an app connection may sit with nothing in progress before it is closed.
    public var idleTimeout: Duration
    /// How long a reply may wait for the peer to read (a peer that never reads is cut off).
    public var sendTimeout: Duration
    /// Threads that handle requests, per socket: app requests never wait behind control requests.
    public var workersPerRole: [Role: Int]

    /// Creates limits; the defaults suit one person's desktop.
    /// - Parameters:
    ///   - clientConnections: app connections at once, all apps together.
    ///   - connectionsPerCaller: app connections one executable may hold.
    ///   - agentConnections: picker agent connections at once.
    ///   - controlConnections: control connections at once.
    ///   - helloTimeout: time to complete the hello.
    ///   - frameTimeout: time for the rest of a frame.
    ///   - idleTimeout: time an app connection may do nothing.
    ///   - sendTimeout: time a reply may wait for the peer to read.
    public init(clientConnections: Int = 1024, connectionsPerCaller: Int = 16, agentConnections: Int = 64,
                controlConnections: Int = 64, helloTimeout: Duration = .seconds(5), frameTimeout: Duration = .seconds(10),
                idleTimeout: Duration = .seconds(60), sendTimeout: Duration = .seconds(10)) {
        self.clientConnections = clientConnections
        self.connectionsPerCaller = connectionsPerCaller
        self.agentConnections = agentConnections
        self.controlConnections = controlConnections
        self.helloTimeout = helloTimeout
        self.frameTimeout = frameTimeout
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        workersPerRole = [.client: 4, .agent: 2, .control: 2]
    }

    /// The capacity of `role`'s socket.
    func capacity(_ role: Role) -> Int {
        switch role {
        case .client: clientConnections
        case .agent: agentConnections
        default: controlConnections
        }
    }
}
