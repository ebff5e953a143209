import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

/// A large personal library, made up for benchmarks and tests: one to ten years of a life in
/// Portland, Oregon, with trips abroad, workouts, music, moods, friends and exactly as many photos
/// as asked for.
///
/// Deterministic: the same `photos` and `endingAtMs` give the same items, ids and file bytes every
/// time. The library is made month by month, so memory stays bounded by one month of it.
///
/// What it holds:
/// - a home ("Home"), an office on weekdays, a few dozen named places around Portland, day trips to
///   the coast and the Gorge, and three or four trips abroad a year (Lisbon, Tokyo, Kyoto, Mexico City,
///   Reykjavík, Montréal, Copenhagen, Honolulu, Sydney, Buenos Aires), each item in its own time zone;
/// - significant-location visits every day: nights at home or at a hotel, the office, outings;
/// - photos clustered at outings, walks, dinners and trips (much denser abroad), about 8 % Live
///   Photos and 4 % videos, most with GPS; about 5 % screenshots, a few scans and some bursts, marked
///   as not memories (``NotAMemory``);
/// - three or four workouts a week with routes and motion, a weekly workout summary on Sundays;
/// - songs, commute podcasts and book chapters; a daily mood most evenings and momentary ones after
///   outings and workouts; reflection prompts every few days; thirty contacts who come to dinner.
public struct ScaleLibrary: Sendable {
    /// How many photos, Live Photos and videos the library holds, exactly (screenshots, scans and
    /// the extra frames of bursts included).
    public let photos: Int
    /// How many years the library spans: one for every 20,000 photos, rounded up, from 1 to 10.
    public let years: Int
    /// When the library ends, ms since 1970: its last day is the Portland day before the one this
    /// falls on.
    let endingAtMs: Int64

    /// Describes a scale library; nothing is made until it is read.
    /// - Parameters:
    ///   - photos: how many photos, Live Photos and videos to make, 0 or more.
    ///   - endingAtMs: when the library ends, ms since 1970 (by default 21 November 2026, 00:00 UTC).
    public init(photos: Int, endingAtMs: Int64 = 1_795_132_800_000 /* 2026-11-21T00:00:00Z */) {
        precondition(photos >= 0, "a library cannot hold \(photos) photos")
        self.photos = photos
        self.years = max(1, min(10, Int((Double(photos) / 20_000).rounded(.up))))
        self.endingAtMs = endingAtMs
    }

    /// The library month by month, oldest first, each month's items sorted by start time.
    ///
    /// An item belongs to the month of the local day that made it (a week's workout summary to its
    /// Sunday, a trip's group of places to its last day), so a group's start may fall in an earlier
    /// month. Shared files (icons, artwork, contact photos) come with every item that uses them,
    /// under the same path. Calls `body` once per month, with a stage name such as "2024-07".
    /// - Parameter body: receives each month's stage name and items.
    /// - Throws: whatever `body` throws, which ends the walk.
    func forEachMonth(_ body: (_ stage: String, _ items: [GeneratedItem]) throws -> Void) rethrows {
        var maker = ScaleMaker(photos: photos, years: years, endingAtMs: endingAtMs)
        maker.plan()
        var month = Int.min
        var batch: [GeneratedItem] = []
        func stage(_ key: Int) -> String { "\(key / 12)-" + Civil.digits(key % 12 + 1, 2) }
        for index in maker.days.indices {
            let date = Civil.date(maker.days[index].date)
            let key = date.year * 12 + date.month - 1
            if key != month {
                if !batch.isEmpty {
                    batch.sort { $0.item.startMs < $1.item.startMs }
                    try body(stage(month), batch)
                    batch.removeAll(keepingCapacity: true)
                }
                month = key
            }
            maker.render(index, into: &batch)
        }
        if !batch.isEmpty {
            batch.sort { $0.item.startMs < $1.item.startMs }
            try body(stage(month), batch)
        }
    }
}

/// A time zone's offset from UTC by its daylight-saving rule (the rules in force since 2007).
enum ZoneRule: Sendable {
    /// No daylight saving.
    case fixed(Int32)
    /// The US and Canada: second Sunday of March 2:00 to first Sunday of November 2:00, local.
    case northAmerica(Int32)
    /// The EU: last Sunday of March to last Sunday of October, 01:00 UTC.
    case europe(Int32)
    /// Mexico until 2022: first Sunday of April to last Sunday of October, 2:00 local; none since.
    case mexico(Int32)
    /// South-east Australia: first Sunday of October 2:00 to first Sunday of April 3:00, local.
    case australia(Int32)

    /// The offset in seconds at an instant.
    /// - Parameter seconds: seconds since 1970, UTC.
    func offset(atUTC seconds: Int64) -> Int32 {
        let hour: Int64 = 3600
        func year(_ standard: Int32) -> Int { Civil.date(Int(Civil.floorDiv(seconds + Int64(standard), 86_400))).year }
        func at(_ day: Int) -> Int64 { Int64(day) * 86_400 }
        switch self {
        case .fixed(let standard):
            return standard
        case .northAmerica(let standard):
            let y = year(standard), std = Int64(standard)
            let start = at(Civil.sunday(y, 3, nth: 2)) + 2 * hour - std
            let end = at(Civil.sunday(y, 11, nth: 1)) + 2 * hour - std - hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .europe(let standard):
            let y = year(standard)
            let start = at(Civil.lastSunday(y, 3)) + hour, end = at(Civil.lastSunday(y, 10)) + hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .mexico(let standard):
            let y = year(standard), std = Int64(standard)
            guard y < 2023 else { return standard }
            let start = at(Civil.sunday(y, 4, nth: 1)) + 2 * hour - std
            let end = at(Civil.lastSunday(y, 10)) + 2 * hour - std - hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .australia(let standard):
            let y = year(standard), std = Int64(standard)
            let end = at(Civil.sunday(y, 4, nth: 1)) + 3 * hour - std - hour
            let start = at(Civil.sunday(y, 10, nth: 1)) + 2 * hour - std
            return seconds < end || seconds >= start ? standard + 3600 : standard
        }
    }

    /// The offset at noon, local time, of a day.
    /// - Parameter date: days since 1970-01-01 in local time.
    func offset(atNoonOf date: Int) -> Int32 {
        let noon = Int64(date) * 86_400 + 43_200
        return offset(atUTC: noon - Int64(offset(atUTC: noon)))
    }
}

// MARK: - The cast

/// A city abroad the person travels to.
struct Destination: Sendable {
    var city: String
    var zone: ZoneRule
    /// The IANA name of its time zone (the tests check ``zone`` against it).
    var zoneIdentifier: String
    var flightHours: Double
    var hotel: Place
    var airport: Place
    var sights: [Place]
    var food: [Place]
}

/// The people, places, music and books of the scale library.
enum ScaleCast {
    static let homeZone = ZoneRule.northAmerica(-8 * 3600)
    static let homeZoneIdentifier = "America/Los_Angeles"

    static func pdx(_ name: String, _ latitude: Double, _ longitude: Double, _ scene: Place.Scene, city: String = "Portland") -> Place {
        Place(name: name, city: city, latitude: latitude, longitude: longitude, scene: scene)
    }

    static let home = pdx("Home", 45.5122, -122.6296, .indoor)
    static let office = Place(name: "Office", city: "Portland", latitude: 45.5262, longitude: -122.6800, isWork: true, scene: .city)
    static let airport = pdx("Portland International Airport", 45.5898, -122.5951, .city)
    static let forestPark = pdx("Forest Park", 45.5700, -122.7600, .park)
    static let laurelhurst = pdx("Laurelhurst Park", 45.5210, -122.6255, .park)
    static let wildwood = pdx("Wildwood Trail", 45.5290, -122.7160, .mountain)
    static let mountTabor = pdx("Mount Tabor", 45.5118, -122.5945, .park)
    static let eastbank = pdx("Eastbank Esplanade", 45.5152, -122.6675, .river)
    static let waterfront = pdx("Tom McCall Waterfront Park", 45.5160, -122.6730, .river)
    static let japaneseGarden = pdx("Portland Japanese Garden", 45.5188, -122.7080, .park)
    static let leifErikson = pdx("Leif Erikson Drive", 45.5560, -122.7460, .park)
    static let springwater = pdx("Springwater Corridor", 45.4850, -122.6440, .river)
    static let marquam = pdx("Marquam Trail", 45.4990, -122.6950, .mountain)
    static let powellButte = pdx("Powell Butte", 45.4890, -122.4980, .park)
    static let bookshop = pdx("Alder Street Books", 45.5190, -122.6810, .indoor)
    static let market = pdx("Portland Saturday Market", 45.5225, -122.6705, .city)

    static let runs = [eastbank, laurelhurst, waterfront, leifErikson]
    static let walks = [mountTabor, laurelhurst, japaneseGarden, waterfront, eastbank, forestPark]
    static let trails = [wildwood, forestPark, marquam, powellButte]
    static let rides = [springwater, eastbank, leifErikson]
    static let cafes = [pdx("Fern & Ember Coffee", 45.5140, -122.6360, .food), pdx("Little Heron Café", 45.5230, -122.6440, .food),
                        pdx("Rosewood Bakery", 45.5360, -122.6510, .food)]
    static let restaurants = [pdx("Salt Cellar Kitchen", 45.5200, -122.6570, .food), pdx("Nine Pines Ramen", 45.5050, -122.6530, .food),
                              pdx("Mercado Azul", 45.5590, -122.6470, .food), pdx("Olive & Ash", 45.5045, -122.6500, .food),
                              pdx("Thistle Tavern", 45.5565, -122.6620, .food)]
    static let lunchSpots = [pdx("Lantern & Oak", 45.5275, -122.6850, .food), pdx("Pearl Noodle Bar", 45.5290, -122.6815, .food),
                             pdx("Green Fig Deli", 45.5250, -122.6790, .food)]
    static let afternoons = [mountTabor, laurelhurst, japaneseGarden, waterfront, forestPark, bookshop, market]
    static let dayTrips: [[Place]] = [
        [pdx("Cannon Beach", 45.8918, -123.9615, .river, city: "Cannon Beach"), pdx("Haystack Rock", 45.8840, -123.9687, .river, city: "Cannon Beach")],
        [pdx("Multnomah Falls", 45.5762, -122.1158, .mountain, city: "Bridal Veil"), pdx("Hood River Waterfront", 45.7130, -121.5140, .river, city: "Hood River")],
        [pdx("Timberline Lodge", 45.3311, -121.7110, .mountain, city: "Government Camp")],
    ]

    static func abroad(_ name: String, _ city: String, _ latitude: Double, _ longitude: Double, _ scene: Place.Scene) -> Place {
        Place(name: name, city: city, latitude: latitude, longitude: longitude, scene: scene)
    }

