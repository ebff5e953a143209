import CGeonames
import Foundation

/// A city of GeoNames' list of places with 15,000 people or more, as Debian's libgeonames embeds it.
public struct City: Sendable, Hashable {
    /// Its name, as GeoNames gives it ("Porto", "Lisbon", "Arcos de Valdevez").
    public let name: String
    /// Its first-level region ("Viana do Castelo", "Victoria").
    public let region: String
    /// Its country ("Portugal").
    public let country: String
    /// The country's ISO 3166 code ("PT").
    public let countryCode: String
    /// Its IANA time zone ("Europe/Lisbon").
    public let timeZone: String
    /// Where it is: its centre, in degrees.
    public let latitude: Double
    /// Where it is: its centre, in degrees.
    public let longitude: Double
    /// How many people live there.
    public let population: Int

    /// How far from its centre a place is still in it, in metres: 3 km for a town, about 21 km for
    /// a city of three million (3 km + √population / 100 km). A rough disc: GeoNames gives centres,
    /// not boundaries.
    public var radiusM: Double { 3_000 + (Double(population).squareRoot() / 100) * 1_000 }
}

/// An offline gazetteer: the nearest city to a coordinate, from GeoNames' cities (24,361 in
/// libgeonames 0.3.0), with no network, ever.
///
/// The cities are read once, on first use, into grids of tenth-of-a-degree and one-degree cells; a
/// lookup searches the cells in rings around the coordinate until no closer city can lie further
/// out, the fine grid first (about a degree around), the coarse one when nothing that near is
/// proven nearest. Each lookup reads a few dozen places (Tools/bench-places measures it).
public final class Gazetteer: Sendable {
    /// The gazetteer of libgeonames' cities, read on first use.
    public static let shared = Gazetteer()

    /// Every city.
    public let cities: Cities
    private let cells: [Int: [Int32]]
    /// Every place's centre (``cities``' own arrays), so a search reads no strings.
    private var latitudes: [Double] { cities.latitudes }
    private var longitudes: [Double] { cities.longitudes }
    /// A grid of tenth-of-a-degree cells for the first, near search: with cities500's small places a
    /// one-degree cell of Europe or India holds hundreds of places, and a lookup scanned thousands
    /// (p99 0.9 ms). Each cell's places are a range of ``fineOrder``.
    private let fineCells: [Int: Range<Int32>]
    private let fineOrder: [Int32]

    /// Reads every city libgeonames holds, and the small places outside them (``Data/places.tsv``),
    /// into its grids.
    public convenience init() {
        self.init(placesFrom: Self.placesFiles())
    }

