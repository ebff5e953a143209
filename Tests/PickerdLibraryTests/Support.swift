import Foundation
import PickerdLibrary
import PickerdStore

/// A store in a fresh temporary directory, removed at the end.
final class TemporaryStore {
    let directory: String
    let store: Store

    init() throws {
        var template = Array("/tmp/pkd-store.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        directory = String(cString: made)
        store = try Store(dataDirectory: directory + "/data")
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

/// One shared seeded store for the read-only library tests (seeding takes a moment).
enum Seeded {
    nonisolated(unsafe) static let shared: TemporaryStore = {
        let temporary = try! TemporaryStore()
        try! DemoLibrary.seed(into: temporary.store)
        return temporary
    }()
}