    static let destinations: [Destination] = [
        Destination(city: "Lisbon", zone: .europe(0), zoneIdentifier: "Europe/Lisbon", flightHours: 13,
                    hotel: abroad("Casa do Largo", "Lisbon", 38.7115, -9.1300, .indoor),
                    airport: abroad("Lisbon Airport", "Lisbon", 38.7742, -9.1342, .city),
                    sights: [abroad("Alfama", "Lisbon", 38.7114, -9.1299, .city),
                             abroad("Miradouro da Senhora do Monte", "Lisbon", 38.7193, -9.1326, .city),
                             abroad("Belém Tower", "Lisbon", 38.6916, -9.2160, .river),
                             abroad("Jerónimos Monastery", "Lisbon", 38.6979, -9.2068, .indoor),
                             abroad("LX Factory", "Lisbon", 38.7036, -9.1784, .city),
                             abroad("Praça do Comércio", "Lisbon", 38.7075, -9.1364, .river)],
                    food: [abroad("Time Out Market", "Lisbon", 38.7069, -9.1459, .food),
                           abroad("Tasca do Chico", "Lisbon", 38.7118, -9.1443, .food),
                           abroad("Pastéis de Belém", "Lisbon", 38.6975, -9.2033, .food)]),
        Destination(city: "Tokyo", zone: .fixed(9 * 3600), zoneIdentifier: "Asia/Tokyo", flightHours: 11,
                    hotel: abroad("Hotel Kinmokusei", "Tokyo", 35.6938, 139.7034, .indoor),
                    airport: abroad("Haneda Airport", "Tokyo", 35.5494, 139.7798, .city),
                    sights: [abroad("Shibuya Crossing", "Tokyo", 35.6595, 139.7005, .city),
                             abroad("Meiji Jingu", "Tokyo", 35.6764, 139.6993, .park),
                             abroad("Senso-ji", "Tokyo", 35.7148, 139.7967, .city),
                             abroad("Shinjuku Gyoen", "Tokyo", 35.6852, 139.7101, .park),
                             abroad("Yanaka Ginza", "Tokyo", 35.7277, 139.7659, .city),
                             abroad("Sumida River Walk", "Tokyo", 35.7101, 139.8016, .river)],
                    food: [abroad("Tsukiji Outer Market", "Tokyo", 35.6654, 139.7707, .food),
                           abroad("Omoide Yokocho", "Tokyo", 35.6930, 139.6996, .food),
                           abroad("Kissa Hoshizora", "Tokyo", 35.7025, 139.7745, .food)]),
        Destination(city: "Kyoto", zone: .fixed(9 * 3600), zoneIdentifier: "Asia/Tokyo", flightHours: 12,
                    hotel: abroad("Ryokan Hanare", "Kyoto", 35.0037, 135.7760, .indoor),
                    airport: abroad("Kansai Airport", "Izumisano", 34.4320, 135.2304, .city),
                    sights: [abroad("Fushimi Inari Taisha", "Kyoto", 34.9671, 135.7727, .mountain),
                             abroad("Arashiyama Bamboo Grove", "Kyoto", 35.0170, 135.6713, .park),
                             abroad("Philosopher's Path", "Kyoto", 35.0270, 135.7946, .river),
                             abroad("Kiyomizu-dera", "Kyoto", 34.9949, 135.7850, .mountain),
                             abroad("Kamo River", "Kyoto", 35.0116, 135.7715, .river),
                             abroad("Kinkaku-ji", "Kyoto", 35.0394, 135.7292, .park)],
                    food: [abroad("Nishiki Market", "Kyoto", 35.0050, 135.7648, .food),
                           abroad("Pontocho Alley", "Kyoto", 35.0050, 135.7707, .food),
                           abroad("Kissa Tsubame", "Kyoto", 35.0089, 135.7681, .food)]),
        Destination(city: "Mexico City", zone: .mexico(-6 * 3600), zoneIdentifier: "America/Mexico_City", flightHours: 5,
                    hotel: abroad("Casa Jacaranda", "Mexico City", 19.4150, -99.1650, .indoor),
                    airport: abroad("Mexico City Airport", "Mexico City", 19.4361, -99.0719, .city),
                    sights: [abroad("Zócalo", "Mexico City", 19.4326, -99.1332, .city),
                             abroad("Bosque de Chapultepec", "Mexico City", 19.4204, -99.1819, .park),
                             abroad("Museo Frida Kahlo", "Mexico City", 19.3551, -99.1625, .indoor),
                             abroad("Xochimilco", "Mexico City", 19.2571, -99.1036, .river),
                             abroad("Roma Norte", "Mexico City", 19.4180, -99.1600, .city),
                             abroad("Palacio de Bellas Artes", "Mexico City", 19.4352, -99.1412, .city)],
                    food: [abroad("Mercado de Coyoacán", "Mexico City", 19.3500, -99.1620, .food),
                           abroad("Taquería El Farolito", "Mexico City", 19.4120, -99.1700, .food),
                           abroad("Café Nube", "Mexico City", 19.4195, -99.1580, .food)]),
        Destination(city: "Reykjavík", zone: .fixed(0), zoneIdentifier: "Atlantic/Reykjavik", flightHours: 8,
                    hotel: abroad("Hótel Fjara", "Reykjavík", 64.1466, -21.9400, .indoor),
                    airport: abroad("Keflavík Airport", "Keflavík", 63.9850, -22.6056, .city),
                    sights: [abroad("Hallgrímskirkja", "Reykjavík", 64.1417, -21.9266, .city),
                             abroad("Harpa", "Reykjavík", 64.1504, -21.9325, .city),
                             abroad("Sun Voyager", "Reykjavík", 64.1476, -21.9223, .river),
                             abroad("Þingvellir", "Bláskógabyggð", 64.2559, -21.1299, .mountain),
                             abroad("Gullfoss", "Bláskógabyggð", 64.3271, -20.1199, .mountain),
                             abroad("Sky Lagoon", "Kópavogur", 64.1134, -21.9603, .river)],
                    food: [abroad("Kaffi Vinyl", "Reykjavík", 64.1459, -21.9270, .food),
                           abroad("Grandi Mathöll", "Reykjavík", 64.1530, -21.9500, .food),
                           abroad("Bæjarins Beztu", "Reykjavík", 64.1482, -21.9366, .food)]),
        Destination(city: "Montréal", zone: .northAmerica(-5 * 3600), zoneIdentifier: "America/Toronto", flightHours: 5.5,
                    hotel: abroad("Hôtel Le Carré", "Montréal", 45.5170, -73.5690, .indoor),
                    airport: abroad("Montréal-Trudeau Airport", "Dorval", 45.4706, -73.7408, .city),
                    sights: [abroad("Mont Royal", "Montréal", 45.5048, -73.5878, .mountain),
                             abroad("Old Port", "Montréal", 45.5075, -73.5540, .river),
                             abroad("Plateau Mont-Royal", "Montréal", 45.5225, -73.5800, .city),
                             abroad("Musée des beaux-arts", "Montréal", 45.4985, -73.5794, .indoor),
                             abroad("Parc La Fontaine", "Montréal", 45.5270, -73.5690, .park),
                             abroad("Lachine Canal", "Montréal", 45.4830, -73.5800, .river)],
                    food: [abroad("Jean-Talon Market", "Montréal", 45.5363, -73.6147, .food),
                           abroad("Boulangerie du Mile End", "Montréal", 45.5230, -73.6000, .food),
                           abroad("Chez Lucienne", "Montréal", 45.5210, -73.5750, .food)]),
        Destination(city: "Copenhagen", zone: .europe(3600), zoneIdentifier: "Europe/Copenhagen", flightHours: 12,
                    hotel: abroad("Hotel Lindehus", "Copenhagen", 55.6830, 12.5800, .indoor),
                    airport: abroad("Copenhagen Airport", "Kastrup", 55.6180, 12.6508, .city),
                    sights: [abroad("Nyhavn", "Copenhagen", 55.6798, 12.5911, .river),
                             abroad("Tivoli Gardens", "Copenhagen", 55.6737, 12.5681, .park),
                             abroad("Superkilen", "Copenhagen", 55.6999, 12.5428, .city),
                             abroad("Louisiana Museum", "Humlebæk", 55.9690, 12.5431, .indoor),
                             abroad("Kastellet", "Copenhagen", 55.6910, 12.5950, .park),
                             abroad("Christianshavn Canals", "Copenhagen", 55.6730, 12.5930, .river)],
                    food: [abroad("Torvehallerne", "Copenhagen", 55.6838, 12.5705, .food),
                           abroad("Reffen", "Copenhagen", 55.6930, 12.6080, .food),
                           abroad("Bageriet Hygge", "Copenhagen", 55.6760, 12.5680, .food)]),
        Destination(city: "Honolulu", zone: .fixed(-10 * 3600), zoneIdentifier: "Pacific/Honolulu", flightHours: 6,
                    hotel: abroad("Hale Kai Inn", "Honolulu", 21.2790, -157.8290, .indoor),
                    airport: abroad("Daniel K. Inouye Airport", "Honolulu", 21.3187, -157.9225, .city),
                    sights: [abroad("Waikīkī Beach", "Honolulu", 21.2766, -157.8270, .river),
                             abroad("Diamond Head", "Honolulu", 21.2614, -157.8057, .mountain),
                             abroad("Mānoa Falls", "Honolulu", 21.3326, -157.8003, .park),
                             abroad("Hanauma Bay", "Honolulu", 21.2690, -157.6938, .river),
                             abroad("Chinatown", "Honolulu", 21.3120, -157.8620, .city),
                             abroad("Ala Moana Beach Park", "Honolulu", 21.2890, -157.8480, .river)],
                    food: [abroad("Kaimukī Poke Shop", "Honolulu", 21.2790, -157.8000, .food),
                           abroad("Shave Ice Shack", "Honolulu", 21.2810, -157.8250, .food),
                           abroad("Plantation Café", "Honolulu", 21.2850, -157.8350, .food)]),
        Destination(city: "Sydney", zone: .australia(10 * 3600), zoneIdentifier: "Australia/Sydney", flightHours: 15,
                    hotel: abroad("Harbour View Rooms", "Sydney", -33.8610, 151.2080, .indoor),
                    airport: abroad("Sydney Airport", "Sydney", -33.9399, 151.1753, .city),
                    sights: [abroad("Sydney Opera House", "Sydney", -33.8568, 151.2153, .city),
                             abroad("Bondi to Coogee Walk", "Sydney", -33.8915, 151.2767, .river),
                             abroad("Royal Botanic Garden", "Sydney", -33.8642, 151.2166, .park),
                             abroad("The Rocks", "Sydney", -33.8599, 151.2090, .city),
                             abroad("Manly Ferry", "Sydney", -33.8000, 151.2850, .river),
                             abroad("Blue Mountains", "Katoomba", -33.7320, 150.3120, .mountain)],
                    food: [abroad("Surry Hills Canteen", "Sydney", -33.8860, 151.2110, .food),
                           abroad("Fish Market Wharf", "Sydney", -33.8730, 151.1920, .food),
                           abroad("Flat White Lane", "Sydney", -33.8700, 151.2070, .food)]),
        Destination(city: "Buenos Aires", zone: .fixed(-3 * 3600), zoneIdentifier: "America/Argentina/Buenos_Aires", flightHours: 12,
                    hotel: abroad("Casa Ombú", "Buenos Aires", -34.5900, -58.4200, .indoor),
                    airport: abroad("Ezeiza Airport", "Ezeiza", -34.8222, -58.5358, .city),
                    sights: [abroad("La Boca", "Buenos Aires", -34.6345, -58.3631, .city),
                             abroad("Recoleta Cemetery", "Buenos Aires", -34.5875, -58.3933, .city),
                             abroad("Palermo Woods", "Buenos Aires", -34.5723, -58.4170, .park),
                             abroad("Teatro Colón", "Buenos Aires", -34.6010, -58.3831, .indoor),
                             abroad("Puerto Madero", "Buenos Aires", -34.6118, -58.3633, .river),
                             abroad("Plaza de Mayo", "Buenos Aires", -34.6083, -58.3722, .city)],
                    food: [abroad("San Telmo Market", "Buenos Aires", -34.6212, -58.3714, .food),
                           abroad("Parrilla Don Julio", "Buenos Aires", -34.5860, -58.4250, .food),
                           abroad("Café Tortoni", "Buenos Aires", -34.6088, -58.3780, .food)]),
    ]

