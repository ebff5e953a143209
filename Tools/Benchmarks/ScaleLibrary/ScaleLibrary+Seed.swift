import Foundation
public import PickerdDemoLibrary
import PickerdMoments
public import PickerdStore

extension ScaleLibrary {
    /// Fills `store` with this scale library, a month per transaction, then builds its moments.
    /// - Parameters:
    ///   - store: an empty store, or one to replace when `replace` is true.
    ///   - replace: wipe an existing library first.
    ///   - progress: called after each month.
    /// - Returns: what was written.
    /// - Throws: ``StoreError`` `.invalid` when the store already holds items and `replace` is false;
    ///   any write failure (each month is one transaction: a month is there whole or not at all).
    @discardableResult
    public func seed(into store: Store, replace: Bool = false,
                     progress: (DemoLibrary.Progress) -> Void = { _ in }) throws(StoreError) -> DemoLibrary.Summary {
        let existing = try store.itemCounts().values.reduce(0, +)
        if existing > 0 {
            guard replace else {
                throw StoreError(.invalid, "the store \(store.databasePath) already holds \(existing) items; seed with replace to start over")
            }
            try store.clearLibrary()
        }
        var items = 0
        var written = Set<String>()
        var directories = Set<String>()
        do {
            try forEachMonth { stage, batch in
                for file in batch.flatMap(\.files) where written.insert(file.media.relativePath).inserted {
                    let directory = (file.media.relativePath as NSString).deletingLastPathComponent
                    let known = !directories.insert(directory).inserted
                    try store.writeMedia(file.bytes, to: file.media.relativePath, atomically: false, directoryExists: known)
                }
                try store.insert(batch.map(\.item))
                items += batch.count
                progress(DemoLibrary.Progress(stage: stage, done: items, total: items))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "seeding the scale library failed: \(error)")
        }
        progress(DemoLibrary.Progress(stage: "moments", done: items, total: items))
        let suggestions = try MomentEngine(store: store).rebuildAll()
        progress(DemoLibrary.Progress(stage: "suggestions", done: items, total: items))
        return DemoLibrary.Summary(items: items, suggestions: suggestions, mediaFiles: written.count)
    }
}
