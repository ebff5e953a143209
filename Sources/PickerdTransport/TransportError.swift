public import PickerdWire
public import SystemPackage

/// A failure of the socket transport.
///
/// Carries the underlying `Errno` where a system call failed, and the `WireError` where a frame was
/// malformed, so a server can answer a peer with the right protocol error code.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. A struct wrapping a private enum, so codes can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case pathTooLong, systemCall, connectionClosed, wire, controlDataTruncated, closed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A Unix socket path does not fit `sockaddr_un.sun_path` (107 bytes and a NUL).
        public static let pathTooLong = Code(.pathTooLong)
        /// A system call failed; ``TransportError/errno`` says how.
        public static let systemCall = Code(.systemCall)
        /// The peer closed the connection in the middle of a frame or before a reply.
        public static let connectionClosed = Code(.connectionClosed)
        /// A frame was malformed; ``TransportError/wireError`` says how.
        public static let wire = Code(.wire)
        /// The kernel truncated the control data (`MSG_CTRUNC`): descriptors were lost.
        public static let controlDataTruncated = Code(.controlDataTruncated)
        /// The connection or listener was already closed by this side.
        public static let closed = Code(.closed)

        /// The code's name.
        public var description: String {
            switch value {
            case .pathTooLong: "pathTooLong"
            case .systemCall: "systemCall"
            case .connectionClosed: "connectionClosed"
            case .wire: "wire"
            case .controlDataTruncated: "controlDataTruncated"
            case .closed: "closed"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, for a person.
    public var message: String
    /// The error number of the failed system call, if one failed.
    public var errno: Errno?
    /// The framing failure, if a frame was malformed.
    public var wireError: WireError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - message: what happened, for a person.
    ///   - errno: the error number of a failed system call.
    ///   - wireError: the framing failure.
    public init(_ code: Code, _ message: String, errno: Errno? = nil, wireError: WireError? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.wireError = wireError
    }

    /// Wraps a framing failure.
    /// - Parameter error: the framing failure.
    public init(_ error: WireError) {
        self.init(.wire, error.message, wireError: error)
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
