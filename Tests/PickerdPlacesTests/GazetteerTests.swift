import Foundation
import PickerdPlaces
import PickerdDemoLibrary
import Testing

@Suite("Places have names: the offline gazetteer")
struct GazetteerTests {
    let gazetteer = Gazetteer.shared

    @Test("the nearest city to a coordinate, as GeoNames has it, and how far its centre is",
          arguments: [(41.1522, -8.6205, "Porto", 0.8), (38.7139, -9.1394, "Lisbon", 0.6), (40.78, -73.97, "Manhattan", 0.5),
                      (41.738, -8.144, "Vieira do Minho", 11.7), (-33.7, 150.31, "Katoomba", 2.2), (-37.81, 144.96, "Melbourne", 0.5), (35.0, 135.77, "Kyoto", 2.8),
                      (64.1466, -21.9426, "Reykjavik", 2.6), (-33.45, -70.66, "Santiago", 1)])
    func nearest(latitude: Double, longitude: Double, name: String, kilometres: Double) throws {
        let (city, distance) = try #require(gazetteer.nearest(latitude: latitude, longitude: longitude))
        #expect(city.name == name)
        #expect(abs(distance / 1000 - kilometres) < 0.5, "\(city.name) is \(distance / 1000) km away")
    }

    @Test("the grid search finds what a scan of every city finds, across the antimeridian and near the poles")
    func gridAgreesWithScan() throws {
        var generator = SeededRandom(seed: 0x6E0)
        var points = [(0.0, 179.99), (0.0, -179.99), (-16.5, 179.9), (78.2, 15.6), (-77.8, 166.7), (89.9, 0), (-89.9, 0)]
        // 60 random points: each scans every place (~200,000 with the small places), slow in a debug build.
        for _ in 0..<60 { points.append((Double.random(in: -80...80, using: &generator), Double.random(in: -180..<180, using: &generator))) }
        for (latitude, longitude) in points {
            let found = try #require(gazetteer.nearest(latitude: latitude, longitude: longitude))
            let best = gazetteer.cities.map { Gazetteer.distance(latitude, longitude, $0.latitude, $0.longitude) }.min()!
            #expect(abs(found.distanceM - best) < 1, "at \(latitude), \(longitude): \(found.city.name) \(found.distanceM) m, best \(best) m")
        }
    }

    @Test("a place is named by the city it lies in, else the town it is near, else its region")
    func names() throws {
        #expect(gazetteer.name(latitude: 41.1522, longitude: -8.6205)?.place == "Porto")
        let countryside = try #require(gazetteer.name(latitude: 41.738, longitude: -8.144))
        // A village of cities500 (1,687 people), nearer than the town of 15,000 (Arcos de Valdevez, 26 km).
        #expect(countryside.place == "near Vieira do Minho" && !countryside.isInCity && countryside.city.timeZone == "Europe/Lisbon")
        #expect(gazetteer.name(latitude: 52.60, longitude: 14.05)?.place == "near Buckow")
        #expect(gazetteer.timeZone(latitude: 35.0, longitude: 135.77)?.identifier == "Asia/Tokyo")
    }

    @Test("a small town (cities500) names what lies in it, with its country, region and time zone: Katoomba, not Liverpool 60 km away")
    func smallTowns() throws {
        let katoomba = try #require(gazetteer.name(latitude: -33.7125, longitude: 150.3119))
        #expect(katoomba.place == "Katoomba" && katoomba.isInCity, "\(katoomba.place)")
        #expect(katoomba.city.region == "New South Wales" && katoomba.city.country == "Australia" && katoomba.city.timeZone == "Australia/Sydney")
        #expect(gazetteer.cities.count > 200_000, "the places file reads: \(gazetteer.cities.count)")
    }

    @Test("where no populated place lies within 60 km, a place is named by its region")
    func remote() throws {
        // The Simpson Desert: Santa Teresa (575 people), the nearest place, is 306 km away.
        let desert = try #require(gazetteer.name(latitude: -25.5, longitude: 137.0))
        #expect(desert.place == "Northern Territory" && !desert.isInCity, "\(desert.place), \(desert.city.name)")
    }

    @Test("inside a large city a place is named by its neighbourhood (GeoNames' cities500), not the city; elsewhere by the city",
          arguments: [(52.4986, 13.4187, "Kreuzberg", "Berlin"), (35.7056, 139.7731, "Ueno", "Tokyo"), (-37.7982, 144.9784, "Fitzroy", "Melbourne"),
                      (51.5436, -0.0908, "Canonbury", "")])
    func neighbourhoods(latitude: Double, longitude: Double, neighbourhood: String, city: String) throws {
        let named = try #require(gazetteer.name(latitude: latitude, longitude: longitude))
        #expect(named.place == neighbourhood && (city.isEmpty || named.city.name == city) && named.isInCity, "\(named.place), \(named.city.name)")
        #expect(Gazetteer.isArea(neighbourhood) && Gazetteer.isArea(neighbourhood.uppercased()))
        #expect(!Gazetteer.isArea("Trattoria Lucca"))
    }

    @Test("a neighbourhood names only what lies within its reach, and only inside a large city")
    func neighbourhoodReach() {
        // Arcos de Valdevez is a small town: no neighbourhoods; the sea off Lisbon is nobody's.
        #expect(Gazetteer.neighbourhood(latitude: 41.8466, longitude: -8.4194) == nil)
        #expect(Gazetteer.neighbourhood(latitude: 38.5, longitude: -9.6) == nil)
        #expect(Gazetteer.neighbourhoods.cities.count > 20_000, "the data file reads whole: \(Gazetteer.neighbourhoods.cities.count)")
    }

    @Test("an address's city, as people's exports write addresses: with or without a country, postcode first or last, any language")
    func addresses() {
        let berlin = (52.4986, 13.4187), lisbon = (38.6979, -9.1950), newYork = (40.7794, -73.9632), porto = (41.1496, -8.6109)
        let cases: [(String, (Double, Double), String?)] = [
            ("Oranienstraße 12, Berlin", berlin, "Berlin"),                       // street number, city: no country
            ("Oranienstraße 12, 10999 Berlin", berlin, "Berlin"),
            ("Oranienstraße 12, 10999 Berlin, Deutschland", berlin, "Berlin"),
            ("Berlin, Deutschland", berlin, "Berlin"),
            ("Rua da Junqueira, 1400-206 Lisboa, Portugal", lisbon, "Lisboa"),      // the person's own spelling
            ("1000 5th Ave, New York, NY 10028, USA", newYork, "New York"),
            ("Rua de Santa Catarina 112\n4000-442 Porto", porto, "Porto"),
            ("Somewhere", berlin, nil),
        ]
        for (address, at, city) in cases {
            #expect(gazetteer.city(fromAddress: address, latitude: at.0, longitude: at.1) == city, "\(address)")
        }
    }
}