    /// Name, and whether they have a photo of their own. The first twelve are there from the start.
    static let contacts: [(String, Bool)] = [
        ("Maya Okafor", true), ("Daniel Reyes", true), ("Priya Natarajan", true), ("Sam Whitaker", false),
        ("Lena Fischer", true), ("Tom Becker", false), ("Jonah Park", true), ("Aisha Rahman", true),
        ("Marco Bellini", false), ("Hannah Lindgren", true), ("Keiko Tanaka", true), ("Diego Alvarez", false),
        ("Chloe Martin", true), ("Ravi Shah", true), ("Elena Petrova", false), ("Owen Gallagher", true),
        ("Fatima Haddad", true), ("Lucas Moreau", false), ("Grace Kim", true), ("Noah Friedman", true),
        ("Sofia Rossi", false), ("Ben Adeyemi", true), ("Isla MacLeod", true), ("Mateo Cruz", false),
        ("Zoe Papadopoulos", true), ("Ethan Brooks", true), ("Amara Nwosu", false), ("Felix Wagner", true),
        ("Nina Kowalski", true), ("Theo Laurent", false),
    ]

    /// Album, artist, songs: forty songs by twelve artists.
    static let albums: [(String, String, [String])] = [
        ("Low Water", "The Tideline", ["Harbor Lights", "Salt in the Air", "Undertow", "Foghorn Lullaby"]),
        ("Paper Maps", "Kestrel & Fig", ["Northbound", "Open Road Hymn", "Folded Corners"]),
        ("Platform Nine", "Mira Vale", ["Late Trains", "Slow Orbit", "Station Light", "Night Bus"]),
        ("Antenna", "Oslo Kids", ["Bright Static", "Run the River", "Signal Fire"]),
        ("Field Notes", "Juniper Lane", ["Copper Sky", "Small Hours", "Wildflower Year"]),
        ("Cedar Smoke", "Hollow Pines", ["Timberline", "Rain on Tin", "Ember Season", "Moss and Stone"]),
        ("Luz de Tarde", "Luz Serrano", ["Tarde Dorada", "Mar Abierto", "Bailando Sola"]),
        ("Crossings", "The Night Ferries", ["Last Ferry Out", "Lantern Bay", "Midnight Deck"]),
        ("Sunday Kitchen", "Arlo Brightwater", ["Coffee for Two", "Window Seat", "Saturday Song"]),
        ("Satellite Hearts", "Velvet Atlas", ["Neon Tides", "Gravity Waltz", "Satellite Hearts"]),
        ("Letters Home", "Nora Quill", ["Dear October", "Postmark", "Quiet Street"]),
        ("Bloom Cycle", "Glass Orchard", ["Petals in Reverse", "Greenhouse", "Seedling", "Orchard Light"]),
    ]

    /// Show, the number of its first episode, and what its episodes are about.
    static let podcasts: [(String, Int, [String])] = [
        ("Quiet Hours", 84, ["Slow mornings", "The art of the walk", "Letters we never sent", "Rest as a skill", "Notes from a garden"]),
        ("Small Experiments", 31, ["How habits stick", "Sleep, revisited", "A month without sugar", "Cold showers", "Reading more"]),
        ("City Field Guide", 120, ["Bridges of Portland", "Urban coyotes", "The river's old names", "Rain gardens", "Street trees"]),
        ("The Long Commute", 12, ["Why buses bunch", "Bikes in the rain", "The last streetcar", "Night trains", "Walking cities"]),
        ("Trailhead Radio", 57, ["The Wildwood at dawn", "Packing light", "Mushroom season", "Reading a topo map", "Leave no trace"]),
    ]

    /// Title, author, chapters: what the person reads in the evenings (a made-up reading app).
    static let books: [(String, String, Int)] = [
        ("The Long Coast", "A. R. Whitfield", 24), ("Salt Roads", "Imogen Hale", 30),
        ("The Cartographer's Daughter", "Tomas Ferreira", 28), ("Winter Orchard", "Ada Lindqvist", 20),
        ("A Field Guide to Small Things", "Ren Okabe", 18), ("The Lighthouse Ledger", "Marguerite Oyelaran", 32),
        ("Rivers of the North", "Callum Reid", 22), ("Paper Lanterns", "Yuki Morimoto", 26),
    ]
    static let readingApp = "com.example.inkwell"

    /// A file name for a title: lower case, dashes for spaces, letters and digits only.
    static func slug(_ text: String) -> String {
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) {
                out.unicodeScalars.append(scalar)
            } else if scalar == " " || scalar == "-", out.last != "-" {
                out.append("-")
            }
        }
        return out
    }

    /// Initials of a name or title ("Paper Maps" → "PM").
    static func initials(_ text: String) -> String {
        String(text.split(separator: " ").compactMap(\.first).prefix(2))
    }
}

// MARK: - Pre-rendered media

/// The scale library's pictures and clips, drawn once: each photo re-encodes only its PNG with its
/// own EXIF, so every photo is a file of its own with its own date at little cost.
struct ScalePools {
    /// A PNG split around the place of its `eXIf` chunk (after IHDR, before IDAT).
    struct Still {
        var head: [UInt8]
        var tail: [UInt8]
        var width: UInt32
        var height: UInt32

        init(_ raster: Raster) {
            let png = PNG.encode(raster)
            head = Array(png[0..<33])  // signature (8) + IHDR chunk (25)
            tail = Array(png[33...])
            width = UInt32(raster.width)
            height = UInt32(raster.height)
        }

        /// The PNG with `exif` in an `eXIf` chunk: the same bytes `PNG.encode(raster, exif:)` makes.
        func png(exif: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(head.count + tail.count + exif.count + 12)
            out += head
            out += bigEndian(UInt32(exif.count))
            var typed: [UInt8] = [0x65, 0x58, 0x49, 0x66]  // "eXIf"
            typed += exif
            out += typed
            out += bigEndian(CRC32.checksum(typed))
            out += tail
            return out
        }
    }

    /// A finished Y4M clip.
    struct Clip {
        var bytes: [UInt8]
        var width: UInt32
        var height: UInt32
        var durationMs: Int64
    }

    static let scenes: [Place.Scene] = [.park, .city, .mountain, .food, .indoor, .river]
    static let lightHours = [6.5, 12.0, 17.5, 20.5]
    static let variants = 4

    var stills: [[[Still]]] = []   // scene, light, variant
    var live: [[Clip]] = []        // scene, light
    var videos: [[Clip]] = []      // scene, light
    var screens: [Still] = []
    var scans: [Still] = []

    static func scene(_ scene: Place.Scene) -> Int {
        switch scene {
        case .park: 0
        case .city: 1
        case .mountain: 2
        case .food: 3
        case .indoor: 4
        case .river: 5
        }
    }

    /// The light of a local hour, as the demo's painter draws it.
    static func light(_ hour: Double) -> Int {
        switch hour {
        case ..<7.5: 0
        case ..<16: 1
        case ..<18.5: 2
        default: 3
        }
    }

    init(painter: inout Generator) {
        for scene in Self.scenes {
            let place = Place(name: "", city: "", latitude: 0, longitude: 0, scene: scene)
            var stillsByLight: [[Still]] = [], liveByLight: [Clip] = [], videosByLight: [Clip] = []
            for hour in Self.lightHours {
                stillsByLight.append((0..<Self.variants).map { _ in
                    Still(Self.shrink(painter.scene(place, hour: hour, width: 48, height: 36), width: 32, height: 24))
                })
                liveByLight.append(Self.clip(&painter, place, hour: hour, frames: 8, width: 16, height: 12))
                videosByLight.append(Self.clip(&painter, place, hour: hour, frames: 12, width: 24, height: 18))
            }
            stills.append(stillsByLight)
            live.append(liveByLight)
            videos.append(videosByLight)
        }
        // Screenshots: a phone screen in miniature (status bar, a header, rows or bubbles).
        typealias C = Raster.RGB
        for variant in 0..<8 {
            let dark = variant % 3 == 2
            var r = Raster(width: 20, height: 43, fill: dark ? C(24, 24, 28) : C(246, 246, 248))
            r.fillRect(x: 0, y: 0, w: 20, h: 2, dark ? C(10, 10, 12) : C(220, 220, 225))
            let accent = [C(0, 122, 255), C(52, 199, 89), C(255, 149, 0), C(175, 82, 222)][variant % 4]
            r.fillRect(x: 0, y: 2, w: 20, h: 5, accent)
            var y = 9
            while y < 41 {
                let wide = painter.int(6...16)
                let right = variant % 2 == 1 && painter.int(0...1) == 1
                r.fillRect(x: right ? 19 - wide : 1, y: y, w: wide, h: painter.int(2...4),
                           right ? accent : (dark ? C(70, 70, 76) : C(200, 200, 206)))
                y += painter.int(4...7)
            }
            screens.append(Still(r))
        }
        // Scans: old prints, faded to sepia, with a white border.
        for variant in 0..<6 {
            let place = Place(name: "", city: "", latitude: 0, longitude: 0, scene: Self.scenes[variant])
            let source = Self.shrink(painter.scene(place, hour: 12, width: 48, height: 36), width: 32, height: 24)
            var r = Raster(width: 32, height: 24, fill: C(244, 240, 228))
            for y in 1..<23 {
                for x in 1..<31 {
                    let i = (y * 32 + x) * 3
                    let l = 0.3 * Double(source.pixels[i]) + 0.59 * Double(source.pixels[i + 1]) + 0.11 * Double(source.pixels[i + 2])
                    r.set(x, y, C(UInt8(min(255, l * 0.95 + 40)), UInt8(min(255, l * 0.8 + 28)), UInt8(min(255, l * 0.55 + 18))))
                }
            }
            scans.append(Still(r))
        }
    }

