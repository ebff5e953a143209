import Foundation
@testable import PickerdMoments
import PickerdScaleLibrary
import PickerdStore
import Testing

/// A full rebuild reads each eight-week span with three weeks either side; the span after shares
/// six of those weeks, and takes their items from the span before instead of reading them again
/// (`MomentEngine.Read`); the rest of its reach, past the span before's, is read on another thread
/// while the span before is built (`Prefetch`). What it builds must be what reading every span whole
/// builds (a read-ahead that left out its last day fails here).
@Suite("A full rebuild's spans share what they both read")
struct RebuildOverlapTests {
    /// The library's moments and the items the engine derives (stays from photos, prompts), each
    /// as a line.
    static func snapshot(_ store: Store) throws -> [String] {
        let suggestions = try store.suggestions().map { "\($0.id) \($0.kind) \($0.title) \($0.startMs)-\($0.endMs) \($0.itemIDs)" }
        let derived = try store.items().filter(\.isDerived).map { "\($0.id) \($0.source) \($0.startMs) \($0.asset)" }
        return (suggestions + derived).sorted()
    }

    @Test("taking the shared weeks from the span before builds exactly what reading each span whole builds")
    func sameAsReadingWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pkd-overlap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(dataDirectory: directory + "/data")
        try ScaleLibrary(photos: 10_000).seed(into: store)
        let range = try #require(try store.libraryRange())
        let weeks = (range.upperBound - range.lowerBound) / Duration.days(7).ms
        #expect(weeks > 3 * MomentEngine.rebuildWeeks, "spans enough to share weeks: \(weeks) weeks")

        let engine = MomentEngine(store: store)
        let count = try engine.rebuildAll(reusingOverlap: false)
        let whole = try Self.snapshot(store)
        #expect(count > 100 && whole.contains { $0.contains(" \(PhotoStays.source) ") }, "\(count) suggestions")
        #expect(try engine.rebuildAll(reusingOverlap: true) == count)
        let shared = try Self.snapshot(store)
        let onlyWhole = Set(whole).subtracting(shared).sorted(), onlyShared = Set(shared).subtracting(whole).sorted()
        #expect(onlyWhole.isEmpty && onlyShared.isEmpty, "only reading whole: \(onlyWhole.prefix(3)); only sharing: \(onlyShared.prefix(3))")
    }
}