    /// libgeonames' cities and the small places of the first of `files` that exists (only the cities,
    /// logged once, when none does).
    convenience init(placesFrom files: [String]) {
        var cities: [City] = []
        let count = Int(pickerd_city_count())
        cities.reserveCapacity(count)
        var raw = pickerd_city()
        for index in 0..<count where pickerd_city_at(Int32(index), &raw) == 0 {
            func text<T>(_ field: T) -> String {
                withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            cities.append(City(name: text(raw.name), region: text(raw.state), country: text(raw.country),
                               countryCode: text(raw.country_code), timeZone: text(raw.time_zone),
                               latitude: raw.latitude, longitude: raw.longitude, population: Int(raw.population)))
        }
        self.init(cities: Self.citiesAndSmallPlaces(cities, from: files))
    }

    /// A gazetteer of the given places, in its grids.
    /// - Parameter cities: the places.
    public init(cities: [City]) {
        var cells: [Int: [Int32]] = [:]
        for (index, city) in cities.enumerated() {
            cells[Self.cell(Self.row(city.latitude), Self.column(city.longitude)), default: []].append(Int32(index))
        }
        self.cities = Cities(cities)
        self.cells = cells
        let keyed = cities.indices.map { (Self.fineCell(cities[$0].latitude, cities[$0].longitude), Int32($0)) }.sorted { $0 < $1 }
        var fineCells: [Int: Range<Int32>] = [:]
        var start = 0
        while start < keyed.count {
            var end = start + 1
            while end < keyed.count, keyed[end].0 == keyed[start].0 { end += 1 }
            fineCells[keyed[start].0] = Int32(start)..<Int32(end)
            start = end
        }
        self.fineCells = fineCells
        fineOrder = keyed.map(\.1)
    }

    /// The city nearest to a coordinate, and how far its centre is.
    /// - Parameters:
    ///   - latitude: degrees, −90…90.
    ///   - longitude: degrees, −180…180.
    /// - Returns: the city and the distance in metres, or `nil` when the library holds no city (or
    ///   the coordinate is not a number).
    public func nearest(latitude: Double, longitude: Double) -> (city: City, distanceM: Double)? {
        guard latitude.isFinite, longitude.isFinite, !cities.isEmpty else { return nil }
        if let near = nearestClose(latitude: latitude, longitude: longitude).found { return (cities[near.index], near.distance) }
        let row = Self.row(latitude), column = Self.column(longitude)
        var best: (index: Int, distance: Double)?
        // Ring r holds the cells r steps away; any city in ring r is at least r − 1 degrees away in
        // latitude or in longitude, a degree of longitude being shortest at the ring's edge nearest
        // a pole, so the search stops once that bound exceeds the best found.
        for ring in 0...180 {
            let shortest = max(0.01, cos(min(89.9, abs(latitude) + Double(ring)) * .pi / 180))
            if let best, Double(ring - 1) * 111_000 * shortest > best.distance { break }
            for r in (row - ring)...(row + ring) where r >= 0 && r < 180 {
                let edge = r == row - ring || r == row + ring
                let columns = edge ? Array((column - ring)...(column + ring)) : [column - ring, column + ring]
                for c in Set(columns.map { (($0 % 360) + 360) % 360 }) {
                    for index in cells[Self.cell(r, c)] ?? [] {
                        let d = Self.distance(latitude, longitude, latitudes[Int(index)], longitudes[Int(index)])
                        if best.map({ d < $0.distance }) ?? true { best = (Int(index), d) }
                    }
                }
            }
        }
        return best.map { (cities[$0.index], $0.distance) }
    }

    /// The nearest place within `limit` metres, or `nil` when none is (a neighbourhood within its
    /// reach): the near search alone answers a short limit, without the one-degree search.
    func nearest(latitude: Double, longitude: Double, within limit: Double) -> (city: City, distanceM: Double)? {
        guard latitude.isFinite, longitude.isFinite, !cities.isEmpty else { return nil }
        let close = nearestClose(latitude: latitude, longitude: longitude, within: limit)
        if close.proven { return close.found.map { (cities[$0.index], $0.distance) } }
        return nearest(latitude: latitude, longitude: longitude).flatMap { $0.distanceM <= limit ? $0 : nil }
    }

    /// The nearest place when it lies within about a degree (and within `limit`), from the
    /// tenth-of-a-degree grid: rings of cells around the coordinate until no nearer place can lie
    /// further out, as ``nearest(latitude:longitude:)`` does with whole degrees. `proven` is false
    /// when that is not settled within ``fineRings`` rings (the open sea, a desert), and the
    /// one-degree search answers; when true, `found` is the nearest within `limit`, or `nil` for none.
    private func nearestClose(latitude: Double, longitude: Double, within limit: Double = .infinity)
        -> (found: (index: Int, distance: Double)?, proven: Bool) {
        let row = Self.fineRow(latitude), column = Self.fineColumn(longitude)
        var best: (index: Int, distance: Double)?
        func visit(_ r: Int, _ c: Int) {
            guard let range = fineCells[Self.fineCell(row: r, column: c)] else { return }
            for position in range {
                let index = Int(fineOrder[Int(position)])
                let d = Self.distance(latitude, longitude, latitudes[index], longitudes[index])
                if best.map({ d < $0.distance }) ?? true { best = (index, d) }
            }
        }
        for ring in 0...Self.fineRings {
            // Any place in ring r is at least r − 1 tenths of a degree away in latitude or longitude.
            let shortest = max(0.01, cos(min(89.9, abs(latitude) + Double(ring) / 10) * .pi / 180))
            if Double(ring - 1) * 11_100 * shortest > min(best?.distance ?? .infinity, limit) {
                return (best.flatMap { $0.distance <= limit ? $0 : nil }, true)
            }
            if ring == 0 { visit(row, column); continue }
            for r in (row - ring)...(row + ring) where r >= 0 && r < 1_800 {
                if r == row - ring || r == row + ring {
                    for c in (column - ring)...(column + ring) { visit(r, c) }
                } else {
                    visit(r, column - ring)
                    visit(r, column + ring)
                }
            }
        }
        return (nil, false)
    }

    /// How many rings of tenth-of-a-degree cells the near search looks through: about a degree.
    private static let fineRings = 12

    /// The cities whose centre lies within `distance` of a coordinate, from the grid cells around it.
    /// - Parameters:
    ///   - latitude: degrees.
    ///   - longitude: degrees.
    ///   - distance: metres.
    /// - Returns: the cities, in no order.
    public func cities(near latitude: Double, _ longitude: Double, within distance: Double) -> [City] {
        guard latitude.isFinite, longitude.isFinite else { return [] }
        let row = Self.row(latitude), column = Self.column(longitude)
        let rows = Int((distance / 111_000).rounded(.up)) + 1
        let columns = min(180, Int((distance / (111_000 * max(0.01, cos(min(89.9, abs(latitude) + Double(rows)) * .pi / 180)))).rounded(.up)) + 1)
        var found: [City] = []
        for r in max(0, row - rows)...min(179, row + rows) {
            for c in Set(((column - columns)...(column + columns)).map { (($0 % 360) + 360) % 360 }) {
                for index in cells[Self.cell(r, c)] ?? [] where Self.distance(latitude, longitude, latitudes[Int(index)],
                                                                                              longitudes[Int(index)]) <= distance {
                    found.append(cities[Int(index)])
                }
            }
        }
        return found
    }

    /// The great-circle distance between two coordinates, in metres (haversine, mean Earth radius).
    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad, dLon = (lon2 - lon1) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
    }