    /// A smaller copy, nearest pixel (the painter's hills need 36 rows or more).
    static func shrink(_ raster: Raster, width: Int, height: Int) -> Raster {
        var out = Raster(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = ((y * raster.height / height) * raster.width + x * raster.width / width) * 3
                out.set(x, y, Raster.RGB(raster.pixels[i], raster.pixels[i + 1], raster.pixels[i + 2]))
            }
        }
        return out
    }

    static func clip(_ painter: inout Generator, _ place: Place, hour: Double, frames: Int, width: Int, height: Int) -> Clip {
        let saved = painter.random
        var rasters: [Raster] = []
        for frame in 0..<frames {
            painter.random = saved  // the same scene each frame, the sun and plate moving
            rasters.append(shrink(painter.scene(place, hour: hour, width: 48, height: 36, shift: frame), width: width, height: height))
        }
        return Clip(bytes: Y4M.encode(frames: rasters, framesPerSecond: 10), width: UInt32(width), height: UInt32(height),
                    durationMs: Int64(frames) * 100)
    }
}

// MARK: - The plan

/// The skeleton of the life, made before any item: days, visits, workouts and photo occasions. It
/// is small (a few hundred bytes a day); the photo counts are spread over it before any month is made.
struct ScalePlan {
    /// A stay somewhere, in hours after its day's local midnight.
    struct Visit {
        var place: Place
        var start: Double
        var end: Double
        /// The camera cluster of photos taken there, if any.
        var cluster: Int?
        var friends: [Int] = []
        /// The chance of a momentary mood afterwards.
        var moodChance = 0.0
        /// Whether it is one of a trip's places (not a hotel or an airport).
        var stop = false
    }

    enum Sport { case run, walk, ride, hike, yoga }

    struct Session {
        var sport: Sport
        var start: Double
        var minutes: Double
        var place: Place?
    }

    enum Context: Equatable {
        case home, departure, arrival
        case trip(Int)
        case tripEnd(Int)
    }

    /// Photos taken without a visit of their own (at home, in the evening).
    struct Shoot {
        var place: Place
        var start: Double
        var end: Double
        var cluster: Int
    }

    /// One local day in one place: a home day, the morning of a departure, a day abroad, the evening of a return.
    struct Day {
        var date: Int
        var offset: Int32
        var context: Context
        var workday = false
        var weekend = false
        /// When the person leaves where they spent the night.
        var morning: Double
        /// The hours items like songs and moods may fall in.
        var awakeFrom: Double
        var awakeTo: Double
        /// Where the night is spent and from when, if it is spent.
        var night: (place: Place, start: Double)?
        var visits: [Visit] = []
        var sessions: [Session] = []
        var shoots: [Shoot] = []
        var screenshots: [(hour: Double, event: Int)] = []
        var scan: (hour: Double, session: Int)?
        var intros: [Int] = []
        var lastOfDate = true
    }

    /// A photo-taking occasion and how many photos it got.
    struct Cluster {
        var weight: Double
        var gps: Bool
        var count = 0
        var burst = 0
    }

    struct Trip {
        var depart: Int
        var destination: Int
        var length: Int
    }
}

// MARK: - The maker

/// Plans the life, spreads the photos over it, then makes it one day at a time.
struct ScaleMaker {
    typealias Day = ScalePlan.Day
    typealias Visit = ScalePlan.Visit
    typealias Cluster = ScalePlan.Cluster

    /// The one random source (its `SeededRandom`) and the demo's painter and id maker.
    var g = Generator()
    let photos: Int
    let years: Int
    let endingAtMs: Int64
    let pools: ScalePools
    let icons: [String: GeneratedItem.File]
    let artwork: [GeneratedItem.File]
    let showArtwork: [GeneratedItem.File]
    let contactFiles: [GeneratedItem.File?]

    // The plan.
    var days: [Day] = []
    var camera: [Cluster] = []
    var shotEvents: [Cluster] = []
    var scanSessions: [Cluster] = []
    var trips: [ScalePlan.Trip] = []
    var introDates: [Int] = []
    var weekSports: [ScalePlan.Sport?] = Array(repeating: nil, count: 7)
    var plannedWeek = Int.min

    // While making.
    var shotNumber = 0
    var scanNumber = 0
    var weekKey = Int.min
    var weekWorkouts: [Workout] = []
    var tripStops: [(location: Location, start: Int64, end: Int64)] = []
    var tripOf = -1
    var baseline = 0.2
    var nextReflection = Int.min
    var book = 0
    var chapter = 1
    var episodes: [Int]

