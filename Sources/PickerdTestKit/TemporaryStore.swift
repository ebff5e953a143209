public import PickerdStore

/// A store in a fresh temporary directory, removed at the end.
public final class TemporaryStore: Sendable {
    /// The temporary directory holding the store's data directory (`data/`).
    public let directory: String
    /// The store.
    public let store: Store
    private let temporary: TemporaryDirectory

    /// Opens a new store.
    /// - Throws: when the directory or the store cannot be made.
    public init() throws {
        temporary = try TemporaryDirectory(prefix: "pkd-store")
        directory = temporary.path
        store = try Store(dataDirectory: directory + "/data")
    }
}
