import Foundation
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The moments engine: deterministic ids, incremental rebuilds equal to a full one, rotation that
/// survives them, and what never becomes a suggestion's item.
@Suite("The moments engine", .serialized)
struct MomentEngineTests {
    /// The suggestions in a comparable form.
    func snapshot(_ store: Store) throws -> [String] {
        try store.suggestions().map { "\($0.id) \($0.kind) \($0.title) \($0.startMs)-\($0.endMs) \($0.itemIDs)" }.sorted()
    }

    @Test("building again gives the same moments with the same ids: none duplicated")
    func deterministicIDs() throws {
        let temporary = try TemporaryStore()
        try DemoLibrary.seed(into: temporary.store)
        let first = try snapshot(temporary.store)
        try MomentEngine(store: temporary.store).rebuildAll()
        try MomentEngine(store: temporary.store).rebuildAll()
        #expect(try snapshot(temporary.store) == first)
        let stored = try temporary.store.suggestions()
        #expect(Set(stored.map(\.id)).count == stored.count, "ids are unique")
        #expect(Set(stored.map(\.itemIDs)).count == stored.count, "no two moments hold the same items")
    }

    @Test("rebuilding week by week gives exactly what a full rebuild gives")
    func incrementalEqualsFull() throws {
        let temporary = try TemporaryStore()
        try DemoLibrary.seed(into: temporary.store)
        let full = try snapshot(temporary.store)
        let engine = MomentEngine(store: temporary.store)
        let range = try #require(try temporary.store.libraryRange())
        var day = range.lowerBound
        while day <= range.upperBound {
            try engine.refresh(touching: day...day)
            day += 86_400_000
        }
        let rebuilt = try snapshot(temporary.store)
        let onlyFull = Set(full).subtracting(rebuilt).sorted(), onlyWeekly = Set(rebuilt).subtracting(full).sorted()
        #expect(onlyFull.isEmpty && onlyWeekly.isEmpty && rebuilt.count == full.count,
                "only in the full build: \(onlyFull.prefix(3)); only week by week: \(onlyWeekly.prefix(3)); \(full.count) and \(rebuilt.count)")
    }

    @Test("a new day folds in: its week is built again, other weeks keep their moments, rotation survives")
    func foldIn() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try DemoLibrary.seed(into: store)
        let before = try store.suggestions()
        // What the person was shown and wrote about stays known across the rebuild.
        let run = try #require(before.first { $0.title == "Morning run in Riverside Park" })
        try store.markShown([run.id])
        try store.markReleased(run.id)
        let lowered = try #require(try store.suggestion(id: run.id)).rank
        #expect(lowered < run.score - 4)

        // A new day after the library's last: a walk in the park with photos.
        let added = parkMorning()
        let day = DemoLibrary.firstDayMs + Int64(DemoLibrary.dayCount) * 86_400_000
        try store.insert(added)
        try MomentEngine(store: store).refresh(touching: added[0].startMs...added.last!.startMs)
        let after = try store.suggestions()
        let outing = try #require(after.first { $0.itemIDs.contains(added[0].id) })
        #expect(outing.kind == .outing, "\(outing.title)")
        #expect(outing.title == "Morning in Riverside Park", "\(outing.title)")
        #expect(outing.itemIDs.count == added.count)
        // Weeks before the new day's are untouched: every earlier moment is still there, same id.
        let week = SuggestionBuilder().week(of: day, added[0]).start
        let earlier = before.filter { $0.anchorMs < week }
        let afterIDs = Set(after.map(\.id))
        #expect(earlier.allSatisfy { afterIDs.contains($0.id) })
        let kept = try #require(try store.suggestion(id: run.id))
        #expect(kept.rank == lowered, "rotation survives the rebuild")
    }

    /// A morning in the park with photos, the day after the demo library's last.
    func parkMorning() -> [LibraryItem] {
        let day = DemoLibrary.firstDayMs + Int64(DemoLibrary.dayCount) * 86_400_000
        let park = Location(place: "Riverside Park", city: "New York", location: GeoLocation(latitude: 40.8013, longitude: -73.9719))
        var added = [LibraryItem(id: UUID(), asset: .location(park), startMs: day + 10 * 3_600_000, endMs: day + 12 * 3_600_000,
                                 utcOffsetSeconds: -18_000)]
        for minute in stride(from: 0, to: 50, by: 10) {
            added.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: day + 10 * 3_600_000 + Int64(minute) * 60_000,
                                     utcOffsetSeconds: -18_000, coordinate: Coordinate(latitude: 40.8013, longitude: -73.9719)))
        }
        return added
    }

    @Test("a rebuild beside serving keeps what an import refreshed meanwhile; a plain one would lose it to its swap")
    func rebuildWhileServing() throws {
        for whileServing in [true, false] {
            let temporary = try TemporaryStore()
            let store = temporary.store
            try DemoLibrary.seed(into: store)
            let added = parkMorning()
            var imported = false
            // An import lands while the rebuild is half-way: its items stored, its week refreshed.
            let importMeanwhile: (Int64) -> Void = { _ in
                guard !imported else { return }
                imported = true
                try? store.insert(added)
                _ = try? MomentEngine(store: store).refresh(touching: added[0].startMs...added.last!.startMs)
            }
            let engine = MomentEngine(store: store)
            if whileServing {
                let (_, again) = try engine.rebuildAllWhileServing(built: importMeanwhile)
                #expect(again == 1, "the import's window is built again after the swap")
            } else {
                try engine.rebuildAll(built: importMeanwhile)
            }
            #expect(imported)
            let outing = try store.suggestions().first { $0.itemIDs.contains(added[0].id) }
            #expect((outing != nil) == whileServing, "while serving: \(whileServing)")
            if whileServing {
                // And the rest is what a full rebuild of the whole library makes now.
                let fresh = try snapshot(store)
                try MomentEngine(store: store).rebuildAll()
                #expect(try snapshot(store) == fresh)
            }
        }
    }

    @Test("screenshots, scans and a burst's extra frames never become a suggestion's items")
    func notMemories() throws {
        let base: Int64 = 1_790_000_000_000
        let here = Coordinate(latitude: 38.7139, longitude: -9.1334)
        var items: [LibraryItem] = []
        for i in 0..<6 {
            items.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: base + Int64(i) * 60_000, utcOffsetSeconds: 0, coordinate: here))
        }
        var odd: [LibraryItem] = []
        for (i, reason) in [NotAMemory.screenshot, .scan, .burst, .burst].enumerated() {
            odd.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: base + Int64(i) * 60_000 + 1_000, utcOffsetSeconds: 0,
                                   coordinate: here, notAMemory: reason))
        }
        // A screenshot run of its own makes no moment either.
        for i in 0..<5 {
            odd.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: base + 86_400_000 + Int64(i) * 60_000, utcOffsetSeconds: 0,
                                   notAMemory: .screenshot))
        }
        let built = SuggestionBuilder().build(from: items + odd)
        let used = Set(built.flatMap(\.itemIDs))
        #expect(odd.allSatisfy { !used.contains($0.id) })
        #expect(built.count == 1)
        #expect(built.first?.kind == .photos)
        #expect(built.first?.itemIDs.count == 6)
    }

    @Test("photos split into moments where the person paused or moved on; two photos alone are not a moment")
    func photoRuns() throws {
        let base: Int64 = 1_790_000_000_000
        let park = Coordinate(latitude: 45.5355, longitude: -122.7261), museum = Coordinate(latitude: 45.5165, longitude: -122.6833)
        func photo(_ minute: Int, _ at: Coordinate) -> LibraryItem {
            LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: base + Int64(minute) * 60_000, utcOffsetSeconds: -28_800, coordinate: at)
        }
        let items = (0..<4).map { photo($0 * 5, park) } + (0..<3).map { photo(30 + $0 * 5, museum) } + [photo(600, park), photo(605, park)]
        let built = SuggestionBuilder().build(from: items).sorted { $0.startMs < $1.startMs }
        #expect(built.map(\.itemIDs.count) == [4, 3], "the move to the museum splits; the two evening photos are no moment")
    }

    @Test("days and parts of the day: an item's own offset wins; without one, the person's time zone")
    func timeZones() throws {
        let eightUTC: Int64 = 1_790_150_400_000 - 1_790_150_400_000 % 86_400_000 + 8 * 3_600_000
        let photos = (0..<3).map { LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: eightUTC + Int64($0) * 60_000) }
        let tokyo = SuggestionBuilder(timeZone: TimeZone(identifier: "Asia/Tokyo")!)  // 17:00 there
        let newYork = SuggestionBuilder(timeZone: TimeZone(identifier: "America/New_York")!)  // 03:00 or 04:00 there
        #expect(tokyo.build(from: photos).first?.title.hasSuffix("evening in pictures") == true, "\(tokyo.build(from: photos).map(\.title))")
        #expect(newYork.build(from: photos).first?.title.hasSuffix("night in pictures") == true)
        // Taken in Lisbon (UTC+0 in winter): morning there, whatever the person's zone at home.
        let lisbon = photos.map { var p = $0; p.utcOffsetSeconds = 0; return p }
        #expect(tokyo.build(from: lisbon).first?.title.hasSuffix("morning in pictures") == true)
        #expect(newYork.build(from: lisbon).first?.title.hasSuffix("morning in pictures") == true)
    }
}
