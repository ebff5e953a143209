import Foundation
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Photos' own place names (their IPTC/XMP location, ``LibraryItem/filePlaceName``) in the naming
/// order: below the person's name and their location data's, above the gazetteer.
@Suite("Photos' own place names in the naming order")
struct PhotoPlaceNamesTests {
    /// The park library of ``PersonsNamesTests`` with its photos naming `photoPlace` (nil: none).
    static func library(dataName: String = "", visit: Bool = false, photoPlace: String?, city: String? = "Porto") -> [LibraryItem] {
        PersonsNamesTests.library(dataName: dataName, visit: visit).map { item in
            guard item.kind == .photo, let photoPlace else { return item }
            var named = item
            named.filePlaceName = photoPlace
            named.filePlaceCity = city
            return named
        }
    }

    @Test("person's name beats the data's, the data's beats the photos' XMP, the photos' XMP beats the gazetteer")
    func order() throws {
        let gazetteers = try PersonsNamesTests.parkTitle(Self.library(photoPlace: nil))
        #expect(!gazetteers.contains("Roseiral"), "\(gazetteers)")
        let photos = try PersonsNamesTests.parkTitle(Self.library(photoPlace: "Roseiral"))
        #expect(photos.contains("Roseiral"), "the photos' own name over the gazetteer's: \(photos)")
        let persons = try PersonsNamesTests.parkTitle(Self.library(photoPlace: "Roseiral"), [PersonsNamesTests.tanTrack])
        #expect(persons.contains("the Tan track") && !persons.contains("Roseiral"), "\(persons)")
        let datas = try PersonsNamesTests.parkTitle(Self.library(dataName: "Parque da Cidade", visit: true, photoPlace: "Roseiral"))
        #expect(datas.contains("Parque da Cidade") && !datas.contains("Roseiral"), "\(datas)")
    }

    @Test("a stay takes the name most of its photos give, its city from them; photos naming none leave it to the gazetteer")
    func stays() throws {
        var items = Self.library(photoPlace: nil)
        let photos = items.indices.filter { items[$0].kind == .photo }
        items[photos[0]].filePlaceName = "Ponte Luís I"
        items[photos[1]].filePlaceName = "Roseiral"
        items[photos[2]].filePlaceName = "Roseiral"
        let stay = try #require(PhotoStays.derive(from: items, owning: Int64.min..<Int64.max).first)
        guard case .location(let location) = stay.asset else { Issue.record("not a place"); return }
        #expect(location.place == "Roseiral")
        // A photo naming only a place and no city keeps the gazetteer's city.
        let gazetteers = try #require(PhotoStays.derive(from: Self.library(photoPlace: nil), owning: Int64.min..<Int64.max).first)
        let noCity = try #require(PhotoStays.derive(from: Self.library(photoPlace: "Roseiral", city: nil), owning: Int64.min..<Int64.max).first)
        guard case .location(let fromGazetteer) = gazetteers.asset, case .location(let named) = noCity.asset else { Issue.record("not a place"); return }
        #expect(named.place == "Roseiral" && named.city == fromGazetteer.city && !fromGazetteer.city.isEmpty, "\(named) \(fromGazetteer)")
    }
}