    private static func row(_ latitude: Double) -> Int { min(179, max(0, Int((latitude + 90).rounded(.down)))) }
    private static func column(_ longitude: Double) -> Int { ((Int((longitude + 180).rounded(.down)) % 360) + 360) % 360 }
    private static func cell(_ row: Int, _ column: Int) -> Int { row * 360 + column }
    private static func fineRow(_ latitude: Double) -> Int { min(1_799, max(0, Int(((latitude + 90) * 10).rounded(.down)))) }
    private static func fineColumn(_ longitude: Double) -> Int { Int(((longitude + 180) * 10).rounded(.down)) }
    private static func fineCell(_ latitude: Double, _ longitude: Double) -> Int { fineCell(row: fineRow(latitude), column: fineColumn(longitude)) }
    /// A fine cell's key; a column past either edge wraps round the antimeridian.
    private static func fineCell(row: Int, column: Int) -> Int { row * 3_600 + ((column % 3_600) + 3_600) % 3_600 }
}

/// A gazetteer's places, packed: 200,000 ``City`` values (five strings, three numbers: 104 bytes
/// each, and a heap object for every string longer than 15 bytes, "America/Argentina/Buenos_Aires"
/// once per place) took 29 MB, 43 MB resident. Here a place is its name, two coordinates, its
/// population and the numbers of its region (with its country) and time zone, each region and zone
/// kept once; a ``City`` is made when one is asked for.
public struct Cities: RandomAccessCollection, Sendable {
    /// A first-level region with its country.
    struct Area: Hashable, Sendable {
        let region: String, country: String, countryCode: String
    }

    let names: [String]
    let latitudes: [Double], longitudes: [Double]
    let populations: [Int32]
    let areaOf: [Int32], zoneOf: [Int32]
    let areas: [Area]
    let zones: [String]

    /// Packs `cities`, sharing each region's and time zone's strings.
    init(_ cities: [City]) {
        var areaIndex: [Area: Int32] = [:], zoneIndex: [String: Int32] = [:]
        var areas: [Area] = [], zones: [String] = []
        var areaOf: [Int32] = [], zoneOf: [Int32] = []
        areaOf.reserveCapacity(cities.count)
        zoneOf.reserveCapacity(cities.count)
        for city in cities {
            let area = Area(region: city.region, country: city.country, countryCode: city.countryCode)
            if let index = areaIndex[area] {
                areaOf.append(index)
            } else {
                areaIndex[area] = Int32(areas.count)
                areaOf.append(Int32(areas.count))
                areas.append(area)
            }
            if let index = zoneIndex[city.timeZone] {
                zoneOf.append(index)
            } else {
                zoneIndex[city.timeZone] = Int32(zones.count)
                zoneOf.append(Int32(zones.count))
                zones.append(city.timeZone)
            }
        }
        names = cities.map(\.name)
        latitudes = cities.map(\.latitude)
        longitudes = cities.map(\.longitude)
        populations = cities.map { Int32(clamping: $0.population) }
        (self.areaOf, self.zoneOf, self.areas, self.zones) = (areaOf, zoneOf, areas, zones)
    }

    /// The first place's position: 0.
    public var startIndex: Int { 0 }
    /// One past the last place's position.
    public var endIndex: Int { names.count }

    /// The place at `index`.
    public subscript(index: Int) -> City {
        let area = areas[Int(areaOf[index])]
        return City(name: names[index], region: area.region, country: area.country, countryCode: area.countryCode,
                    timeZone: zones[Int(zoneOf[index])], latitude: latitudes[index], longitude: longitudes[index],
                    population: Int(populations[index]))
    }

    /// The bytes the places take, counted: their arrays, and a heap object for each string longer
    /// than Swift keeps inline (15 UTF-8 bytes: a 32-byte header and the bytes, rounded to 16).
    public var bytes: Int {
        func heap(_ text: String) -> Int { text.utf8.count > 15 ? (32 + text.utf8.count + 15) / 16 * 16 : 0 }
        return count * (MemoryLayout<String>.stride + 2 * MemoryLayout<Double>.stride + 3 * MemoryLayout<Int32>.stride)
            + names.reduce(0) { $0 + heap($1) }
            + areas.reduce(0) { $0 + MemoryLayout<Area>.stride + heap($1.region) + heap($1.country) + heap($1.countryCode) }
            + zones.reduce(0) { $0 + MemoryLayout<String>.stride + heap($1) }
    }
}
