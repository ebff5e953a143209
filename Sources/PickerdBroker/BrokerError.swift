/// A reason pickerd cannot start or go on, in words a person can act on.
public struct BrokerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What happened.
    public var message: String

    /// Creates an error.
    /// - Parameter message: what happened.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