    init(photos: Int, years: Int, endingAtMs: Int64) {
        self.photos = photos
        self.years = years
        self.endingAtMs = endingAtMs
        var painter = Generator()
        painter.random = SeededRandom(seed: 0x5343_414C_454C_4942)  // "SCALELIB"
        pools = ScalePools(painter: &painter)
        typealias C = Raster.RGB
        var icons: [String: GeneratedItem.File] = [:]
        for (name, text, color) in [("workout-running", "R", C(80, 200, 120)), ("workout-walking", "W", C(90, 150, 220)),
                                    ("workout-cycling", "C", C(230, 140, 60)), ("workout-hiking", "H", C(120, 160, 80)),
                                    ("workout-yoga", "Y", C(200, 120, 180)), ("workout-group", "WK", C(60, 170, 110)),
                                    ("motion-running", "RUN", C(70, 180, 110)), ("motion-walking", "W", C(90, 150, 220)),
                                    ("mood-pleasant", "+", C(240, 170, 60)), ("mood-unpleasant", "-", C(90, 110, 190)),
                                    ("app-inkwell", "I", C(70, 70, 140))] {
            icons[name] = painter.badge(text, background: color, size: 32, directory: "scale/icons", name: name)
        }
        self.icons = icons
        let badges = painter
        artwork = ScaleCast.albums.enumerated().map { i, album in
            badges.badge(ScaleCast.initials(album.0), background: C(UInt8(40 + i * 17 % 180), UInt8(70 + i * 53 % 150), UInt8(60 + i * 31 % 170)),
                         size: 32, directory: "scale/artwork", name: ScaleCast.slug(album.0))
        }
        showArtwork = ScaleCast.podcasts.enumerated().map { i, show in
            badges.badge(ScaleCast.initials(show.0), background: C(UInt8(50 + i * 40), 60, UInt8(90 + i * 25)), size: 32,
                         directory: "scale/artwork", name: "podcast-" + ScaleCast.slug(show.0))
        }
        episodes = ScaleCast.podcasts.map(\.1)
        let colors: [C] = [C(86, 120, 200), C(200, 110, 90), C(110, 170, 120), C(150, 110, 190), C(210, 160, 70), C(90, 160, 170)]
        contactFiles = ScaleCast.contacts.enumerated().map { i, contact in
            guard contact.1 else { return nil }
            let color = colors[i % colors.count]
            var r = Raster(width: 32, height: 32, fill: color.mixed(C(255, 255, 255), 0.6))
            r.disc(cx: 16, cy: 13, radius: 7, C(UInt8(110 + i * 5), UInt8(80 + i * 3), UInt8(60 + i * 2)))
            r.disc(cx: 16, cy: 32, radius: 13, color)
            let bytes = PNG.encode(r)
            let name = ScaleCast.slug(contact.0)
            return GeneratedItem.File(media: StoredMedia(relativePath: "scale/contacts/\(name).png", contentType: "image/png",
                                                         filename: "\(name).png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: 32, pixelHeight: 32), bytes: bytes)
        }
        g = painter
    }

    // MARK: Random helpers

    mutating func chance(_ p: Double) -> Bool { g.double(0...1) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[g.int(0...items.count - 1)] }
    mutating func between(_ a: Double, _ b: Double) -> Double { g.double(a...b) }
    /// An hour between `from` and `to` when the person is up and about that day (or as near as it gets).
    mutating func awake(_ day: Day, _ from: Double, _ to: Double) -> Double {
        let low = min(max(from, day.awakeFrom), day.awakeTo)
        return between(low, max(low, min(to, day.awakeTo)))
    }

    // MARK: Planning

    mutating func plan() {
        let endDate = Int(Civil.floorDiv(Civil.floorDiv(endingAtMs, 1000)
                                             + Int64(ScaleCast.homeZone.offset(atUTC: Civil.floorDiv(endingAtMs, 1000))), 86_400))
        let lastDate = endDate - 1
        let end = Civil.date(endDate)
        let firstDate = Civil.days(year: end.year - years, month: end.month, day: end.day)
        planTrips(firstDate: firstDate, lastDate: lastDate)
        // The first twelve people are there from the start; the others come into the person's life over the years.
        introDates = ScaleCast.contacts.indices.map { i in
            i < 12 ? firstDate + g.int(0...40) : g.int(firstDate...max(firstDate, lastDate - 30))
        }
        // A scanning evening or two a year.
        var scanDates: [Int] = []
        for year in 0..<years {
            for _ in 0..<g.int(1...2) { scanDates.append(firstDate + year * 365 + g.int(20...340)) }
        }
        scanDates.sort()
        var scanCursor = 0

        var date = firstDate, tripIndex = 0
        var arrival: Double?
        while date <= lastDate {
            let week = Civil.floorDiv(Int64(date - 4), 7)  // weeks from Monday 5 January 1970
            if Int(week) != plannedWeek {
                plannedWeek = Int(week)
                planWeek(month: Civil.date(date).month)
            }
            if arrival == nil, tripIndex < trips.count, trips[tripIndex].depart == date {
                let back = planTrip(tripIndex)
                tripIndex += 1
                date = back.date
                arrival = back.hour
                continue
            }
            var day = planHome(date, arrival: arrival)
            arrival = nil
            if scanCursor < scanDates.count, scanDates[scanCursor] <= date, day.context == .home, (day.night?.start ?? 24) < 20.5 {
                day.scan = (between(20.5, 21.5), scanSessions.count)
                scanSessions.append(Cluster(weight: between(0.5, 1.5), gps: false))
                scanCursor += 1
            }
            finish(&day)
            date += 1
        }
        for i in days.indices.dropLast() where days[i + 1].date == days[i].date { days[i].lastOfDate = false }
        allocate()
    }

    /// Three or four trips abroad a year, spread over it.
    mutating func planTrips(firstDate: Int, lastDate: Int) {
        var order = Array(ScaleCast.destinations.indices).shuffled(using: &g.random)
        var next = 0
        for year in 0..<years {
            let from = firstDate + year * 365 + 12
            let to = min(firstDate + (year + 1) * 365 - 12, lastDate - 14)
            guard to - from > 60 else { continue }
            let count = g.int(3...4)
            let segment = (to - from) / count
            for k in 0..<count {
                let length = g.int(3...9)
                let low = from + k * segment, high = low + segment - length - 5
                guard high > low else { continue }
                if next == order.count {
                    order.shuffle(using: &g.random)
                    next = 0
                }
                trips.append(ScalePlan.Trip(depart: g.int(low...high), destination: order[next], length: length))
                next += 1
            }
        }
    }

    /// Which days of the coming week have a workout, and which.
    mutating func planWeek(month: Int) {
        let winter = month == 12 || month <= 2
        weekSports = Array(repeating: nil, count: 7)
        let sessions = chance(0.55) ? 3 : 4
        for weekday in Array(0..<7).shuffled(using: &g.random).prefix(sessions) {
            let r = g.double(0...1)
            if weekday == 0 || weekday == 6 {
                weekSports[weekday] = r < 0.4 ? (winter && r < 0.2 ? .walk : .hike) : r < 0.65 ? (winter ? .run : .ride) : r < 0.9 ? .run : .yoga
            } else {
                weekSports[weekday] = r < 0.55 ? .run : r < 0.8 ? .walk : r < 0.95 ? .yoga : (winter ? .yoga : .ride)
            }
        }
    }

    /// A camera cluster: more photos outdoors in summer, fewer in winter, and unevenly (some
    /// outings are photographed a lot).
    mutating func cluster(_ weight: Double, date: Int, outdoor: Bool = true) -> Int {
        let month = Civil.date(date).month
        let season = !outdoor ? 1.0 : (6...9).contains(month) ? 1.25 : (month == 12 || month <= 2) ? 0.8 : 1.0
        camera.append(Cluster(weight: weight * season * exp(g.double(-1...1) * 0.9), gps: chance(0.93)))
        return camera.count - 1
    }

    /// Up to three friends, close ones more often, among the people the person knows by `date`.
    mutating func friends(_ date: Int, max most: Int) -> [Int] {
        let known = introDates.indices.filter { introDates[$0] <= date }
        guard !known.isEmpty else { return [] }
        var chosen: [Int] = []
        for _ in 0..<g.int(1...most) {
            let total = known.reduce(0.0) { $0 + 1 / (1 + 0.35 * Double($1)) }
            var r = g.double(0...total)
            for i in known {
                r -= 1 / (1 + 0.35 * Double(i))
                if r <= 0 {
                    if !chosen.contains(i) { chosen.append(i) }
                    break
                }
            }
        }
        return chosen
    }

    /// Screenshots, introductions, and the day goes in the plan.
    mutating func finish(_ day: inout Day) {
        let r = g.double(0...1)
        let events = r < 0.4 ? 0 : r < 0.75 ? 1 : r < 0.95 ? 2 : 3
        for _ in 0..<events {
            day.screenshots.append((between(day.awakeFrom, max(day.awakeFrom, day.awakeTo - 0.1)), shotEvents.count))
            shotEvents.append(Cluster(weight: exp(g.double(-1...1) * 0.8), gps: false))
        }
        if days.last?.date != day.date {
            day.intros = introDates.indices.filter { introDates[$0] == day.date }
        }
        days.append(day)
    }

    /// A day in Portland, or the evening of one after a trip.
    mutating func planHome(_ date: Int, arrival: Double?) -> Day {
        let offset = ScaleCast.homeZone.offset(atNoonOf: date)
        let weekday = Civil.weekday(date)
        let month = Civil.date(date).month
        let summer = (5...9).contains(month)
        if let arrival {
            var day = Day(date: date, offset: offset, context: .arrival, morning: arrival, awakeFrom: arrival,
                          awakeTo: max(arrival + 0.5, 23.5))
            day.visits.append(Visit(place: ScaleCast.airport, start: arrival, end: min(arrival + 0.6, 23.8)))
            day.night = (ScaleCast.home, min(arrival + 1.3, 23.9))
            return day
        }
        let weekend = weekday == 0 || weekday == 6
        let dayOff = !weekend && chance(0.03)
        var day = Day(date: date, offset: offset, context: .home, workday: !weekend && !dayOff, weekend: weekend || dayOff,
                      morning: 7.5, awakeFrom: 7.0, awakeTo: 23.2)
        let sport = weekSports[weekday]
        var homeAt: Double

        func session(_ sport: ScalePlan.Sport, _ place: Place?, _ start: Double, _ minutes: Double, weight: Double, photos p: Double) {
            day.sessions.append(ScalePlan.Session(sport: sport, start: start, minutes: minutes, place: place))
            if let place {
                let photographed = chance(p)
                day.visits.append(Visit(place: place, start: start, end: start + minutes / 60,
                                        cluster: photographed ? cluster(weight, date: date) : nil))
            }
        }

        if day.workday {
            if sport == .run {
                let start = between(6.2, 6.7)
                session(.run, pick(ScaleCast.runs), start, Double(g.int(25...55)), weight: 0.15, photos: 0.4)
                day.morning = start - 0.05
                day.awakeFrom = start - 0.3
            } else {
                day.morning = between(8.1, 8.5)
                day.awakeFrom = 6.8
            }
            let officeStart = between(8.8, 9.3), officeEnd = between(17.2, 17.8)
            let officeCluster: Int? = chance(0.05) ? cluster(0.15, date: date, outdoor: false) : nil
            if chance(0.2) {
                let lunch = between(12.1, 12.5)
                day.visits.append(Visit(place: ScaleCast.office, start: officeStart, end: lunch - 0.1, cluster: officeCluster))
                day.visits.append(Visit(place: pick(ScaleCast.lunchSpots), start: lunch, end: lunch + between(0.6, 0.9),
                                        cluster: chance(0.3) ? cluster(0.2, date: date, outdoor: false) : nil,
                                        friends: chance(0.3) ? friends(date, max: 1) : []))
                day.visits.append(Visit(place: ScaleCast.office, start: lunch + 0.95, end: officeEnd))
            } else {
                day.visits.append(Visit(place: ScaleCast.office, start: officeStart, end: officeEnd, cluster: officeCluster))
            }
            homeAt = officeEnd + between(0.4, 0.6)
            switch sport {
            case .walk, .hike:
                let start = homeAt + 0.3
                session(.walk, pick(ScaleCast.walks), start, Double(g.int(35...70)), weight: 0.5, photos: 0.5)
                homeAt = day.visits.last!.end + 0.25
            case .ride:
                let start = homeAt + 0.2
                session(.ride, pick(ScaleCast.rides), start, Double(g.int(45...90)), weight: 0.4, photos: 0.4)
                homeAt = day.visits.last!.end + 0.3
            case .yoga:
                day.sessions.append(ScalePlan.Session(sport: .yoga, start: homeAt + 0.5, minutes: Double(g.int(30...60)), place: nil))
            case .run, nil:
                break
            }
            if homeAt < 18.9, chance(0.2) {
                let start = between(19.0, 19.4)
                day.visits.append(Visit(place: pick(ScaleCast.restaurants), start: start, end: start + between(1.4, 2.4),
                                        cluster: cluster(0.8, date: date, outdoor: false),
                                        friends: chance(0.8) ? friends(date, max: 3) : [], moodChance: 0.35))
                homeAt = day.visits.last!.end + 0.3
            } else if homeAt < 18.9, chance(summer ? 0.12 : 0.05) {
                let place = pick(ScaleCast.afternoons)
                day.visits.append(Visit(place: place, start: homeAt, end: homeAt + between(0.6, 1.3),
                                        cluster: cluster(place.scene == .indoor ? 0.3 : 0.9, date: date), moodChance: 0.2))
                homeAt = day.visits.last!.end + 0.3
            }
        } else {
            // A weekend (or a day off): out in the morning, an outing, maybe dinner.
            var t = between(9.0, 10.0)
            day.morning = t
            day.awakeFrom = t - 1.5
            if chance(summer ? 0.12 : 0.04) {
                let places = pick(ScaleCast.dayTrips)
                let first = Visit(place: places[0], start: t + 1.6, end: t + between(4.0, 5.0), cluster: cluster(2.5, date: date),
                                  friends: chance(0.4) ? friends(date, max: 2) : [], moodChance: 0.5)
                day.visits.append(first)
                if sport == .hike || sport == .walk || sport == .run {
                    day.sessions.append(ScalePlan.Session(sport: .hike, start: first.start + 0.2,
                                                          minutes: ((first.end - first.start - 0.4) * 60).rounded(), place: places[0]))
                }
                t = first.end + 0.4
                if places.count > 1 {
                    day.visits.append(Visit(place: places[1], start: t, end: t + between(1.5, 2.5), cluster: cluster(2.0, date: date),
                                            friends: first.friends))
                    t = day.visits.last!.end
                }
                homeAt = t + between(1.5, 2.5)
            } else {
                switch sport {
                case .hike:
                    session(.hike, pick(ScaleCast.trails), t, Double(g.int(120...240)), weight: 2.0, photos: 1)
                    t = day.visits.last!.end + 0.5
                case .ride:
                    session(.ride, pick(ScaleCast.rides), t, Double(g.int(60...150)), weight: 0.4, photos: 0.5)
                    t = day.visits.last!.end + 0.5
                case .run:
                    session(.run, pick(ScaleCast.runs), t, Double(g.int(40...75)), weight: 0.15, photos: 0.4)
                    t = day.visits.last!.end + 0.5
                case .walk, .yoga, nil:
                    break
                }
                if t < 11.5, chance(0.4) {
                    day.visits.append(Visit(place: pick(ScaleCast.cafes), start: t + 0.2, end: t + between(0.9, 1.4),
                                            cluster: chance(0.6) ? cluster(0.4, date: date, outdoor: false) : nil,
                                            friends: chance(0.4) ? friends(date, max: 2) : []))
                    t = day.visits.last!.end + 0.3
                }
                if sport == .walk {
                    let start = max(t, between(13.5, 15.0))
                    session(.walk, pick(ScaleCast.walks), start, Double(g.int(40...90)), weight: 1.2, photos: 0.8)
                    t = day.visits.last!.end + 0.3
                } else if chance(summer ? 0.75 : 0.5) {
                    let place = weekday == 6 && chance(0.3) ? ScaleCast.market : pick(ScaleCast.afternoons)  // Saturday: the market
                    let start = max(t, between(13.0, 14.5))
                    let weight = place.scene == .indoor ? 0.3 : place.scene == .city ? 1.0 : 1.5
                    day.visits.append(Visit(place: place, start: start, end: start + between(1.0, 2.5), cluster: cluster(weight, date: date),
                                            friends: chance(0.25) ? friends(date, max: 2) : [], moodChance: 0.2))
                    t = day.visits.last!.end + 0.3
                }
                if sport == .yoga {
                    day.sessions.append(ScalePlan.Session(sport: .yoga, start: max(t, 17.0), minutes: Double(g.int(45...75)), place: nil))
                    t = max(t, 17.0) + 1.3
                }
                homeAt = max(t, between(17.0, 18.5))
                if day.visits.isEmpty { day.morning = homeAt }  // a day at home
            }
            if homeAt < 18.9, chance(0.35) {
                let start = between(19.0, 19.5)
                day.visits.append(Visit(place: pick(ScaleCast.restaurants), start: start, end: start + between(1.5, 2.5),
                                        cluster: cluster(0.8, date: date, outdoor: false),
                                        friends: chance(0.7) ? friends(date, max: 3) : [], moodChance: 0.35))
                homeAt = day.visits.last!.end + 0.3
            }
        }
        homeAt = min(homeAt, 23.5)
        day.night = (ScaleCast.home, homeAt)
        if homeAt < 21.5, chance(0.3) {
            day.shoots.append(ScalePlan.Shoot(place: ScaleCast.home, start: homeAt + 0.3, end: min(23.4, homeAt + 2.5),
                                              cluster: cluster(0.35, date: date, outdoor: false)))
        }
        return day
    }

    /// The morning of a departure, every day abroad, and when the person is home again.
    mutating func planTrip(_ index: Int) -> (date: Int, hour: Double) {
        let trip = trips[index]
        let destination = ScaleCast.destinations[trip.destination]
        let homeOffset = ScaleCast.homeZone.offset(atNoonOf: trip.depart)
        var departure = Day(date: trip.depart, offset: homeOffset, context: .departure, morning: 4.6, awakeFrom: 4.4, awakeTo: 7.0)
        departure.visits.append(Visit(place: ScaleCast.airport, start: 5.2, end: 7.0))
        finish(&departure)

        let departUTC = Int64(trip.depart) * 86_400 - Int64(homeOffset) + 7 * 3600 + 900
        let arriveUTC = departUTC + Int64(destination.flightHours * 3600)
        let arriveLocal = arriveUTC + Int64(destination.zone.offset(atUTC: arriveUTC))
        let firstDate = max(trip.depart, Int(Civil.floorDiv(arriveLocal, 86_400)))
        let arrival = Double(arriveLocal - Int64(firstDate) * 86_400) / 3600
        var sights = destination.sights.shuffled(using: &g.random)
        let food = destination.food.shuffled(using: &g.random)
        var nextSight = 0, nextFood = 0
        func sight() -> Place {
            defer { nextSight += 1 }
            if nextSight % sights.count == 0 && nextSight > 0 { sights.shuffle(using: &g.random) }
            return sights[nextSight % sights.count]
        }
        func meal() -> Place {
            defer { nextFood += 1 }
            return food[nextFood % food.count]
        }

        var lastDate = firstDate, lastOffset = homeOffset
        for k in 0..<trip.length {
            let date = firstDate + k
            let offset = destination.zone.offset(atNoonOf: date)
            let last = k == trip.length - 1
            var day = Day(date: date, offset: offset, context: last ? .tripEnd(index) : .trip(index), weekend: true,
                          morning: 8.5, awakeFrom: 7.5, awakeTo: 23.0)
            var t: Double
            if k == 0 {
                day.morning = arrival
                day.awakeFrom = arrival
                day.awakeTo = max(23.0, arrival + 1)
                day.visits.append(Visit(place: destination.airport, start: arrival, end: arrival + 0.75))
                t = max(arrival + 1.5, 8.5)
                if t - arrival > 2.5 {  // an early arrival: a rest at the hotel first
                    day.visits.append(Visit(place: destination.hotel, start: arrival + 1.2, end: t - 0.25))
                }
            } else {
                day.morning = between(8.3, 9.5)
                day.awakeFrom = day.morning - 1
                t = day.morning + 0.3
                if !last, chance(0.2) {
                    let place = sights.first { $0.scene == .park || $0.scene == .river } ?? sights[0]
                    let start = between(6.8, 7.3)
                    day.sessions.append(ScalePlan.Session(sport: .run, start: start, minutes: Double(g.int(25...45)), place: place))
                    day.visits.append(Visit(place: place, start: start, end: start + day.sessions[0].minutes / 60,
                                            cluster: chance(0.5) ? cluster(0.2, date: date) : nil, stop: true))
                    day.morning = start - 0.1
                    day.awakeFrom = start - 0.4
                }
            }
            if last {
                let start = max(t, 9.0)
                if start < 10.5 {
                    let place = sight()
                    day.visits.append(Visit(place: place, start: start, end: start + between(1.3, 1.8),
                                            cluster: cluster(2.0, date: date), stop: true))
                }
                day.visits.append(Visit(place: destination.airport, start: 11.75, end: 13.6))
                day.awakeTo = 14.0
                lastDate = date
                lastOffset = offset
            } else {
                if t <= 10.5 {
                    let start = max(t, 9.2)
                    day.visits.append(Visit(place: sight(), start: start, end: start + between(2.0, 2.8),
                                            cluster: cluster(3.5, date: date), moodChance: 0.2, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                if t <= 12.8 {
                    let start = max(t, 12.3)
                    day.visits.append(Visit(place: meal(), start: start, end: start + between(1.0, 1.4),
                                            cluster: cluster(1.0, date: date, outdoor: false), stop: true))
                    t = day.visits.last!.end + 0.25
                }
                if t <= 16.0 {
                    let start = max(t, 14.0)
                    day.visits.append(Visit(place: sight(), start: start, end: start + between(2.0, 3.3),
                                            cluster: cluster(3.5, date: date), moodChance: 0.3, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                if t <= 20.0 {
                    let start = max(t + 0.5, between(19.3, 19.8))
                    day.visits.append(Visit(place: meal(), start: start, end: start + between(1.5, 2.0),
                                            cluster: cluster(1.0, date: date, outdoor: false), moodChance: 0.25, stop: true))
                    t = day.visits.last!.end + 0.3
                }
                day.night = (destination.hotel, max(t, between(21.6, 22.3)))
            }
            finish(&day)
        }
        // The flight home leaves at two in the afternoon, local time.
        let leaveUTC = Int64(lastDate) * 86_400 - Int64(lastOffset) + 14 * 3600
        let homeUTC = leaveUTC + Int64(destination.flightHours * 3600)
        let homeLocal = homeUTC + Int64(ScaleCast.homeZone.offset(atUTC: homeUTC))
        let homeDate = max(lastDate, Int(Civil.floorDiv(homeLocal, 86_400)))
        let hour = max(0, Double(homeLocal - Int64(homeDate) * 86_400) / 3600)
        return (homeDate, min(hour, 23.0))
    }

    /// Spreads the photos: about 5 % screenshots, a few scans, the rest over the camera clusters by
    /// weight; then a burst in about 3 % of the clusters big enough for one.
    mutating func allocate() {
        let scans = photos >= 200 && !scanSessions.isEmpty ? max(2, photos / 250) : 0
        let shots = shotEvents.isEmpty ? 0 : Int((Double(photos) * 0.05).rounded())
        if camera.isEmpty, let day = days.indices.first(where: { days[$0].context == .home }) {
            days[day].shoots.append(ScalePlan.Shoot(place: ScaleCast.home, start: 20, end: 21, cluster: camera.count))
            camera.append(Cluster(weight: 1, gps: true))
        }
        Self.spread(photos - scans - shots, over: &camera)
        Self.spread(shots, over: &shotEvents)
        Self.spread(scans, over: &scanSessions)
        var bursts = 0
        for i in camera.indices where camera[i].count >= 3 && chance(0.03) {
            camera[i].burst = min(camera[i].count, g.int(3...8))
            bursts += 1
        }
        if bursts == 0, let i = camera.indices.max(by: { camera[$0].count < camera[$1].count }), camera[i].count >= 3 {
            camera[i].burst = min(camera[i].count, 5)
        }
    }

    /// Gives `total` to the clusters in proportion to their weights, exactly.
    static func spread(_ total: Int, over clusters: inout [Cluster]) {
        guard total > 0, !clusters.isEmpty else { return }
        let sum = clusters.reduce(0) { $0 + $1.weight }
        var running = 0.0, given = 0
        for i in clusters.indices {
            running += clusters[i].weight
            let upTo = i == clusters.count - 1 ? total : min(total, max(given, Int((Double(total) * running / sum).rounded(.down))))
            clusters[i].count = upTo - given
            given = upTo
        }
    }

    // MARK: Making

    func ms(_ day: Day, _ hour: Double) -> Int64 {
        (Int64(day.date) * 86_400 - Int64(day.offset)) * 1000 + Int64((hour * 3_600_000).rounded())
    }

    mutating func item(_ asset: Item.Asset, media: [GeneratedItem.File] = [], start: Int64, end: Int64? = nil, _ day: Day,
                       coordinate: Coordinate? = nil, notAMemory: NotAMemory? = nil,
                       source: String = "demo", externalID: String = "") -> GeneratedItem {
        GeneratedItem(item: LibraryItem(id: g.uuid(), asset: asset, media: media.map(\.media), startMs: start, endMs: end,
                                        source: source, externalID: externalID, utcOffsetSeconds: day.offset,
                                        coordinate: coordinate, notAMemory: notAMemory),
                      files: media)
    }

    /// Everything one planned day holds, appended to `out`.
    mutating func render(_ index: Int, into out: inout [GeneratedItem]) {
        let day = days[index]
        switch day.context {
        case .trip(let trip), .tripEnd(let trip):
            if trip != tripOf {
                tripOf = trip
                tripStops = []
            }
        case .home, .departure, .arrival:
            break
        }
        let week = Int(Civil.floorDiv(Int64(day.date - 4), 7))
        if week != weekKey {
            weekKey = week
            weekWorkouts = []
        }
        var sawFriends = false, workedOut = false

        for person in day.intros {
            out.append(contact(person, ms(day, max(day.awakeFrom, min(day.awakeTo, 18.25))), day))
        }
        for visit in day.visits {
            let start = ms(day, visit.start), end = ms(day, visit.end)
            let location = self.location(visit.place, start: start, end: end, day)
            out.append(location)
            if visit.stop, case .location(let stop) = location.item.asset, !tripStops.contains(where: { $0.location.place == stop.place }) {
                tripStops.append((stop, start, end))
            }
            if let c = visit.cluster { shoot(c, visit.place, from: start, to: end, day, into: &out) }
            for (k, person) in visit.friends.enumerated() {
                out.append(contact(person, start + Int64(g.int(2...15) + 3 * k) * 60_000, day))
                sawFriends = true
            }
            if chance(visit.moodChance) {
                let valence = chance(0.9) ? between(0.3, 0.95) : between(-0.5, 0.1)
                var associations: [StateOfMindAssociation] = visit.friends.isEmpty ? [.hobbies] : [.friends]
                if day.context != .home { associations.append(.travel) }
                out.append(mood(end + Int64(g.int(5...30)) * 60_000, day, kind: .momentaryEmotion, valence: valence, associations: associations))
            }
        }
        for shoot in day.shoots { self.shoot(shoot.cluster, shoot.place, from: ms(day, shoot.start), to: ms(day, shoot.end), day, into: &out) }
        for session in day.sessions {
            workout(session, day, into: &out)
            workedOut = true
        }

        // Where the night is spent, until the next day's morning.
        if let night = day.night {
            let start = ms(day, night.start)
            var end = index + 1 < days.count ? ms(days[index + 1], days[index + 1].morning) : ms(day, 31.5)
            end = max(start + 60_000, min(end, endingAtMs))
            out.append(location(night.place, start: start, end: end, day))
        }

        // Commutes: a podcast there, a walk or songs back.
        if day.workday, let office = day.visits.first(where: { $0.place.isWork }), let back = day.visits.last(where: { $0.place.isWork }) {
            if chance(0.8) {
                let show = g.int(0...ScaleCast.podcasts.count - 1)
                let start = ms(day, max(day.morning, office.start - between(0.55, 0.75)))
                out.append(podcast(show, start, day))
            }
            if chance(0.5) {
                let start = ms(day, back.end + between(0.03, 0.1))
                let minutes = Int64(g.int(22...40))
                out.append(item(.motionActivity(MotionActivity(icon: icons["motion-walking"]!.media.media(slot: 0),
                                                               steps: minutes * Int64(g.int(95...115)),
                                                               date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: start + minutes * 60_000),
                                                               movementType: .walking)),
                                media: [icons["motion-walking"]!], start: start, end: start + minutes * 60_000, day))
            }
        }
        // Music most days.
        if chance(day.context == .home || day.context == .arrival ? 0.85 : 0.5) {
            for _ in 0..<g.int(1...4) { out.append(song(ms(day, between(day.awakeFrom, day.awakeTo)), day)) }
        }
        // A chapter before bed.
        if let night = day.night, night.start < 21.6, chance(day.context == .home ? 0.3 : 0.1) {
            out.append(chapterItem(ms(day, awake(day, max(night.start, 21.0), 22.4)), day))
        }
        // A call with someone the person knows.
        if day.context == .home, let night = day.night, night.start < 21, chance(0.07) {
            let known = introDates.indices.filter { introDates[$0] < day.date }
            if !known.isEmpty { out.append(contact(pick(known), ms(day, between(max(night.start, 19.5), 21.8)), day)) }
        }
        // Reflection prompts every few days.
        if day.date >= nextReflection, day.awakeTo - day.awakeFrom > 3 {
            nextReflection = day.date + g.int(2...5)
            let (prompt, color) = Generator.prompts[g.int(0...Generator.prompts.count - 1)]
            let hour = day.awakeTo > 21.5 && chance(0.5) ? awake(day, 21.0, 21.5) : awake(day, day.awakeFrom, day.awakeFrom + 1)
            out.append(item(.reflection(Reflection(prompt: prompt, color: color)), start: ms(day, hour), day))
        }
        // The day's mood, most evenings.
        if day.awakeTo > 21.5, chance(0.8) {
            baseline = baseline * 0.85 + g.double(-0.2...0.5) * 0.15
            var valence = baseline + g.double(-0.45...0.45)
            var associations: [StateOfMindAssociation] = []
            if day.context != .home && day.context != .departure {
                valence += 0.25
                associations.append(.travel)
            }
            if day.weekend && day.context == .home {
                valence += 0.12
                associations.append(chance(0.5) ? .family : .hobbies)
            }
            if sawFriends {
                valence += 0.15
                associations.append(.friends)
            }
            if workedOut {
                valence += 0.1
                associations.append(.fitness)
            }
            if day.workday {
                if Civil.weekday(day.date) == 1 { valence -= 0.1 }
                associations.insert(valence < 0 ? .work : (chance(0.5) ? .work : .tasks), at: 0)
            }
            if associations.isEmpty || chance(0.3) { associations.append(pick([.selfCare, .weather, .health, .partner, .community])) }
            valence = max(-1, min(1, valence))
            out.append(mood(ms(day, awake(day, 21.5, 22.8)), day, kind: .dailyMood, valence: valence,
                            associations: Array(associations.prefix(3))))
        }
        // Screenshots.
        for (hour, event) in day.screenshots where shotEvents[event].count > 0 {
            var t = ms(day, hour)
            for _ in 0..<shotEvents[event].count {
                out.append(screenshot(t, day))
                t += Int64(g.int(4_000...90_000))
            }
        }
        // A scanning evening: old prints, dated when they were scanned.
        if let scan = day.scan, scanSessions[scan.session].count > 0 {
            var t = ms(day, scan.hour)
            for _ in 0..<scanSessions[scan.session].count {
                out.append(scanned(t, day))
                t += Int64(g.int(40_000...120_000))
            }
        }
        // The trip's places, on its last day.
        if case .tripEnd = day.context, !tripStops.isEmpty {
            out.append(item(.locationGroup(LocationGroup(locations: tripStops.map(\.location))),
                            start: tripStops[0].start, end: tripStops.map(\.end).max()!, day))
        }
        // The week's workouts, on Sunday evening.
        if Civil.weekday(day.date) == 0, day.lastOfDate {
            if weekWorkouts.count >= 2 {
                let details = weekWorkouts.compactMap(\.details)
                let energy = details.compactMap { $0.activeEnergyBurned?.value }.reduce(0, +)
                let seconds = details.compactMap(\.date).map { Double($0.endUnixMs - $0.startUnixMs) / 1000 }
                let rates: [Double] = details.map { $0.averageHeartRate?.value ?? 0 }
                var beats = 0.0
                for (rate, duration) in zip(rates, seconds) { beats += rate * duration }
                let heart = beats / max(1, seconds.reduce(0, +))
                let icon = icons["workout-group"]!
                out.append(item(.workoutGroup(WorkoutGroup(workouts: weekWorkouts, icon: icon.media.media(slot: 0),
                                                            durationS: seconds.reduce(0, +),
                                                            activeEnergyBurned: Quantity(value: energy.rounded(), unit: "kcal"),
                                                            averageHeartRate: Quantity(value: heart.rounded(), unit: "count/min"))),
                                media: [icon], start: details.compactMap { $0.date?.startUnixMs }.min()!,
                                end: details.compactMap { $0.date?.endUnixMs }.max()!, day))
            }
            weekWorkouts = []
        }
    }

    mutating func location(_ place: Place, start: Int64, end: Int64, _ day: Day) -> GeneratedItem {
        let altitude = place.scene == .mountain ? 420.0 : 30.0
        let loc = Location(place: place.name, city: place.city,
                           location: GeoLocation(latitude: place.latitude, longitude: place.longitude, altitudeM: altitude,
                                                 horizontalAccuracyM: 15, timestamp: Timestamp(unixMs: start)),
                           date: Timestamp(unixMs: start), isWorkLocation: place.isWork)
        return item(.location(loc), start: start, end: end, day,
                    coordinate: Coordinate(latitude: place.latitude, longitude: place.longitude))
    }

    /// Where in a place a photo was taken: close by in a café, anywhere in a park or on a trail.
    mutating func near(_ place: Place) -> Coordinate {
        let radius = switch place.scene {
        case .park, .river: 0.0022
        case .mountain: 0.006
        case .city: 0.0012
        case .food, .indoor: 0.0002
        }
        let lat = place.latitude + g.double(-radius...radius)
        let lon = place.longitude + g.double(-radius...radius) / max(0.2, cos(place.latitude * .pi / 180))
        return Coordinate(latitude: (lat * 1e6).rounded() / 1e6, longitude: (lon * 1e6).rounded() / 1e6)
    }

    /// A cluster's photos: a few moments of several shots each within a few minutes, some Live
    /// Photos and videos, and maybe a burst.
    mutating func shoot(_ index: Int, _ place: Place, from: Int64, to: Int64, _ day: Day, into out: inout [GeneratedItem]) {
        let cluster = camera[index]
        guard cluster.count > 0 else { return }
        let last = max(from, to - 60_000)
        let moments = max(1, Int(Double(cluster.count).squareRoot().rounded()))
        let centers = (0..<moments).map { _ in from + Int64(g.double(0...1) * Double(max(0, last - from - 240_000))) }
        var times: [Int64] = []
        times.reserveCapacity(cluster.count)
        for _ in 0..<(cluster.count - cluster.burst) {
            times.append(min(last, centers[g.int(0...moments - 1)] + Int64(g.int(0...240_000))))
        }
        times.sort()
        for t in times {
            let r = g.double(0...1)
            let gps = cluster.gps && chance(0.98)
            out.append(cameraItem(r < 0.0425 ? .video : r < 0.127 ? .live : .still, place, t, day, gps: gps))
        }
        if cluster.burst > 0 {
            let t0 = centers[0] + Int64(g.int(0...60_000))
            let gps = cluster.gps
            for frame in 0..<cluster.burst {
                out.append(cameraItem(.still, place, t0 + Int64(frame * 1_900 / cluster.burst), day, gps: gps,
                                      notAMemory: frame == 0 ? nil : .burst))
            }
        }
    }

    enum CameraKind { case still, live, video }

    /// "scale/YYYY/MM/" and the local date and time of an instant.
    func folder(_ ms: Int64, _ day: Day) -> (folder: String, localSeconds: Int64, hour: Double) {
        let local = Civil.floorDiv(ms, 1000) + Int64(day.offset)
        let date = Civil.date(Int(Civil.floorDiv(local, 86_400)))
        let hour = Double(local - Civil.floorDiv(local, 86_400) * 86_400) / 3600
        return ("scale/\(date.year)/" + Civil.digits(date.month, 2) + "/", local, hour)
    }

    mutating func cameraItem(_ kind: CameraKind, _ place: Place, _ ms: Int64, _ day: Day, gps: Bool,
                             notAMemory: NotAMemory? = nil) -> GeneratedItem {
        shotNumber += 1
        let (folder, local, hour) = self.folder(ms, day)
        let name = "IMG_" + Civil.digits(shotNumber, 6)
        let coordinate = gps ? near(place) : nil
        let scene = ScalePools.scene(place.scene), light = ScalePools.light(hour)
        if kind == .video {
            let clip = pools.videos[scene][light]
            let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".y4m", contentType: Y4M.contentType,
                                                             filename: name + ".y4m", byteCount: UInt64(clip.bytes.count),
                                                             pixelWidth: clip.width, pixelHeight: clip.height), bytes: clip.bytes)
            return item(.video(Video(url: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file],
                        start: ms, end: ms + clip.durationMs, day, coordinate: coordinate)
        }
        let still = pools.stills[scene][light][g.int(0...ScalePools.variants - 1)]
        let exif = Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local),
                             gps: coordinate.map { Exif.GPS(latitude: $0.latitude, longitude: $0.longitude) })
        let bytes = still.png(exif: exif)
        let image = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                          filename: name + ".png", byteCount: UInt64(bytes.count),
                                                          pixelWidth: still.width, pixelHeight: still.height), bytes: bytes)
        if kind == .live {
            let clip = pools.live[scene][light]
            let video = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".y4m", contentType: Y4M.contentType,
                                                              filename: name + ".y4m", byteCount: UInt64(clip.bytes.count),
                                                              pixelWidth: clip.width, pixelHeight: clip.height), bytes: clip.bytes)
            return item(.livePhoto(LivePhoto(image: image.media.media(slot: 0), video: video.media.media(slot: 1),
                                             date: Timestamp(unixMs: ms))),
                        media: [image, video], start: ms, day, coordinate: coordinate)
        }
        return item(.photo(Photo(photo: image.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [image], start: ms, day,
                    coordinate: coordinate, notAMemory: notAMemory)
    }

    /// A screenshot: no camera, no place; the file is small but the size recorded is the phone's screen.
    mutating func screenshot(_ ms: Int64, _ day: Day) -> GeneratedItem {
        shotNumber += 1
        let (folder, local, _) = self.folder(ms, day)
        let name = "IMG_" + Civil.digits(shotNumber, 6)
        let year = Civil.date(day.date).year
        let (width, height): (UInt32, UInt32) = year < 2018 ? (750, 1334) : year < 2021 ? (1125, 2436) : year < 2024 ? (1170, 2532) : (1179, 2556)
        let bytes = pools.screens[g.int(0...pools.screens.count - 1)].png(exif: Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local), gps: nil))
        let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                         filename: name + ".png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: width, pixelHeight: height), bytes: bytes)
        return item(.photo(Photo(photo: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file], start: ms, day,
                    notAMemory: .screenshot)
    }

    /// A scanned print, dated when it was scanned.
    mutating func scanned(_ ms: Int64, _ day: Day) -> GeneratedItem {
        scanNumber += 1
        let (folder, local, _) = self.folder(ms, day)
        let name = "SCAN_" + Civil.digits(scanNumber, 6)
        let still = pools.scans[g.int(0...pools.scans.count - 1)]
        let bytes = still.png(exif: Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local), gps: nil))
        let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                         filename: name + ".png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: still.width, pixelHeight: still.height), bytes: bytes)
        return item(.photo(Photo(photo: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file], start: ms, day,
                    notAMemory: .scan)
    }

