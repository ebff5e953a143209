import Foundation
import Logging

/// The small places: libgeonames holds cities of 15,000 people or more, so a weekend in Katoomba
/// (8,268 people) took the name of Liverpool, 60 km away. GeoNames' cities500 (every populated place
/// of 500 people or more, CC BY 4.0, geonames.org), with each place's country, first-level region and
/// time zone, is a data file (`Data/places.tsv`, made by `Tools/generate-places`, which describes its
/// format and how region names were matched), read once per process with the cities, on first use,
/// from the same places as the neighbourhoods' file (``placesFiles(environment:executable:)``).
///
/// The file holds only the places that lie outside every libgeonames city's disc: towns and villages
/// (Tools/generate-places leaves the others out). Places inside a city stay the city's
/// neighbourhoods (``neighbourhoods``), so "3 days in Berlin" and "Afternoon in Kreuzberg" read as
/// before. Without the file, only libgeonames' cities
/// name places, and the process logs once why.
extension Gazetteer {
    /// Where the places' data file is looked for, in order: `$PICKERD_PLACES` alone when set, else
    /// `Data/places.tsv` of a build tree above the running program, else `/usr/share/pickerd/places.tsv`
    /// (the same order as ``neighbourhoodsFiles(environment:executable:)``).
    static func placesFiles(environment: [String: String] = ProcessInfo.processInfo.environment,
                            executable: String? = runningExecutable()) -> [String] {
        dataFiles("places.tsv", variable: "PICKERD_PLACES", environment: environment, executable: executable)
    }

    /// The small places, read from the first of `files` that exists, and what went wrong when there
    /// are none (said so a person can act on it). The file holds only places outside every
    /// libgeonames city (Tools/generate-places leaves the others out), so nothing is filtered here.
    static func loadSmallPlaces(from files: [String]) -> (places: [City], problem: String?) {
        loadDataFile(from: files, holding: "the small places", one: "place", otherwise: "places are named by cities of 15,000 people or more",
                     variable: "PICKERD_PLACES", read: readPlaces)
    }

    /// Parses the data file (Tools/generate-places says its format): "area" and "zone" lines are
    /// numbered in their order, every other line of six fields is a place naming them by number;
    /// "#" lines are comments, and a line that does not read is passed over, as is a place naming an
    /// area or zone not given before it.
    ///
    /// It works on the bytes: numbers are read from them in place and a place makes one string, its
    /// name (its country, region and zone share their area's and zone's), so ~177,000 places read
    /// in a fraction of a second even in a debug build (splitting each line into strings took ~20 s).
    static func readPlaces(_ bytes: UnsafeRawBufferPointer) -> [City] {
        var areas: [(code: String, country: String, region: String)] = [], zones: [String] = []
        var places: [City] = []
        places.reserveCapacity(180_000)
        let tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n")
        var fields: [Range<Int>] = []
        fields.reserveCapacity(8)
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        /// A whole number of at most 12 digits, with an optional "-"; `nil` for anything else.
        func number(_ range: Range<Int>) -> Int? {
            var index = range.lowerBound, negative = false
            if index < range.upperBound, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            guard index < range.upperBound, range.upperBound - index <= 12 else { return nil }
            var value = 0
            while index < range.upperBound {
                let digit = Int(bytes[index]) - 48
                guard digit >= 0, digit <= 9 else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return negative ? -value : value
        }
        var start = 0
        while start < bytes.count {
            var end = start
            fields.removeAll(keepingCapacity: true)
            var fieldStart = start
            while end < bytes.count, bytes[end] != newline {
                if bytes[end] == tab { fields.append(fieldStart..<end); fieldStart = end + 1 }
                end += 1
            }
            fields.append(fieldStart..<end)
            defer { start = end + 1 }
            guard end > start, bytes[start] != UInt8(ascii: "#") else { continue }
            if fields.count == 6, let latitude = number(fields[1]), let longitude = number(fields[2]), let population = number(fields[3]),
               let area = number(fields[4]), let zone = number(fields[5]), areas.indices.contains(area), zones.indices.contains(zone),
               abs(latitude) <= 9_000_000, abs(longitude) <= 18_000_000 {
                places.append(City(name: text(fields[0]), region: areas[area].region, country: areas[area].country,
                                   countryCode: areas[area].code, timeZone: zones[zone],
                                   latitude: Double(latitude) / 100_000, longitude: Double(longitude) / 100_000, population: population))
            } else if fields.count == 4, text(fields[0]) == "area" {
                areas.append((text(fields[1]), text(fields[2]), text(fields[3])))
            } else if fields.count == 2, text(fields[0]) == "zone" {
                zones.append(text(fields[1]))
            }
        }
        return places
    }

    /// libgeonames' cities and the small places outside them (logging once when the file is missing).
    static func citiesAndSmallPlaces(_ cities: [City], from files: [String]) -> [City] {
        let (small, problem) = loadSmallPlaces(from: files)
        if let problem { Logger(label: "pickerd.places").warning("\(problem)") }
        return cities + small
    }
}
