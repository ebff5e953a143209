import Foundation
import Logging

/// The small places: libgeonames holds cities of 15,000 people or more, so a weekend in Katoomba
/// (8,268 people) took the name of Liverpool, 60 km away. GeoNames' cities500 (every populated place
/// of 500 people or more, CC BY 4.0, geonames.org), with each place's country, first-level region and
/// time zone, is a data file (`Data/places.tsv`, made by `Tools/generate-places`, which describes its
/// format and how region names were matched), read once per process on first use, from the same
/// places as the neighbourhoods' file (``placesFiles(environment:executable:)``).
///
/// The gazetteer takes from it the places that lie outside every libgeonames city's disc: towns and
/// villages. Places inside a city stay the city's neighbourhoods (``neighbourhoods``), so "3 days in
/// Berlin" and "Afternoon in Kreuzberg" read as before. Without the file, only libgeonames' cities
/// name places, and the process logs once why.
extension Gazetteer {
    /// Where the installed package puts the places (Tools/package).
    static let installedPlacesFile = "/usr/share/pickerd/places.tsv"

    /// Where the places' data file is looked for, in order: `$PICKERD_PLACES` alone when set, else
    /// `Data/places.tsv` of a build tree above the running program, else ``installedPlacesFile``
    /// (the same order as ``neighbourhoodsFiles(environment:executable:)``).
    static func placesFiles(environment: [String: String] = ProcessInfo.processInfo.environment,
                            executable: String? = runningExecutable()) -> [String] {
        if let override = environment["PICKERD_PLACES"], !override.isEmpty { return [override] }
        return neighbourhoodsFiles(environment: [:], executable: executable).map {
            $0 == installedNeighbourhoodsFile ? installedPlacesFile : $0.replacingOccurrences(of: "/Data/neighbourhoods.tsv", with: "/Data/places.tsv")
        }
    }

    /// The places of `cities500` outside every city of `cities`, read from the first of `files` that
    /// exists, and what went wrong when there are none (said so a person can act on it).
    static func loadSmallPlaces(from files: [String], outside cities: Gazetteer) -> (places: [City], problem: String?) {
        guard let file = files.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            return ([], "the small places are not there (looked for \(files.joined(separator: ", "))): "
                        + "places are named by cities of 15,000 people or more; reinstall pickerd, or set PICKERD_PLACES to the file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        } catch {
            return ([], "cannot read the small places in \(file) (\(error.localizedDescription)): places are named by cities of 15,000 people or more")
        }
        let places = data.withUnsafeBytes { readPlaces($0) }.filter { place in
            !cities.cities(near: place.latitude, place.longitude, within: 25_000).contains {
                distance(place.latitude, place.longitude, $0.latitude, $0.longitude) <= $0.radiusM
            }
        }
        guard !places.isEmpty else { return ([], "\(file) holds no place: places are named by cities of 15,000 people or more") }
        return (places, nil)
    }

    /// Parses the data file's text (Tools/generate-places): "country" and "region" lines name codes,
    /// every other line of seven fields is a place; "#" lines are comments, and a line that does not
    /// read is passed over. A region or country the file does not name is left empty.
    static func readPlaces(_ bytes: UnsafeRawBufferPointer) -> [City] {
        var countries: [String: String] = [:], regions: [String: String] = [:]
        var places: [City] = []
        places.reserveCapacity(240_000)
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if fields.count == 3, fields[0] == "country" {
                countries[fields[1]] = String(fields[2])
            } else if fields.count == 4, fields[0] == "region" {
                regions[fields[1] + "\t" + fields[2]] = String(fields[3])
            } else if fields.count == 7, let latitude = Double(fields[1]), let longitude = Double(fields[2]), let population = Int(fields[3]) {
                // One String per country and region, shared by its places (a copy shares the storage).
                places.append(City(name: String(fields[0]), region: regions[fields[4] + "\t" + fields[5]] ?? "",
                                   country: countries[fields[4]] ?? "", countryCode: String(fields[4]), timeZone: String(fields[6]),
                                   latitude: latitude, longitude: longitude, population: population))
            }
        }
        return places
    }

    /// libgeonames' cities and the small places outside them (logging once when the file is missing).
    static func citiesAndSmallPlaces(_ cities: [City]) -> [City] {
        let (small, problem) = loadSmallPlaces(from: placesFiles(), outside: Gazetteer(cities: cities))
        if let problem { Logger(label: "pickerd.places").warning("\(problem)") }
        return cities + small
    }
}
