import Foundation
import Glibc
import Logging

/// The neighbourhoods of large cities: inside Tokyo, Berlin or Melbourne, the city's name says
/// nothing to the person who lives there ("Afternoon in Tokyo"), so a place there is named by the
/// neighbourhood it lies in ("Afternoon in Ueno", "Morning run in Kreuzberg").
///
/// The places are GeoNames' cities500 (places of 500 people or more, CC BY 4.0, geonames.org) that
/// lie inside a city of 250,000 people or more: about 21,000, in a data file (`Data/neighbourhoods.tsv`,
/// made by `Tools/generate-neighbourhoods`, which describes its format), read once per process on
/// first use (see ``neighbourhoodsFiles(environment:executable:)`` for where it is looked for). GeoNames
/// gives each a centre, not a boundary, so a place is in the neighbourhood whose centre is nearest,
/// within ``reach`` (the cells of a Voronoi diagram over the centres, as offline reverse geocoders do):
/// Tokyo's chō are a few hundred metres apart, Berlin's Ortsteile two or three kilometres.
///
/// Without the file, places are named by their cities alone ("Berlin", not "Kreuzberg"), and the
/// process logs once why.
extension Gazetteer {
    /// The neighbourhoods, read on first use (empty when the data file is missing).
    public static let neighbourhoods: Gazetteer = {
        let (places, problem) = loadNeighbourhoods(from: neighbourhoodsFiles())
        if let problem { Logger(label: "pickerd.places").warning("\(problem)") }
        return Gazetteer(cities: places)
    }()

    /// How far a neighbourhood's centre may be for a place to be named by it, in metres.
    public static let reach = 3_000.0

    /// Where the installed package puts its data files (Tools/package).
    static let installedDataFolder = "/usr/share/pickerd/"

    /// The neighbourhoods' names, folded (case and accents aside): a place named so is an area, which
    /// a title says a moment was "in", not "at".
    static let areaNames: Set<String> = Set(neighbourhoods.cities.map { fold($0.name) })

    /// Whether `name` is a neighbourhood's name (so a title says "in Ueno", not "at Ueno").
    public static func isArea(_ name: String) -> Bool { areaNames.contains(fold(name)) }

    /// The neighbourhood a coordinate lies in: the one whose centre is nearest, within ``reach``.
    /// Only large cities have neighbourhoods here; elsewhere, `nil`.
    public static func neighbourhood(latitude: Double, longitude: Double) -> String? {
        neighbourhood(latitude: latitude, longitude: longitude, in: neighbourhoods)
    }

    /// ``neighbourhood(latitude:longitude:)`` among the given neighbourhoods (tests give their own).
    static func neighbourhood(latitude: Double, longitude: Double, in neighbourhoods: Gazetteer) -> String? {
        guard let (place, distance) = neighbourhoods.nearest(latitude: latitude, longitude: longitude, within: reach), distance <= reach else { return nil }
        return place.name
    }

    /// Where the neighbourhoods' data file is looked for, in order; the first that exists is read.
    ///  1. `$PICKERD_NEIGHBOURHOODS`, when set: that file alone (tests and odd installs; a missing file
    ///     is then missing, not looked for elsewhere).
    ///  2. A build tree: `Data/neighbourhoods.tsv` beside each `Package.swift` in the folders up to five
    ///     levels above the running program, nearest first (`<repository>/.build/<triple>/debug/pickerd`,
    ///     `.build-release/…`, the test runner; Tools/Fuzz's package inside the repository), so a
    ///     `swift build` runs with no copy step and reads the file its sources hold.
    ///  3. ``installedDataFolder``, where the Debian package puts it.
    /// - Parameters:
    ///   - environment: the process's environment.
    ///   - executable: the running program's path (default: /proc/self/exe, links resolved).
    /// - Returns: the paths, most preferred first.
    static func neighbourhoodsFiles(environment: [String: String] = ProcessInfo.processInfo.environment,
                                    executable: String? = runningExecutable()) -> [String] {
        dataFiles("neighbourhoods.tsv", variable: "PICKERD_NEIGHBOURHOODS", environment: environment, executable: executable)
    }

    /// Where a data file of the package's (`Data/NAME` in the sources, `/usr/share/pickerd/NAME`
    /// installed) is looked for, in the order ``neighbourhoodsFiles(environment:executable:)`` says,
    /// with `variable` naming the file that overrides them.
    static func dataFiles(_ name: String, variable: String, environment: [String: String], executable: String?) -> [String] {
        if let override = environment[variable], !override.isEmpty { return [override] }
        var files: [String] = []
        if let executable {
            var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            for _ in 0..<5 {
                if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                    files.append(folder.appendingPathComponent("Data/" + name).path)
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        files.append(installedDataFolder + name)
        return files
    }

    /// The running program's path with its links resolved (readlink of /proc/self/exe), or `nil`.
    static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads the first of `files` that exists.
    /// - Parameter files: paths, most preferred first (``neighbourhoodsFiles(environment:executable:)``).
    /// - Returns: the places, and what went wrong when there are none: no file, or one that cannot be
    ///   read or holds no place (said so a person can act on it).
    static func loadNeighbourhoods(from files: [String]) -> (places: [City], problem: String?) {
        loadDataFile(from: files, holding: "the neighbourhoods of large cities", one: "neighbourhood",
                     otherwise: "places are named by their cities alone", variable: "PICKERD_NEIGHBOURHOODS", read: readNeighbourhoods)
    }

    /// Reads the first of `files` that exists, mapped, with `read`; or says what went wrong, so a
    /// person can act on it: no file, one that cannot be read, or one that holds nothing.
    /// - Parameters:
    ///   - files: paths, most preferred first.
    ///   - holding: what the file holds, as a person reads it ("the small places").
    ///   - one: one of them ("place").
    ///   - otherwise: what names places without it.
    ///   - variable: the environment variable that names the file.
    ///   - read: the file's parser.
    static func loadDataFile(from files: [String], holding: String, one: String, otherwise: String, variable: String,
                             read: (UnsafeRawBufferPointer) -> [City]) -> (places: [City], problem: String?) {
        guard let file = files.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            return ([], "\(holding) are not there (looked for \(files.joined(separator: ", "))): "
                        + "\(otherwise); reinstall pickerd, or set \(variable) to the file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        } catch {
            return ([], "cannot read \(holding) in \(file) (\(error.localizedDescription)): \(otherwise)")
        }
        let places = data.withUnsafeBytes(read)
        guard !places.isEmpty else { return ([], "\(file) holds no \(one): \(otherwise)") }
        return (places, nil)
    }

    /// Parses the data file's text: "name\tlatitude\tlongitude\tpopulation\n" per place, "#" lines are
    /// comments, and a line that does not read is passed over.
    static func readNeighbourhoods(_ bytes: UnsafeRawBufferPointer) -> [City] {
        var places: [City] = []
        places.reserveCapacity(22_000)
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count == 4, let latitude = Double(String(decoding: fields[1], as: UTF8.self)),
                  let longitude = Double(String(decoding: fields[2], as: UTF8.self)),
                  let population = Int(String(decoding: fields[3], as: UTF8.self)) else { continue }
            places.append(City(name: String(decoding: fields[0], as: UTF8.self), region: "", country: "", countryCode: "", timeZone: "",
                               latitude: latitude, longitude: longitude, population: population))
        }
        return places
    }
}