    mutating func contact(_ index: Int, _ ms: Int64, _ day: Day) -> GeneratedItem {
        let file = contactFiles[index]
        return item(.contact(Contact(name: ScaleCast.contacts[index].0, photo: file?.media.media(slot: 0))),
                    media: file.map { [$0] } ?? [], start: ms, day)
    }

    mutating func song(_ ms: Int64, _ day: Day) -> GeneratedItem {
        // Favourites more often: the earlier albums of the catalogue.
        let albumIndex = min(ScaleCast.albums.count - 1, Int(pow(g.double(0...1), 1.6) * Double(ScaleCast.albums.count)))
        let (album, artist, songs) = ScaleCast.albums[albumIndex]
        let art = artwork[albumIndex]
        return item(.song(Song(song: pick(songs), artist: artist, album: album, artwork: art.media.media(slot: 0), date: Timestamp(unixMs: ms))),
                    media: [art], start: ms, end: ms + Int64(g.int(150...280)) * 1000, day)
    }

    mutating func podcast(_ show: Int, _ ms: Int64, _ day: Day) -> GeneratedItem {
        let (name, _, topics) = ScaleCast.podcasts[show]
        let number = episodes[show]
        episodes[show] += 1
        let art = showArtwork[show]
        return item(.podcast(Podcast(episode: "Ep. \(number): " + topics[number % topics.count], show: name,
                                     artwork: art.media.media(slot: 0), date: Timestamp(unixMs: ms))),
                    media: [art], start: ms, end: ms + Int64(g.int(25...45)) * 60_000, day)
    }

