import Foundation
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The naming order of places: the person's own name (`pickerctl places name`), then their data's
/// (a location history's place), then the gazetteer's; the person's name in titles, place items
/// and `pickerctl places`, and stored as their word on home and work is.
@Suite("The person's names for places")
struct PersonsNamesTests {
    static let zone = KnownPlacesTests.zone
    /// Parque da Cidade, Porto: 4 km from flat A.
    static let park = Coordinate(latitude: 41.1685, longitude: -8.6780)

    /// Three weeks at flat A (nights) and the office (weekdays), and Saturday 14 March's afternoon in
    /// the park: a visit its data calls `dataName` ("": none), with three photos.
    static func library(dataName: String, visit: Bool = true) -> [LibraryItem] {
        var items = KnownPlacesTests.life(home: KnownPlacesTests.flatA, weeks: 0..<3)
        if visit { items.append(KnownPlacesTests.visit(park, day: 12, from: 14, to: 17, place: dataName)) }
        for minute in [0, 20, 40] {
            items.append(LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: KnownPlacesTests.ms(12, 15) + Int64(minute) * 60_000,
                                     coordinate: Coordinate(latitude: park.latitude + 0.0002, longitude: park.longitude)))
        }
        return items
    }

    /// The title of the moment holding the park's photos.
    static func parkTitle(_ items: [LibraryItem], _ corrections: [KnownPlaces.Correction] = []) throws -> String {
        let photos = Set(items.filter { $0.kind == .photo }.map(\.id))
        var items = items
        // Where no location source covers them, the photos make a stay (as the engine derives it).
        items += PhotoStays.derive(from: items, owning: Int64.min..<Int64.max)
        let built = SuggestionBuilder(timeZone: zone).build(from: items, home: HomeBase.find(in: items), owning: Int64.min..<Int64.max,
                                                             corrections: corrections)
        return try #require(built.first { photos.isSubset(of: $0.itemIDs) }, "\(built.map(\.title))").title
    }

    static let tanTrack = KnownPlaces.Correction(role: .named, coordinate: Coordinate(latitude: park.latitude + 0.0005, longitude: park.longitude),
                                                 name: "the Tan track")

    @Test("without the person's word, the data's name wins over the gazetteer's; the person's name wins over both")
    func order() throws {
        let gazetteers = try Self.parkTitle(Self.library(dataName: ""))
        let datas = try Self.parkTitle(Self.library(dataName: "Parque da Cidade"))
        #expect(!gazetteers.contains("Parque da Cidade") && !gazetteers.contains("Tan"), "\(gazetteers)")
        #expect(datas.contains("Parque da Cidade"), "\(datas)")
        #expect(try Self.parkTitle(Self.library(dataName: ""), [Self.tanTrack]).contains("the Tan track"))
        let overData = try Self.parkTitle(Self.library(dataName: "Parque da Cidade"), [Self.tanTrack])
        #expect(overData.contains("the Tan track") && !overData.contains("Parque da Cidade"), "\(overData)")
        // Photos alone (a stay the gazetteer named) take the person's name too.
        let photosOnly = try Self.parkTitle(Self.library(dataName: "", visit: false), [Self.tanTrack])
        #expect(photosOnly.contains("the Tan track"), "\(photosOnly)")
        // A name 400 m away names another place.
        let far = KnownPlaces.Correction(role: .named, coordinate: Coordinate(latitude: Self.park.latitude + 0.0036, longitude: Self.park.longitude),
                                         name: "the Tan track")
        #expect(try Self.parkTitle(Self.library(dataName: "Parque da Cidade"), [far]).contains("Parque da Cidade"))
        // Home and work corrections name nothing else.
        let home = KnownPlaces.Correction(role: .home, coordinate: KnownPlacesTests.flatA, name: "Flat A")
        #expect(try Self.parkTitle(Self.library(dataName: "Parque da Cidade"), [home]).contains("Parque da Cidade"))
    }

    @Test("a name is written into place items alone, their city kept")
    func items() throws {
        let names = PersonsNames([Self.tanTrack, KnownPlaces.Correction(role: .home, coordinate: Self.park, name: "Home")])
        #expect(names.names == [Self.tanTrack])
        let visit = KnownPlacesTests.visit(Self.park, day: 12, from: 14, to: 17, place: "Parque da Cidade")
        var withCity = visit
        if case .location(var l) = withCity.asset { l.city = "Porto"; withCity.asset = .location(l) }
        let photo = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: 0, coordinate: Self.park)
        let applied = names.applied(to: [withCity, photo])
        guard case .location(let named) = applied[0].asset else { Issue.record("not a place"); return }
        #expect(named.place == "the Tan track" && named.city == "Porto")
        #expect(applied[1] == photo)
        #expect(PersonsNames([]).applied(to: [visit]) == [visit])
    }

    @Test("known places: a listed place near a name is called by it; a name nothing found is a place of its own, never routine")
    func listed() throws {
        var items = KnownPlacesTests.life(home: KnownPlacesTests.flatA, weeks: 0..<3)
        let nonnas = KnownPlaces.Correction(role: .named, coordinate: KnownPlacesTests.office, name: "Nonna's")
        let found = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [nonnas, Self.tanTrack]).places
        #expect(found.first { $0.role == .work }?.name == "Nonna's", "\(found)")
        let own = try #require(found.first { $0.role == .named }, "\(found)")
        #expect(own.name == "the Tan track" && own.isPersonsWord && own.days == 0, "\(own)")
        items.append(KnownPlacesTests.visit(Self.park, day: 12, from: 14, to: 17))
        #expect(KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [Self.tanTrack]).places.last?.days == 1)
    }

    @Test("stored like home and work: a second name near the first replaces it, an empty one takes it back, reset removes it")
    func stored() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let home = try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: KnownPlacesTests.flatA, createdMs: 1))
        try store.setPlaceCorrection(StoredPlaceCorrection(role: .name, coordinate: Self.park, name: " Tan ", fromDay: 20_000, createdMs: 2))
        let renamed = try store.setPlaceCorrection(StoredPlaceCorrection(role: .name, coordinate: Self.tanTrack.coordinate, name: "the Tan track",
                                                                         createdMs: 3))
        #expect(try store.placeCorrections() == [home, renamed], "one name for the place, undated")
        #expect(try PersonsNames(store: store).names == [KnownPlaces.Correction(role: .named, coordinate: Self.tanTrack.coordinate,
                                                                                 name: "the Tan track")])
        let other = try store.setPlaceCorrection(StoredPlaceCorrection(role: .name, coordinate: KnownPlacesTests.office, name: "Nonna's", createdMs: 4))
        let removed = try store.setPlaceCorrection(StoredPlaceCorrection(role: .name, coordinate: Self.park, name: "", createdMs: 5))
        #expect(removed.id == 0)
        #expect(try store.placeCorrections() == [home, other])
        try store.removePlaceCorrections(role: nil)
        #expect(try PersonsNames(store: store).isEmpty)
    }
}
