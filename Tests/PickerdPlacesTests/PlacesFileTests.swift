import Foundation
@testable import PickerdPlaces
import Testing

@Suite("The small places are a data file: where it is found, how it reads, and life without it")
struct PlacesFileTests {
    /// The repository's data file, beside this package's Package.swift.
    static let repositoryFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/places.tsv").path

    @Test("a build's program reads Data/places.tsv of its repository, an installed one /usr/share/pickerd/places.tsv; $PICKERD_PLACES alone when set")
    func whereItIsFound() {
        #expect(Gazetteer.placesFiles(environment: [:], executable: "/usr/bin/pickerd") == ["/usr/share/pickerd/places.tsv"])
        #expect(Gazetteer.placesFiles(environment: ["PICKERD_PLACES": "/tmp/p.tsv"], executable: "/usr/bin/pickerd") == ["/tmp/p.tsv"])
        #expect(Gazetteer.placesFiles(environment: [:]).first == Self.repositoryFile)
    }

    @Test("the data file reads whole: every line that is not a comment, an area or a zone is a place, with its region, country and zone")
    func readsWhole() throws {
        let text = try String(contentsOfFile: Self.repositoryFile, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("area\t") && !$0.hasPrefix("zone\t") }
        #expect(lines.count > 150_000)
        let (places, problem) = Gazetteer.loadSmallPlaces(from: ["/nonexistent/places.tsv", Self.repositoryFile])
        #expect(problem == nil && places.count == lines.count, "\(places.count) of \(lines.count): \(problem ?? "")")
        let katoomba = try #require(places.first { $0.name == "Katoomba" })
        #expect(abs(katoomba.latitude + 33.71977) < 1e-9 && abs(katoomba.longitude - 150.30739) < 1e-9 && katoomba.population == 8_268)
        #expect(katoomba.region == "New South Wales" && katoomba.country == "Australia" && katoomba.countryCode == "AU"
                && katoomba.timeZone == "Australia/Sydney")
        // Only what pickerd uses: nothing inside a libgeonames city (Liverpool, New South Wales, is in Sydney's disc).
        #expect(!places.contains { $0.name == "Liverpool" && $0.countryCode == "AU" })
    }

    @Test("comments, lines that do not read, and places naming an area or zone not given are passed over")
    func passesOver() {
        let text = "# a comment\t1\t2\t3\t0\t0\narea\tPT\tPortugal\tBraga\nzone\tEurope/Lisbon\n"
            + "Vieira do Minho\t4163292\t-814252\t1687\t0\t0\nno tabs here\nBad\tx\t1\t2\t0\t0\nNowhere\t1\t2\t3\t1\t0\n"
            + "Too far\t9100000\t0\t3\t0\t0\n\nSouth\t-100\t-200\t600\t0\t0"
        let places = Array(text.utf8).withUnsafeBytes { Gazetteer.readPlaces($0) }
        #expect(places.map(\.name) == ["Vieira do Minho", "South"])
        #expect(places.first?.region == "Braga" && places.first?.timeZone == "Europe/Lisbon" && places.last?.latitude == -0.001)
    }

    @Test("without the data file, places are named by libgeonames' cities, and the problem says where pickerd looked")
    func withoutTheFile() throws {
        let (places, problem) = Gazetteer.loadSmallPlaces(from: ["/nonexistent/places.tsv", "/nonexistent/too.tsv"])
        #expect(places.isEmpty)
        let said = try #require(problem)
        #expect(said.contains("/nonexistent/places.tsv, /nonexistent/too.tsv") && said.contains("15,000") && said.contains("PICKERD_PLACES"), "\(said)")
        let cities = Gazetteer(placesFrom: ["/nonexistent/places.tsv"])
        #expect(cities.cities.count > 20_000 && cities.cities.count < 30_000)
        #expect(cities.name(latitude: -33.7125, longitude: 150.3119)?.place != "Katoomba")
        #expect(Gazetteer.shared.name(latitude: -33.7125, longitude: 150.3119)?.place == "Katoomba")
    }

    @Test("an empty data file is a problem too, said with its path")
    func empty() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pickerd-places-\(getpid()).tsv").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = FileManager.default.createFile(atPath: file, contents: Data("# nothing\n".utf8))
        let (places, problem) = Gazetteer.loadSmallPlaces(from: [file])
        #expect(places.isEmpty && problem?.contains(file) == true)
    }
}