    mutating func chapterItem(_ ms: Int64, _ day: Day) -> GeneratedItem {
        let (title, author, chapters) = ScaleCast.books[book]
        let number = chapter
        chapter += 1
        if chapter > chapters {
            chapter = 1
            book = (book + 1) % ScaleCast.books.count
        }
        let icon = icons["app-inkwell"]!
        return item(.genericMedia(GenericMedia(title: "Chapter \(number)", artist: author, album: title, date: Timestamp(unixMs: ms),
                                               appIcon: icon.media.media(slot: 0))),
                    media: [icon], start: ms, end: ms + Int64(g.int(15...40)) * 60_000, day,
                    source: ScaleCast.readingApp, externalID: "inkwell-\(ScaleCast.slug(title))-\(number)")
    }

    /// A mood whose labels agree with how it felt.
    mutating func mood(_ ms: Int64, _ day: Day, kind: StateOfMindKind, valence: Double,
                       associations: [StateOfMindAssociation]) -> GeneratedItem {
        let choices: [StateOfMindLabel] = switch valence {
        case 0.6...: [.joyful, .happy, .grateful, .excited, .amazed, .proud, .passionate]
        case 0.2..<0.6: [.content, .happy, .grateful, .peaceful, .satisfied, .hopeful, .calm, .confident]
        case -0.2..<0.2: [.calm, .indifferent, .peaceful, .content]
        case -0.6 ..< -0.2: [.stressed, .drained, .worried, .frustrated, .irritated, .anxious, .annoyed]
        default: [.overwhelmed, .sad, .discouraged, .lonely, .disappointed, .hopeless]
        }
        var labels: [StateOfMindLabel] = []
        for _ in 0..<g.int(1...3) {
            let label = pick(choices)
            if !labels.contains(label) { labels.append(label) }
        }
        let classification = StateOfMindStyle.classification(valence: valence)
        let backgrounds = StateOfMindStyle.backgrounds(valence: valence)
        let icon = icons[valence >= 0 ? "mood-pleasant" : "mood-unpleasant"]!
        var unique: [StateOfMindAssociation] = []
        for association in associations where !unique.contains(association) { unique.append(association) }
        let state = StateOfMind(
            state: StateOfMindSample(kind: kind, valence: (valence * 100).rounded() / 100, valenceClassification: classification,
                                     labels: labels, associations: unique, date: Timestamp(unixMs: ms)),
            icon: icon.media.media(slot: 0), lightBackground: backgrounds.light, darkBackground: backgrounds.dark)
        return item(.stateOfMind(state), media: [icon], start: ms, day)
    }

