public import PickerdWire
public import SystemPackage

/// The connecting side of a pickerd connection: the hello exchange, then requests and their replies,
/// matched by request id. Used by pickerctl, the client library and picker agents.
public final class ProtocolClient: Sendable {
    /// The connection underneath.
    public let connection: FrameConnection
    /// What pickerd answered to the hello.
    public let server: HelloReply
    private let nextID: Counter

    /// A failure the peer reported, or a reply that makes no sense.
    public struct RemoteError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The protocol error code.
        public var code: ErrorCode
        /// pickerd's message.
        public var message: String
        /// The message.
        public var description: String { message }

        /// Creates an error.
        /// - Parameters:
        ///   - code: the protocol error code.
        ///   - message: pickerd's message.
        public init(code: ErrorCode, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// Connects to a pickerd socket and says hello.
    /// - Parameters:
    ///   - path: the socket (``PickerdPaths/controlSocket`` and friends).
    ///   - role: the role this connection plays; it must match the socket's.
    ///   - software: a name for pickerd's logs.
    /// - Throws: `TransportError` when the socket cannot be reached; ``RemoteError`` when pickerd
    ///   refuses the hello (another role, no common version).
    public init(path: String, role: Role, software: String) throws {
        let connection = try UnixSocket.connect(path: path)
        self.connection = connection
        nextID = Counter()
        let hello = Envelope(requestId: nextID.next(), body: .hello(Hello(minVersion: ProtocolVersion.minimum,
                                                                          maxVersion: ProtocolVersion.current,
                                                                          role: role, software: software)))
        let sent = Result { () throws(TransportError) in try connection.send(hello) }
        if case .failure(let error) = sent {
            // pickerd may refuse a peer at once (another uid, too many connections) and close: its
            // reason is already waiting in the receive buffer.
            if error.errno == .brokenPipe || error.errno == .connectionReset,
               case .error(let refusal)? = (try? connection.receive())??.envelope.body {
                throw RemoteError(code: refusal.code, message: refusal.message)
            }
            throw error
        }
        guard let reply = try connection.receive() else {
            throw RemoteError(code: .internal, message: "pickerd closed the connection during the hello")
        }
        switch reply.envelope.body {
        case .helloReply(let server)?: self.server = server
        case .error(let error)?: throw RemoteError(code: error.code, message: error.message)
        default: throw RemoteError(code: .malformed, message: "pickerd answered the hello with \(Self.name(reply.envelope))")
        }
    }

    /// Sends a request and waits for its final reply; `onEvent` sees intermediate replies (progress).
    /// - Parameters:
    ///   - body: the request.
    ///   - descriptors: descriptors to attach.
    ///   - isFinal: which reply ends the request (by default: any).
    ///   - onEvent: called with replies that are not final.
    /// - Returns: the final reply, with its descriptors.
    /// - Throws: ``RemoteError`` for an error reply or a closed connection; `TransportError`.
    public func request(_ body: Envelope.Body, descriptors: [FileDescriptor] = [],
                        isFinal: (Envelope.Body) -> Bool = { _ in true },
                        onEvent: (Envelope.Body) -> Void = { _ in }) throws -> ReceivedFrame {
        let id = nextID.next()
        try connection.send(Envelope(requestId: id, body: body), descriptors: descriptors)
        while true {
            guard let frame = try connection.receive() else {
                throw RemoteError(code: .internal, message: "pickerd closed the connection before answering")
            }
            if case .error(let error)? = frame.envelope.body, frame.envelope.requestId == id || frame.envelope.requestId == 0 {
                throw RemoteError(code: error.code, message: error.message)
            }
            guard frame.envelope.requestId == id, let reply = frame.envelope.body else { continue }
            if isFinal(reply) { return frame }
            onEvent(reply)
        }
    }

    /// Closes the connection.
    public func close() {
        try? connection.close()
    }

    static func name(_ envelope: Envelope) -> String {
        envelope.body.map { String(describing: $0).prefix { $0 != "(" } }.map(String.init) ?? "nothing"
    }
}

import Synchronization

final class Counter: Sendable {
    private let value = Atomic<UInt64>(0)
    func next() -> UInt64 { value.add(1, ordering: .relaxed).newValue }
}
