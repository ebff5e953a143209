/// A failure to encode, frame or decode a pickerd message.
///
/// Every failure the wire layer can meet has its own ``Code``; the ``message`` says what happened in
/// words a person can act on. Codes map to the protocol's `ErrorCode` with ``protocolCode``.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. A struct wrapping a private enum, so codes can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case truncated, oversized, undecodable, reservedBitsSet
            case tooManyDescriptors, descriptorMismatch, unsupportedVersion
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The peer closed the connection in the middle of a frame.
        public static let truncated = Code(.truncated)
        /// The length prefix is over the maximum frame size; nothing was allocated for it.
        public static let oversized = Code(.oversized)
        /// The frame body is not a valid protobuf message of the expected type.
        public static let undecodable = Code(.undecodable)
        /// The header's reserved field is not zero.
        public static let reservedBitsSet = Code(.reservedBitsSet)
        /// A frame declares or carries more descriptors than the limit.
        public static let tooManyDescriptors = Code(.tooManyDescriptors)
        /// The descriptors received do not match the count the header declares.
        public static let descriptorMismatch = Code(.descriptorMismatch)
        /// The peers have no protocol version in common.
        public static let unsupportedVersion = Code(.unsupportedVersion)

        /// The code's name.
        public var description: String {
            switch value {
            case .truncated: "truncated"
            case .oversized: "oversized"
            case .undecodable: "undecodable"
            case .reservedBitsSet: "reservedBitsSet"
            case .tooManyDescriptors: "tooManyDescriptors"
            case .descriptorMismatch: "descriptorMismatch"
            case .unsupportedVersion: "unsupportedVersion"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, for a person.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - message: what happened, for a person.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The protocol error code to send a peer whose frame failed this way.
    public var protocolCode: ErrorCode {
        switch code {
        case .oversized: .frameTooLarge
        case .unsupportedVersion: .unsupportedVersion
        default: .malformed
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
