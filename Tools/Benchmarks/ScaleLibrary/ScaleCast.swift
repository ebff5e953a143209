import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

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