    /// A workout: its details and route, the steps it took, sometimes how it felt; remembered for
    /// the week's summary.
    mutating func workout(_ session: ScalePlan.Session, _ day: Day, into out: inout [GeneratedItem]) {
        let start = ms(day, session.start), end = start + Int64(session.minutes * 60_000)
        let (type, name, icon, speed, kcal, heart): (UInt32, String, String, ClosedRange<Double>, Double, ClosedRange<Int>) =
            switch session.sport {
            case .run: (37, "Running", "workout-running", 160...200, 11.2, 140...162)
            case .walk: (52, "Walking", "workout-walking", 78...95, 4.6, 92...115)
            case .ride: (13, "Cycling", "workout-cycling", 280...400, 9.0, 118...145)
            case .hike: (24, "Hiking", "workout-hiking", 42...62, 7.2, 108...135)
            case .yoga: (57, "Yoga", "workout-yoga", 0...0, 3.4, 84...104)
            }
        let distance = (session.minutes * g.double(speed)).rounded()
        var route: [GeoLocation] = []
        if let place = session.place {
            // A loop of the right length around the place, a little wobbly.
            let points = g.int(20...40)
            let radius = distance / (2 * .pi) / 111_000
            let squeeze = max(0.2, cos(place.latitude * .pi / 180))
            let phase = g.double(0...(2 * .pi))
            for i in 0..<points {
                let t = Double(i) / Double(points - 1)
                let angle = phase + t * 2 * .pi
                let wobble = 1 + g.double(-0.08...0.08)
                let climb = session.sport == .hike ? 300 * sin(t * .pi) : 8 * sin(t * 2 * .pi)
                route.append(GeoLocation(latitude: ((place.latitude + radius * wobble * (sin(angle) - sin(phase))) * 1e6).rounded() / 1e6,
                                         longitude: ((place.longitude + radius * wobble * (cos(angle) - cos(phase)) / squeeze) * 1e6).rounded() / 1e6,
                                         altitudeM: ((place.scene == .mountain ? 300 : 30) + climb).rounded(), horizontalAccuracyM: 5,
                                         timestamp: Timestamp(unixMs: start + Int64(t * Double(end - start)))))
            }
        }
        let iconFile = icons[icon]!
        let workout = Workout(details: WorkoutDetails(activityType: type,
                                                      activeEnergyBurned: Quantity(value: (session.minutes * kcal * g.double(0.9...1.1)).rounded(), unit: "kcal"),
                                                      distance: session.sport == .yoga ? nil : Quantity(value: distance, unit: "m"),
                                                      averageHeartRate: Quantity(value: Double(g.int(heart)), unit: "count/min"),
                                                      date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                      localizedName: name),
                              icon: iconFile.media.media(slot: 0), route: route)
        weekWorkouts.append(workout)
        out.append(item(.workout(workout), media: [iconFile], start: start, end: end, day,
                        coordinate: session.place.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }))
        if session.sport == .run || session.sport == .walk || session.sport == .hike {
            let motion = icons[session.sport == .run ? "motion-running" : "motion-walking"]!
            let stride = session.sport == .run ? 1.05 : 0.75
            out.append(item(.motionActivity(MotionActivity(icon: motion.media.media(slot: 0), steps: Int64(distance / stride),
                                                           date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                           movementType: session.sport == .run ? .running : .walking)),
                            media: [motion], start: start, end: end, day))
        }
        if chance(0.35) {
            let valence = chance(0.92) ? between(0.35, 0.95) : between(-0.4, 0.1)
            out.append(mood(end + Int64(g.int(3...20)) * 60_000, day, kind: .momentaryEmotion, valence: valence,
                            associations: [.fitness, chance(0.5) ? .health : .selfCare]))
        }
    }
}

