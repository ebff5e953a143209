import Foundation
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The person's word on home and work: stored, read back, refused when it cannot be read, and
/// winning over the votes in the moments (what is at home, what is a trip).
@Suite("The person's word on home and work", .serialized)
struct PlaceCorrectionsTests {
    static let zone = KnownPlacesTests.zone
    static let coimbra = Coordinate(latitude: 40.2033, longitude: -8.4103)

    /// Three weeks at flat A in Porto (nights, the office on weekdays), except the nights of days
    /// 16–18 spent at a flat in Coimbra, 110 km away, with three photos there on day 17's afternoon.
    static func library() -> [LibraryItem] {
        var items = KnownPlacesTests.life(home: KnownPlacesTests.flatA, weeks: 0..<3).filter { item in
            !(16...18).contains(Int((item.startMs - KnownPlacesTests.ms(0, 0)) / 86_400_000))
        }
        for day in 16...18 { items.append(KnownPlacesTests.visit(coimbra, day: day, from: 0, to: 24, place: "Casa Branca")) }
        for minute in [0, 15, 30] {
            items.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: KnownPlacesTests.ms(17, 15) + Int64(minute) * 60_000,
                                     coordinate: Coordinate(latitude: coimbra.latitude + 0.0003, longitude: coimbra.longitude)))
        }
        return items
    }

    func build(_ items: [LibraryItem], _ corrections: [KnownPlaces.Correction] = []) -> [StoredSuggestion] {
        SuggestionBuilder(timeZone: Self.zone).build(from: items, home: HomeBase.find(in: items), owning: Int64.min..<Int64.max,
                                                    corrections: corrections)
    }

    @Test("days in Coimbra are a trip from the flat of most nights; declared home from their first day, they are time at home")
    func awayBecomesHome() throws {
        let items = Self.library()
        let photos = Set(items.filter { $0.kind == .photo }.map(\.id))
        let found = build(items)
        let trip = try #require(found.first { $0.kind == .trip }, "\(found.map(\.title))")
        #expect(trip.title == "Wednesday to Friday", "\(trip.title)")
        #expect(photos.isSubset(of: trip.itemIDs), "\(trip.title)")
        #expect(!found.contains { $0.kind == .timeAtHome })

        let moved = KnownPlaces.Correction(role: .home, coordinate: Self.coimbra, fromDay: KnownPlacesTests.day(16))
        let corrected = build(items, [moved])
        #expect(!corrected.contains { $0.kind == .trip && $0.title.contains("Coimbra") }, "\(corrected.map(\.title))")
        let home = try #require(corrected.first { $0.kind == .timeAtHome }, "\(corrected.map(\.title))")
        #expect(photos.isSubset(of: home.itemIDs), "\(home.title)")
        #expect(home.title == "Thursday afternoon at home", "\(home.title)")
        // From Coimbra, the Porto days after are far away: the weekend's nights at flat A are a trip.
        let back = try #require(corrected.first { $0.kind == .trip }, "\(corrected.map(\.title))")
        #expect(back.title == "Saturday to Sunday", "\(back.title)")
        #expect(back.startMs >= KnownPlacesTests.ms(18, 0), "\(back.title)")
    }

    @Test("corrections are stored, one per role and day, read back in order; an unreadable one is a typed error until reset")
    func stored() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let first = try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: Self.coimbra, name: " Casa Branca ", createdMs: 1))
        #expect(first.name == "Casa Branca")
        _ = try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: KnownPlacesTests.flatA, fromDay: 20_000, createdMs: 2))
        let replaced = try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: KnownPlacesTests.flatB, createdMs: 3))
        #expect(try store.placeCorrections().map(\.fromDay) == [20_000, nil])
        #expect(try store.placeCorrections().last == replaced)
        do {
            try store.setPlaceCorrection(StoredPlaceCorrection(role: .work, coordinate: Coordinate(latitude: 91, longitude: 0), createdMs: 4))
            Issue.record("a place off the Earth was stored")
        } catch {
            #expect(error.code == .invalid)
        }
        do {
            try store.removePlaceCorrections(role: .work)
            Issue.record("removed a work never set")
        } catch {
            #expect(error.code == .notFound)
        }
        try store.removePlaceCorrections(role: .home, fromDay: .some(20_000))
        #expect(try store.placeCorrections() == [replaced])

        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [store.databasePath, "INSERT INTO place_correction (role, latitude, longitude, created_ms) VALUES ('holiday home', 1, 2, 5)"]
        try sqlite.run()
        sqlite.waitUntilExit()
        let reopened = try Store(dataDirectory: store.dataDirectory)
        do {
            _ = try reopened.placeCorrections()
            Issue.record("an unreadable correction was read")
        } catch {
            #expect(error.code == .corrupt, "\(error)")
            #expect(error.message.contains("place correction 4"), "\(error)")
            #expect(error.message.contains("reset"), "\(error)")
        }
        #expect(try reopened.readablePlaceCorrections() == [replaced], "the engine passes over it")
        #expect(try reopened.removePlaceCorrections(role: nil) == 2)
        #expect(try reopened.placeCorrections().isEmpty)
    }

    @Test("after a correction from a day, building again from a week before it gives what a full rebuild gives")
    func refreshEqualsFull() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.insert(Self.library())
        let engine = MomentEngine(store: store, builder: SuggestionBuilder(timeZone: Self.zone))
        try engine.rebuildAll()
        try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: Self.coimbra, fromDay: KnownPlacesTests.day(16), createdMs: 1))
        #expect(try engine.refresh(correctedFrom: [KnownPlacesTests.day(16)]) > 0)
        let refreshed = try store.suggestions().map { "\($0.id) \($0.title) \($0.itemIDs)" }.sorted()
        try engine.rebuildAll()
        #expect(try store.suggestions().map { "\($0.id) \($0.title) \($0.itemIDs)" }.sorted() == refreshed)
        #expect(try store.suggestions().contains { $0.kind == .timeAtHome })
    }
}
