import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// Known places from synthetic visits: homes over time (moving house), work, frequent places, and
/// what is neither.
@Suite("Known places")
struct KnownPlacesTests {
    static let zone = TimeZone(identifier: "Europe/Lisbon")!
    // Porto: two flats 2 km apart, an office, a café by the office, a bar 250 m from the first flat.
    static let flatA = Coordinate(latitude: 41.1579, longitude: -8.6291)
    static let flatB = Coordinate(latitude: 41.1450, longitude: -8.6100)
    static let office = Coordinate(latitude: 41.1780, longitude: -8.5960)
    static let cafe = Coordinate(latitude: 41.1790, longitude: -8.5990)
    static let bar = Coordinate(latitude: 41.1579 + 250 / 111_195.0, longitude: -8.6291)

    /// Monday 2 March 2026 (local), plus `day` days, at `hour`.
    static func ms(_ day: Int, _ hour: Double) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let monday = calendar.date(from: DateComponents(year: 2026, month: 3, day: 2))!
        let date = calendar.date(byAdding: .day, value: day, to: monday)!
        return Int64((date.timeIntervalSince1970 + hour * 3_600) * 1000)
    }

    static func visit(_ at: Coordinate, day: Int, from: Double, to: Double, place: String = "", work: Bool? = nil) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .location(Location(place: place, city: "", location: GeoLocation(latitude: at.latitude, longitude: at.longitude),
                                                          isWorkLocation: work)),
                    startMs: ms(day, from), endMs: ms(day, to), source: "import")
    }

    /// `weeks` weeks from `firstWeek`: nights at `home` (19:00 to 08:00 the next morning), weekdays at
    /// the office 09:00–17:30.
    static func life(home: Coordinate, weeks: Range<Int>, homeName: String = "", office: Bool = true) -> [LibraryItem] {
        var items: [LibraryItem] = []
        for day in (weeks.lowerBound * 7)..<(weeks.upperBound * 7) {
            items.append(visit(home, day: day, from: 19, to: 32, place: homeName))
            if office, day % 7 < 5 { items.append(visit(Self.office, day: day, from: 9, to: 17.5, place: "Acme")) }
        }
        return items
    }

    @Test("a person who moves house mid-period has two homes, each with its dates")
    func movingHouse() throws {
        let items = Self.life(home: Self.flatA, weeks: 0..<4) + Self.life(home: Self.flatB, weeks: 4..<8)
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        let homes = places.filter { $0.role == .home }
        try #require(homes.count == 2, "\(places)")
        #expect(homes[0].coordinate.distance(to: Self.flatA) < 5)
        #expect(homes[0].from == nil)
        #expect(homes[0].until == Self.ms(27, 32), "until the morning after the last night in the first flat")
        #expect(homes[1].coordinate.distance(to: Self.flatB) < 5)
        #expect(homes[1].from == Self.ms(28, 19), "from the evening of the first night in the second flat")
        #expect(homes[1].until == nil)
        #expect(homes[0].days == 29, "28 evenings and the last morning; \(homes)")
        #expect(homes[1].days == 29, "28 evenings and the last morning; \(homes)")
        let work = places.filter { $0.role == .work }
        #expect(work.count == 1)
        #expect(work.first?.name == "Acme")
        #expect(work.first?.days == 40)
        // Inside Porto (a city of 250,000), by the neighbourhood whose centre is nearest.
        #expect(homes.map(\.name) == ["Senhora do Porto", "Porto"] && homes.allSatisfy { $0.city == "Porto" },
                "nameless homes are named by the gazetteer: \(homes)")
    }

    @Test("a week away does not move home; a week's trip is not a second home")
    func weekAway() throws {
        let trip = Coordinate(latitude: 38.7139, longitude: -9.1394)
        let items = Self.life(home: Self.flatA, weeks: 0..<3) + Self.life(home: trip, weeks: 3..<4, office: false)
            + Self.life(home: Self.flatA, weeks: 4..<7)
        let homes = KnownPlaces.find(in: items, timeZone: Self.zone).places.filter { $0.role == .home }
        #expect(homes.count == 1 && homes.first.map { $0.coordinate.distance(to: Self.flatA) < 5 && $0.from == nil && $0.until == nil } == true,
                "\(homes)")
    }

    @Test("a three-week holiday between weeks at home is not two moves")
    func holiday() throws {
        let away = Coordinate(latitude: 38.7139, longitude: -9.1394)
        let items = Self.life(home: Self.flatA, weeks: 0..<3) + Self.life(home: away, weeks: 3..<6, office: false)
            + Self.life(home: Self.flatA, weeks: 6..<9)
        let homes = KnownPlaces.find(in: items, timeZone: Self.zone).places.filter { $0.role == .home }
        #expect(homes.count == 1 && homes.first.map { $0.coordinate.distance(to: Self.flatA) < 5 && $0.from == nil && $0.until == nil } == true,
                "\(homes)")
    }

    @Test("a bar 250 m from home visited once is not a known place, and is not home")
    func barOnce() throws {
        let items = Self.life(home: Self.flatA, weeks: 0..<3) + [Self.visit(Self.bar, day: 9, from: 21, to: 23.5, place: "Bar Aduela")]
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        #expect(!places.contains { $0.name == "Bar Aduela" }, "\(places)")
        let home = try #require(places.first { $0.role == .home })
        #expect(home.coordinate.distance(to: Self.flatA) < 1, "the bar's visit is not averaged into home")
        #expect(home.days == 22)
    }

    @Test("the bar 250 m from home visited on five evenings is a frequent place of its own")
    func barOften() throws {
        let items = Self.life(home: Self.flatA, weeks: 0..<3) + [2, 5, 9, 12, 16].map { Self.visit(Self.bar, day: $0, from: 21, to: 23.5, place: "Bar Aduela") }
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        let bar = try #require(places.first { $0.name == "Bar Aduela" }, "\(places)")
        #expect(bar.role == .frequent)
        #expect(bar.days == 5)
        #expect(places.filter { $0.role == .home }.count == 1)
    }

    @Test("a café visited every weekday is frequent, not work")
    func cafeEveryWeekday() throws {
        let lunches = (0..<21).filter { $0 % 7 < 5 }.map { Self.visit(Self.cafe, day: $0, from: 12.5, to: 13.25, place: "Café Guarany") }
        let items = Self.life(home: Self.flatA, weeks: 0..<3) + lunches
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        let cafe = try #require(places.first { $0.name == "Café Guarany" }, "\(places)")
        #expect(cafe.role == .frequent)
        #expect(cafe.days == 15)
        #expect(places.filter { $0.role == .work }.map(\.name) == ["Acme"])
    }

    @Test("without an office, weekday lunches at a café make no work place")
    func noOffice() {
        let lunches = (0..<21).filter { $0 % 7 < 5 }.map { Self.visit(Self.cafe, day: $0, from: 12.5, to: 13.25, place: "Café Guarany") }
        let places = KnownPlaces.find(in: Self.life(home: Self.flatA, weeks: 0..<3, office: false) + lunches, timeZone: Self.zone).places
        #expect(places.map(\.role) == [.home, .frequent])
    }

    @Test("the data's labels win: a night shift at a place marked work, home where a visit is named Home")
    func labelsWin() throws {
        var items: [LibraryItem] = []
        for day in 0..<21 {
            // Nights at the hospital (marked work), days asleep at home (named Home).
            items.append(Self.visit(Self.office, day: day, from: 22, to: 30, place: "Hospital", work: true))
            items.append(Self.visit(Self.flatA, day: day + 1, from: 6.5, to: 21, place: "Home"))
        }
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        #expect(places.filter { $0.role == .home }.map(\.name) == ["Home"], "\(places)")
        #expect(places.filter { $0.role == .work }.map(\.name) == ["Hospital"], "\(places)")
    }

    @Test("a hotel abroad is reckoned in its own time: its nights are nights, not a working day at home's clock")
    func hotelAbroad() throws {
        let hotel = Coordinate(latitude: 21.2793, longitude: -157.8292)  // Honolulu, UTC−10
        let offset: Int32 = -36_000
        // The third week in Honolulu: 22:00–08:00 local at the hotel, which is 09:00–19:00 in Lisbon.
        let nights = (14..<21).map { day in
            LibraryItem(id: UUID(), asset: .location(Location(place: "Hale Kai Inn", location: GeoLocation(latitude: hotel.latitude, longitude: hotel.longitude))),
                        startMs: Self.ms(day, 22 + 10), endMs: Self.ms(day, 32 + 10), source: "import", utcOffsetSeconds: offset)
        }
        let items = Self.life(home: Self.flatA, weeks: 0..<2, office: false) + nights + Self.life(home: Self.flatA, weeks: 3..<5, office: false)
        let places = KnownPlaces.find(in: items, timeZone: Self.zone).places
        #expect(!places.contains { $0.role == .work }, "\(places)")
        #expect(places.filter { $0.role == .home }.count == 1, "one week away is no move: \(places)")
        let inn = try #require(places.first { $0.name == "Hale Kai Inn" })
        #expect(inn.role == .frequent)
        #expect(inn.days == 8)
    }

    @Test("no visits, no places")
    func empty() {
        #expect(KnownPlaces.find(in: [], timeZone: Self.zone).places.isEmpty)
    }

    /// The local day (days since 1970) of Monday 2 March 2026 plus `day`.
    static func day(_ day: Int) -> Int { Civil.days(year: 2026, month: 3, day: 2) + day }

    @Test("the person's home wins over the nights: the found home is no longer home, the declared one is, named by its visits")
    func declaredHome() throws {
        // Most nights at flat A; the person says home is flat B (where they spend weekends).
        var items = Self.life(home: Self.flatA, weeks: 0..<4)
        for week in 0..<4 { items.append(Self.visit(Self.flatB, day: week * 7 + 5, from: 10, to: 18, place: "Casa Nova")) }
        let found = KnownPlaces.find(in: items, timeZone: Self.zone).places
        #expect(found.first { $0.role == .home }.map { $0.coordinate.distance(to: Self.flatA) < 5 && !$0.isPersonsWord } == true, "\(found)")
        let word = KnownPlaces.Correction(role: .home, coordinate: Coordinate(latitude: Self.flatB.latitude + 0.0005, longitude: Self.flatB.longitude))
        let places = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [word]).places
        let homes = places.filter { $0.role == .home }
        #expect(homes.count == 1 && homes[0].isPersonsWord && homes[0].name == "Casa Nova" && homes[0].days == 4
                && homes[0].coordinate == word.coordinate && homes[0].from == nil && homes[0].until == nil, "\(homes)")
        // The flat of most nights is no home now: visited on 28 days, it is a frequent place.
        #expect(places.contains { $0.role == .frequent && $0.coordinate.distance(to: Self.flatA) < 5 && $0.days == 29 }, "\(places)")
        #expect(places.filter { $0.role == .work }.map(\.name) == ["Acme"])
    }

    @Test("a home from a day on: what was found holds until that day, the declared home from its midnight; a later word cuts the earlier")
    func declaredMove() throws {
        let items = Self.life(home: Self.flatA, weeks: 0..<4) + Self.life(home: Self.flatB, weeks: 4..<5)
        // A week in the new flat is no move to the votes (two weeks are).
        #expect(KnownPlaces.find(in: items, timeZone: Self.zone).places.filter { $0.role == .home }.count == 1)
        let moved = KnownPlaces.Correction(role: .home, coordinate: Self.flatB, name: "New flat", fromDay: Self.day(28))
        let homes = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [moved]).places.filter { $0.role == .home }
        try #require(homes.count == 2, "\(homes)")
        #expect(!homes[0].isPersonsWord)
        #expect(homes[0].coordinate.distance(to: Self.flatA) < 5)
        #expect(homes[0].until == Self.ms(28, 0))
        #expect(homes[1].isPersonsWord)
        #expect(homes[1].name == "New flat")
        #expect(homes[1].from == Self.ms(28, 0))
        #expect(homes[1].until == nil)
        #expect(homes[1].days == 8, "seven evenings and the last morning: \(homes[1])")
        // An undated word and a dated one: the undated holds until the dated one's day.
        let always = KnownPlaces.Correction(role: .home, coordinate: Self.flatA, name: "Old flat")
        let both = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [moved, always]).places.filter { $0.role == .home }
        #expect(both.map(\.name) == ["Old flat", "New flat"] && both.allSatisfy(\.isPersonsWord)
                && both[0].from == nil && both[0].until == Self.ms(28, 0), "\(both)")
    }

    @Test("the person's work: found work is only frequent, the declared place is work and spends no night as home")
    func declaredWork() throws {
        let items = Self.life(home: Self.flatA, weeks: 0..<3)
        let word = KnownPlaces.Correction(role: .work, coordinate: Self.cafe, name: "Studio")
        let places = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [word]).places
        #expect(places.filter { $0.role == .work }.map { "\($0.name) \($0.isPersonsWord) \($0.days)" } == ["Studio true 0"], "\(places)")
        #expect(places.contains { $0.role == .frequent && $0.name == "Acme" }, "\(places)")
        // Declared work at the flat of most nights: its nights are no home's.
        let atHome = KnownPlaces.find(in: items, timeZone: Self.zone, corrections: [KnownPlaces.Correction(role: .work, coordinate: Self.flatA)]).places
        #expect(!atHome.contains { $0.role == .home && $0.coordinate.distance(to: Self.flatA) < 5 }, "\(atHome)")
    }

    @Test("with no visits at all, the person's word is still known")
    func declaredWithoutVisits() {
        let places = KnownPlaces.find(in: [], timeZone: Self.zone, corrections: [KnownPlaces.Correction(role: .home, coordinate: Self.flatB, name: "Home")]).places
        #expect(places.map { "\($0.role) \($0.name) \($0.days) \($0.isPersonsWord)" } == ["home Home 0 true"])
    }
}
