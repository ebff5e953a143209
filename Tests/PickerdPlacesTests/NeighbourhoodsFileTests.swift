import Foundation
@testable import PickerdPlaces
import Testing

@Suite("The neighbourhoods are a data file: where it is found, how it reads, and life without it")
struct NeighbourhoodsFileTests {
    /// The repository's data file, beside this package's Package.swift.
    static let repositoryFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/neighbourhoods.tsv").path

    @Test("a build's program finds Data/ of the repository it was built in, before the installed file; $PICKERD_NEIGHBOURHOODS alone when set")
    func whereItIsFound() throws {
        let repository = FileManager.default.temporaryDirectory.appendingPathComponent("pickerd-places-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: repository) }
        try FileManager.default.createDirectory(atPath: repository + "/.build/x86_64-unknown-linux-gnu/debug", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: repository + "/Package.swift", contents: Data())
        #expect(Gazetteer.neighbourhoodsFiles(environment: [:], executable: repository + "/.build/x86_64-unknown-linux-gnu/debug/pickerd")
                == [repository + "/Data/neighbourhoods.tsv", "/usr/share/pickerd/neighbourhoods.tsv"])
        #expect(Gazetteer.neighbourhoodsFiles(environment: [:], executable: "/usr/bin/pickerd") == ["/usr/share/pickerd/neighbourhoods.tsv"])
        #expect(Gazetteer.neighbourhoodsFiles(environment: ["PICKERD_NEIGHBOURHOODS": "/tmp/n.tsv"], executable: repository + "/.build/x86_64-unknown-linux-gnu/debug/pickerd")
                == ["/tmp/n.tsv"])
        // This test runner is a build's program too: the first place it looks is the repository's file.
        #expect(Gazetteer.neighbourhoodsFiles(environment: [:]).first == Self.repositoryFile)
    }

    @Test("the data file reads whole: every line that is not a comment is a place")
    func readsWhole() throws {
        let text = try String(contentsOfFile: Self.repositoryFile, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count > 20_000)
        let (places, problem) = Gazetteer.loadNeighbourhoods(from: ["/nonexistent/neighbourhoods.tsv", Self.repositoryFile])
        #expect(problem == nil && places.count == lines.count, "\(places.count) of \(lines.count): \(problem ?? "")")
        #expect(Gazetteer.neighbourhoods.cities.count == lines.count)
        let kreuzberg = try #require(places.first { $0.name == "Kreuzberg" })
        #expect(abs(kreuzberg.latitude - 52.5) < 0.1 && abs(kreuzberg.longitude - 13.4) < 0.1 && kreuzberg.population > 100_000)
    }

    @Test("comments and lines that do not read are passed over")
    func passesOver() {
        let text = "# a comment\tnot\t1\t2\nAlfama\t38.71\t-9.13\t3000\nno tabs here\nBad\tx\t1\t2\n\nUeno\t35.71\t139.77\t20000\n"
        let places = Array(text.utf8).withUnsafeBytes { Gazetteer.readNeighbourhoods($0) }
        #expect(places.map(\.name) == ["Alfama", "Ueno"])
    }

    @Test("without the data file, a place in a large city is named by its city, and the problem says where pickerd looked")
    func withoutTheFile() throws {
        let (places, problem) = Gazetteer.loadNeighbourhoods(from: ["/nonexistent/neighbourhoods.tsv", "/nonexistent/too.tsv"])
        #expect(places.isEmpty)
        let said = try #require(problem)
        #expect(said.contains("/nonexistent/neighbourhoods.tsv, /nonexistent/too.tsv") && said.contains("named by their cities alone")
                && said.contains("PICKERD_NEIGHBOURHOODS"), "\(said)")
        let none = Gazetteer(cities: places)
        #expect(Gazetteer.shared.name(latitude: 52.4986, longitude: 13.4187, neighbourhoods: none)?.place == "Berlin")
        #expect(Gazetteer.shared.name(latitude: 35.7056, longitude: 139.7731, neighbourhoods: none)?.place == "Tokyo")
        // Outside cities nothing changes; with the file, the neighbourhood.
        #expect(Gazetteer.shared.name(latitude: 41.738, longitude: -8.144, neighbourhoods: none)?.place == "near Vieira do Minho")
        #expect(Gazetteer.shared.name(latitude: 52.4986, longitude: 13.4187)?.place == "Kreuzberg")
    }

    @Test("an empty data file is a problem too, said with its path")
    func emptyFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pickerd-empty-\(getpid()).tsv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("# only a comment\n".utf8))
        let (places, problem) = Gazetteer.loadNeighbourhoods(from: [path])
        #expect(places.isEmpty && problem?.contains(path) == true, "\(problem ?? "")")
    }
}
