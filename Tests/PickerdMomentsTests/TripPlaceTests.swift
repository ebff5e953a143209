import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// A trip is named by where its nights were (issue 42: a weekend whose nights were in Katoomba was
/// "3 days in Liverpool", a city about 60 km away, when the gazetteer lacked small towns), never by a
/// city farther from the nights than they are from each other; with no populated place near, by its
/// region.
@Suite("A trip is named by where its nights were")
struct TripPlaceTests {
    static let sydney = TimeZone(identifier: "Australia/Sydney")!
    let builder = SuggestionBuilder(timeZone: Self.sydney)

    /// `hour`:00 on a day of February 2026 in Sydney (daylight saving time, UTC+11), in ms.
    static func at(_ day: Int, _ hour: Int) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = sydney
        let date = calendar.date(from: DateComponents(year: 2026, month: 2, day: day, hour: hour))!
        return Int64(date.timeIntervalSince1970 * 1_000)
    }

    /// A stay at a place, from `from` to `until` (day and hour each).
    static func stay(_ place: String, _ city: String, _ latitude: Double, _ longitude: Double,
                     from: (Int, Int), until: (Int, Int)) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .location(Location(place: place, city: city, location: GeoLocation(latitude: latitude, longitude: longitude))),
                    startMs: at(from.0, from.1), endMs: at(until.0, until.1))
    }

    /// A weekend in the Blue Mountains: Friday to Sunday, two nights at a guesthouse, a hike at
    /// Wentworth Falls and lunches in Sydney on the way, every place named by `city` except the nights.
    func weekend(nightsIn city: String, at latitude: Double = -33.714, _ longitude: Double = 150.312, daysIn other: String) -> [LibraryItem] {
        [Self.stay("Central Station", other, -33.8832, 151.2069, from: (13, 12), until: (13, 13)),
         Self.stay("Guesthouse", city, latitude, longitude, from: (13, 17), until: (14, 9)),
         Self.stay("National Pass, Wentworth Falls", other, -33.73, 150.37, from: (14, 10), until: (14, 15)),
         Self.stay("Lunch", other, -33.8688, 151.2093, from: (14, 16), until: (14, 17)),
         Self.stay("Guesthouse", city, latitude, longitude, from: (14, 18), until: (15, 9)),
         Self.stay("Café", other, -33.8688, 151.2093, from: (15, 12), until: (15, 13))]
    }

    @Test("nights in Katoomba name the trip, though most of its places said Sydney")
    func nightsWin() {
        #expect(builder.title(.trip, weekend(nightsIn: "Katoomba", daysIn: "Sydney")) == "3 days in Katoomba")
        // Without a night (the guesthouse left out), the city most places are in, as before.
        let days = weekend(nightsIn: "Katoomba", daysIn: "Sydney").filter {
            guard case .location(let l) = $0.asset else { return true }
            return l.place != "Guesthouse"
        }
        #expect(builder.title(.trip, days) == "3 days in Sydney")
    }

    @Test("nights a far city named (Liverpool, 60 km from the guesthouse) are named by the gazetteer where they were: not \"3 days in Liverpool\"")
    func notAFarCity() {
        let title = builder.title(.trip, weekend(nightsIn: "Liverpool", daysIn: "Liverpool"))
        #expect(title == "3 days in Katoomba", "\(title)")
    }

    @Test("nights where no town lies are \"near\" the nearest one, within 60 km")
    func nearATown() {
        // A cabin in the valley 12 km south of Katoomba, outside every town's disc.
        let title = builder.title(.trip, weekend(nightsIn: "Liverpool", at: -33.80, 150.22, daysIn: "Liverpool"))
        #expect(title == "3 days near Katoomba", "\(title)")
    }

    @Test("nights with no populated place within 60 km are named by the region")
    func region() {
        // The Simpson Desert: the nearest place of 500 people, Santa Teresa, is 300 km away (the
        // importer names a place's city by the nearest one, however far).
        let title = builder.title(.trip, weekend(nightsIn: "Santa Teresa", at: -25.5, 137.0, daysIn: ""))
        #expect(title == "3 days in Northern Territory", "\(title)")
    }

    @Test("a name the gazetteer does not know is the person's data, and stands; nights with no city name none")
    func theirName() {
        #expect(builder.title(.trip, weekend(nightsIn: "Blue Mtns", daysIn: "Sydney")) == "3 days in Blue Mtns")
        #expect(builder.title(.trip, weekend(nightsIn: "", daysIn: "Sydney")) == "3 days in Sydney")
    }
}
