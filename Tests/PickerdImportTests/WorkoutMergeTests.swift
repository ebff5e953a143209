import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The same workout in two files (a watch's TCX, an app's GPX) is one item, under the name the
/// person gave it, whichever file comes first and whichever copy's route is kept.
@Suite("Duplicate workouts keep the person's own name")
struct WorkoutMergeTests {
    static let start: Int64 = 1_714_812_000_000  // 2024-05-04T08:40:00Z

    static func iso(_ ms: Int64) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) }

    /// `count` points a minute apart heading east along the Spree from Berlin's Ostbahnhof.
    static func points(_ count: Int) -> [(lat: Double, lon: Double, time: String)] {
        (0..<count).map { index -> (lat: Double, lon: Double, time: String) in
            let step = Double(index)
            return (52.51 - step * 0.0004, 13.43 + step * 0.0012, iso(start + Int64(index) * 60_000))
        }
    }

    static func gpx(name: String, points count: Int) -> String {
        let points = points(count).map { "<trkpt lat=\"\($0.lat)\" lon=\"\($0.lon)\"><time>\($0.time)</time></trkpt>" }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="StravaGPX" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name><type>running</type><trkseg>\(points)</trkseg></trk></gpx>
            """
    }

    static func tcx(notes: String?, points count: Int) -> String {
        let points = points(count).map {
            "<Trackpoint><Time>\($0.time)</Time><Position><LatitudeDegrees>\($0.lat)</LatitudeDegrees><LongitudeDegrees>\($0.lon)</LongitudeDegrees></Position></Trackpoint>"
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>\(iso(start))</Id>
            <Lap StartTime="\(iso(start))"><TotalTimeSeconds>\(count * 60)</TotalTimeSeconds><DistanceMeters>10012</DistanceMeters><Track>\(points)</Track></Lap>
            \(notes.map { "<Notes>\($0)</Notes>" } ?? "")</Activity></Activities></TrainingCenterDatabase>
            """
    }

    /// Imports the files one after the other (each its own run, as a person adds them), and
    /// returns the library's workouts' names and route sizes.
    static func importing(_ files: [(String, String)]) throws -> [(name: String, points: Int, distance: Double?)] {
        let temporary = try TemporaryStore()
        for (name, text) in files {
            let path = temporary.directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let results = ExportImporter(store: temporary.store).run([path]) { _, _, _, _ in }
            #expect(results.allSatisfy { $0.error == nil }, "\(results)")
        }
        var workouts: [(name: String, points: Int, distance: Double?)] = []
        for item in try temporary.store.items() {
            guard case .workout(let w) = item.asset else { continue }
            workouts.append((w.details?.localizedName ?? "", w.route.count, w.details?.distance?.value))
        }
        return workouts
    }

    static let own = "Sunday long run to Treptower Park"

    @Test("the GPX's own name survives when the TCX, with more points, wins the merge, in either order")
    func ownNameSurvivesARicherDuplicate() throws {
        for order in [[0, 1], [1, 0]] {
            let files = [("Sunday_long_run.gpx", Self.gpx(name: Self.own, points: 40)), ("activity_123.tcx", Self.tcx(notes: nil, points: 80))]
            let workouts = try Self.importing(order.map { files[$0] })
            #expect(workouts.count == 1, "\(order): \(workouts)")
            #expect(workouts.first?.name == Self.own, "\(order)")
            #expect(workouts.first?.points == 80, "the richer route is kept")
        }
    }

    @Test("the person's name in a TCX's Notes beats Strava's \"Morning Run\" in the GPX, in either order")
    func ownNameBeatsAnAppDefault() throws {
        for order in [[0, 1], [1, 0]] {
            let files = [("Morning_Run.gpx", Self.gpx(name: "Morning Run", points: 80)), ("activity_123.tcx", Self.tcx(notes: Self.own, points: 40))]
            let workouts = try Self.importing(order.map { files[$0] })
            #expect(workouts.map(\.name) == [Self.own], "\(order)")
        }
    }

    @Test("the TCX lap's own distance is kept when the GPX, with more points, wins the merge, in either order")
    func devicesDistanceSurvives() throws {
        for order in [[0, 1], [1, 0]] {
            let files = [("Sunday_long_run.gpx", Self.gpx(name: Self.own, points: 80)), ("activity_123.tcx", Self.tcx(notes: nil, points: 40))]
            let workouts = try Self.importing(order.map { files[$0] })
            #expect(workouts.count == 1)
            #expect(workouts.first?.points == 80, "\(order)")
            #expect(workouts.first?.name == Self.own, "\(order)")
            #expect(workouts.first?.distance == 10_012, "\(order): \(workouts)")
        }
    }

    @Test("an app's default does not replace a name, and a name is kept over none")
    func defaultsNeverWin() throws {
        #expect(try Self.importing([("a.gpx", Self.gpx(name: "Berlin Running", points: 40)),
                                    ("b.gpx", Self.gpx(name: "Morning Run", points: 80))]).map(\.name) == ["Berlin Running"])
        #expect(try Self.importing([("a.tcx", Self.tcx(notes: nil, points: 80)),
                                    ("b.gpx", Self.gpx(name: "Morning Run", points: 40))]).map(\.name) == ["Morning Run"])
    }

    @Test("app defaults are told from names people give", arguments: [
        ("", 0), ("Morning Run", 1), ("Afternoon Ride", 1), ("Lunch Run", 1), ("Outdoor Walk", 1), ("Running", 1),
        ("Night Hike", 1), ("Run 2024-05-04", 1), ("Activity 12345678", 1), ("Treadmill Running", 1),
        ("Berlin Running", 2), ("Lisbon - Trail Running", 2), ("Porto Cycling", 2),
        ("Sunday long run to Treptower Park", 3), ("Parkrun Hasenheide", 3), ("Hike to the Teufelsberg", 3), ("Run with Ana", 3),
    ])
    func ranks(name: String, rank: Int) {
        #expect(WorkoutNames.rank(name) == rank, "\(name)")
    }
}
