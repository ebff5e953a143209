import Foundation
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Photo GPS in the timeline: where no location source says where the person was, their photos'
/// places are stays, and a trip photographed but never recorded is "3 days in Lisbon".
@Suite("Stays from photos", .serialized)
struct PhotoStaysTests {
    static let home = Coordinate(latitude: 52.4986, longitude: 13.4187)       // Kreuzberg, Berlin
    static let alfama = Coordinate(latitude: 38.7118, longitude: -9.1300)     // Lisbon, 2,300 km away
    static let belem = Coordinate(latitude: 38.6916, longitude: -9.2160)
    /// Monday 2 March 2026, 00:00 UTC.
    static let monday: Int64 = 1_772_409_600_000

    static func photo(day: Int, hour: Double, _ at: Coordinate, jitter: Int) -> LibraryItem {
        // A few metres apart, as a phone's fixes are.
        let c = Coordinate(latitude: at.latitude + Double(jitter % 3) * 0.00005, longitude: at.longitude + Double(jitter % 2) * 0.00005)
        return LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: monday + Int64(day) * 86_400_000 + Int64(hour * 3_600_000),
                           source: "file", utcOffsetSeconds: 3_600, coordinate: c)
    }

    /// Three weeks of evenings photographed at home, and Friday to Sunday of the second week in Lisbon.
    static func library() -> [LibraryItem] {
        var items: [LibraryItem] = []
        for day in 0..<21 where !(11...13).contains(day) {
            items += (0..<3).map { photo(day: day, hour: 18 + Double($0) * 0.2, home, jitter: $0) }
        }
        for day in 11...13 {
            items += (0..<4).map { photo(day: day, hour: 10 + Double($0) * 0.25, alfama, jitter: $0) }
            items += (0..<3).map { photo(day: day, hour: 15 + Double($0) * 0.25, belem, jitter: $0) }
        }
        return items
    }

    @Test("a library of photos alone: the trip is found and titled by its city, its days' places are stays the person can keep")
    func photosAlone() throws {
        let temporary = try TemporaryStore()
        try temporary.store.insert(Self.library())
        let engine = MomentEngine(store: temporary.store, builder: SuggestionBuilder(timeZone: TimeZone(identifier: "Europe/Berlin")!))
        try engine.rebuildAll()
        let stays = try temporary.store.items().filter { $0.source == PhotoStays.source }
        // 18 evenings at home, and two places on each of the trip's three days.
        #expect(stays.count == 18 + 6, "\(stays.count)")
        #expect(stays.allSatisfy { $0.kind == .location && $0.endMs > $0.startMs })
        let suggestions = try temporary.store.suggestions()
        let trip = try #require(suggestions.first { $0.kind == .trip }, "\(suggestions.map(\.title))")
        #expect(trip.title == "3 days in Lisbon", "\(trip.title)")
        let held = try temporary.store.items(trip.itemIDs)
        #expect(held.contains { $0.source == PhotoStays.source }, "the trip holds its places")
        // Nothing in Lisbon is home: home is where the photos are on most days, and stays there are home.
        #expect(!suggestions.contains { $0.kind == .outing && $0.title.contains("Kreuzberg") }, "\(suggestions.map(\.title))")
        // Deriving again changes nothing: the same stays, the same ids, nothing written.
        let again = PhotoStays.derive(from: try temporary.store.items(), owning: Int64.min..<Int64.max)
        #expect(try !temporary.store.replaceDerivedItems(source: PhotoStays.source, startingIn: Int64.min..<Int64.max, with: again))
    }

    @Test("a location history's own stays win: photos it covers make no stay, and a photo removed takes its stay with it")
    func locationHistoryWins() throws {
        let temporary = try TemporaryStore()
        var items = Self.library()
        // The location history recorded the trip's Saturday.
        let saturday = Self.monday + 12 * 86_400_000
        items.append(LibraryItem(id: UUID(), asset: .location(Location(place: "Castelo de São Jorge", city: "Lisboa",
                                                                       location: GeoLocation(latitude: 38.7139, longitude: -9.1334))),
                                 startMs: saturday + 9 * 3_600_000, endMs: saturday + 17 * 3_600_000, source: "import",
                                 coordinate: Coordinate(latitude: 38.7139, longitude: -9.1334)))
        try temporary.store.insert(items)
        let engine = MomentEngine(store: temporary.store)
        try engine.rebuildAll()
        let stays = try temporary.store.items().filter { $0.source == PhotoStays.source }
        #expect(stays.count == 18 + 4, "Saturday's two places come from the history: \(stays.count)")
        #expect(!stays.contains { $0.startMs >= saturday && $0.startMs < saturday + 86_400_000 })
        // The first evening's photos go: its stay goes at the next refresh of that week.
        let firstEvening = try temporary.store.items().filter { $0.kind == .photo && $0.startMs < Self.monday + 86_400_000 }
        try temporary.store.replaceDerivedItems(source: "file", startingIn: Self.monday..<(Self.monday + 86_400_000), with: [])
        #expect(firstEvening.count == 3)
        try engine.refresh(touching: Self.monday...(Self.monday + 1))
        #expect(try temporary.store.items().filter { $0.source == PhotoStays.source }.count == 18 + 4 - 1)
    }
}
