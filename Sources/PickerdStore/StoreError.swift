/// A failure of the store, with the file it concerns.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. A struct wrapping a private enum, so codes can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case corrupt, unreadable, writeFailed, notFound, invalid }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The database file is not a readable SQLite database, or fails its integrity check.
        public static let corrupt = Code(.corrupt)
        /// The store's directory or a file in it cannot be opened (permissions, missing directory).
        public static let unreadable = Code(.unreadable)
        /// A write failed (a full disk, a read-only file system); nothing of it was kept.
        public static let writeFailed = Code(.writeFailed)
        /// A named item, suggestion or setting does not exist.
        public static let notFound = Code(.notFound)
        /// A value the store cannot hold (for example a suggestion of more than 13 items).
        public static let invalid = Code(.invalid)
        /// The code's name.
        public var description: String {
            switch value {
            case .corrupt: "corrupt"
            case .unreadable: "unreadable"
            case .writeFailed: "writeFailed"
            case .notFound: "notFound"
            case .invalid: "invalid"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, naming the file, for a person.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - message: what happened, naming the file.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
