import Foundation
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// `pickerctl import` through a real pickerd: a Takeout folder and a folder of runs become places,
/// workouts, a workout moment titled by its place and a trip; the same run twice is one workout;
/// a broken file is refused whole, naming its line, and the rest goes on.
@Suite("Importing a person's exports", .serialized)
struct ImportTests {
    static func e7(_ degrees: Double) -> Int { Int((degrees * 10_000_000).rounded()) }

    /// A Semantic Location History object for a visit, as Takeout writes it (2022+ shape).
    static func placeVisit(_ name: String, _ lat: Double, _ lon: Double, _ start: String, _ end: String,
                           semantic: String = "TYPE_UNKNOWN", address: String = "") -> [String: Any] {
        ["placeVisit": ["location": ["latitudeE7": e7(lat), "longitudeE7": e7(lon), "placeId": "place-\(name.hash & 0xffff)",
                                     "address": address, "name": name, "semanticType": semantic],
                        "duration": ["startTimestamp": start, "endTimestamp": end],
                        "placeConfidence": "HIGH_CONFIDENCE"]]
    }

    /// The person's Takeout: New York, home at night, a morning in Riverside Park, three days in Lisbon.
    static func makeTakeout(_ root: String) throws {
        let history = root + "/Takeout/Location History (Timeline)/Semantic Location History/2024"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        var objects: [[String: Any]] = []
        for day in 1...3 {
            objects.append(placeVisit("Home", 40.7812, -73.9760, "2024-05-0\(day)T00:00:00Z", "2024-05-0\(day)T10:55:00Z",
                                      semantic: "TYPE_HOME", address: "W 80th St, New York, NY 10024, USA"))
            objects.append(placeVisit("Home", 40.7812, -73.9760, "2024-05-0\(day)T13:00:00Z", "2024-05-0\(day + 1)T00:00:00Z",
                                      semantic: "TYPE_HOME", address: "W 80th St, New York, NY 10024, USA"))
        }
        // The run's place: 07:00–08:30 in New York (11:00–12:30 UTC) on 4 May.
        objects.append(placeVisit("Riverside Park", 40.7870, -73.9810, "2024-05-04T11:00:00Z", "2024-05-04T12:30:00Z",
                                  address: "Riverside Dr, New York, NY 10024, USA"))
        // Three days in Lisbon.
        for (day, place) in ["Belém Tower", "Alfama", "LX Factory"].enumerated() {
            objects.append(placeVisit(place, 38.6916 + Double(day) * 0.01, -9.2160 + Double(day) * 0.05,
                                      "2024-05-1\(day)T10:00:00Z", "2024-05-1\(day)T16:00:00Z", address: "Rua, 1400-206 Lisboa, Portugal"))
        }
        objects.append(placeVisit("Pastéis de Belém", 38.6975, -9.2032, "2024-05-10T16:30:00Z", "2024-05-10T17:15:00Z",
                                  address: "R. de Belém 84, 1300-085 Lisboa, Portugal"))
        let data = try JSONSerialization.data(withJSONObject: ["timelineObjects": objects])
        try data.write(to: URL(fileURLWithPath: history + "/2024_MAY.json"))
    }

    /// A GPX run in Riverside Park (as Strava exports it), 07:05–07:40 New York time.
    static func gpxRun(start: Date = Date(timeIntervalSince1970: 1_714_820_700)) -> String {
        var points = ""
        for i in 0..<36 {
            let t = ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(i) * 60))
            points += """
                <trkpt lat="\(40.7850 + Double(i) * 0.0004)" lon="\(-73.9830 + Double(i) * 0.0002)"><ele>\(10 + i % 5)</ele><time>\(t)</time></trkpt>

                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="StravaGPX" version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
             <metadata><time>\(ISO8601DateFormatter().string(from: start))</time></metadata>
             <trk><name>Morning Run</name><type>running</type><trkseg>
            \(points) </trkseg></trk>
            </gpx>
            """
    }

    @Test("a Takeout folder and a folder of runs: places, workouts, a run titled by its place, a trip; the same run twice is one workout")
    func takeoutAndRuns() throws {
        let pickerd = try RunningPickerd(seed: false)
        try Self.makeTakeout(pickerd.root)
        let runs = pickerd.root + "/runs"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        try Self.gpxRun().write(toFile: runs + "/2024-05-04-run.gpx", atomically: true, encoding: .utf8)
        try Self.gpxRun().write(toFile: runs + "/copy-from-another-export.xml", atomically: true, encoding: .utf8)
        try "notes".write(toFile: runs + "/notes.txt", atomically: true, encoding: .utf8)

        let imported = try pickerd.ctl(["import", pickerd.root + "/Takeout", runs])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        #expect(imported.stdout.contains("2024_MAY.json (semantic): 11 visits"), "\(imported.stdout)")
        #expect(imported.stdout.contains("2024-05-04-run.gpx (gpx): 1 workout"))
        #expect(imported.stdout.contains("copy-from-another-export.xml (gpx): 1 workout, 1 already imported"), "the kind comes from the content")
        #expect(imported.stdout.contains("1 file not recognised as an export"))

        let store = try Store(dataDirectory: pickerd.data)
        let items = try store.personsItems()
        #expect(items.filter { $0.kind == .workout }.count == 1)
        // The visits, and where the run went (its own place item, named by the gazetteer).
        #expect(items.filter { $0.kind == .location && $0.externalID != "workout-place" }.count == 11)
        #expect(items.filter { $0.kind == .location && $0.externalID == "workout-place" }.count == 1, "one run, one place, however often imported")
        // The day in Lisbon with two places has them as a group, which the trip shows.
        let groups = items.filter { $0.kind == .locationGroup }
        #expect(groups.count == 1)
        if case .locationGroup(let g) = groups.first?.asset { #expect(g.locations.map(\.place) == ["Belém Tower", "Pastéis de Belém"]) }
        let run = try #require(items.first { $0.kind == .workout })
        if case .workout(let w) = run.asset {
            #expect(w.details?.activityType == 37)
            #expect(w.route.count == 36)
            #expect((w.details?.distance?.value ?? 0) > 1_000)
        }
        let titles = try store.suggestions().map(\.title)
        #expect(titles.contains { $0.contains("run in Riverside Park") }, "\(titles)")
        #expect(titles.contains { $0.hasPrefix("3 days in Lisboa") }, "three days away are a trip: \(titles)")
        let trip = try #require(try store.suggestions().first { $0.title.hasPrefix("3 days in Lisboa") })
        #expect(trip.itemIDs.contains(try #require(groups.first?.id)))

        // Importing the same folders again adds nothing.
        let again = try pickerd.ctl(["import", pickerd.root + "/Takeout", runs])
        #expect(again.stdout.contains("0 items added"), "\(again.stdout)")
        #expect(try store.personsItems().count == items.count)
        pickerd.stop()
    }

    @Test("a truncated JSON file is refused whole, naming its line; the other files are imported and pickerd serves on")
    func brokenFile() throws {
        let pickerd = try RunningPickerd(seed: false)
        let folder = pickerd.root + "/exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let good = try JSONSerialization.data(withJSONObject: ["timelineObjects": [Self.placeVisit("Home", 40.7812, -73.9760, "2024-05-01T00:00:00Z",
                                                                                                      "2024-05-01T10:00:00Z", semantic: "TYPE_HOME")]],
                                              options: .prettyPrinted)
        try good.write(to: URL(fileURLWithPath: folder + "/2024_MAY.json"))
        let text = String(decoding: good, as: UTF8.self)
        try String(text.prefix(text.count * 2 / 3)).write(toFile: folder + "/2024_JUNE.json", atomically: true, encoding: .utf8)
        try "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"40.7\" lon=\"-73.9\"></trkpt></trkseg></trk></gpx>"
            .write(toFile: folder + "/no-times.gpx", atomically: true, encoding: .utf8)
        // A FIFO among the files is walked past, never opened (opening one would wait for a writer).
        #expect(mkfifo(folder + "/pipe", 0o600) == 0)
        let imported = try pickerd.ctl(["import", folder])
        #expect(imported.status == 1)
        #expect(!imported.stdout.contains("pipe"), "\(imported.stdout)")
        #expect(imported.stdout.contains("2024_MAY.json (semantic): 1 visit"), "\(imported.stdout)")
        let broken = imported.stdout.split(separator: "\n").first { $0.contains("2024_JUNE.json") }.map(String.init) ?? ""
        #expect(broken.contains("not imported"), "\(imported.stdout)")
        #expect(broken.contains("line"), "\(imported.stdout)")
        #expect(imported.stdout.contains("no-times.gpx: not imported"), "\(imported.stdout)")
        #expect(try pickerd.ctl(["status"]).stdout.contains("library: 1 items"))
        pickerd.stop()
    }

    /// A Strava bulk export, zipped by Python's zipfile (as Strava's own is a plain deflated zip):
    /// activities.csv, a gzip-compressed GPX and a FIT file from the fixtures.
    static func makeStravaZip(_ path: String, gpx: String) throws {
        let fit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PickerdImportTests/Fixtures/ride_hudson_greenway.fit").path
        let script = """
            import gzip, sys, zipfile
            out, gpx, fit = sys.argv[1], sys.argv[2], sys.argv[3]
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("activities.csv", "Activity ID,Activity Date,Activity Name,Activity Type,Filename\\n1,\\"May 4, 2024, 11:05:00 AM\\",\\"Morning Run in the Rain\\",Run,activities/1.gpx.gz\\n")
                z.writestr("activities/1.gpx.gz", gzip.compress(open(gpx, "rb").read()))
                z.write(fit, "activities/2.fit")
            """
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, path, gpx, fit])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test("a Strava export zip is unpacked and imported, its GPX.gz and FIT among the rest; a zip bomb is refused before it expands")
    func stravaZip() throws {
        let pickerd = try RunningPickerd(seed: false)
        let gpx = pickerd.root + "/run.gpx"
        try Self.gpxRun().write(toFile: gpx, atomically: true, encoding: .utf8)
        let zip = pickerd.root + "/export_12345.zip"
        try Self.makeStravaZip(zip, gpx: gpx)
        let imported = try pickerd.ctl(["import", zip])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        #expect(imported.stdout.contains("export_12345.zip/activities/1.gpx.gz (gzip): 1 workout"), "\(imported.stdout)")
        #expect(imported.stdout.contains("export_12345.zip/activities/2.fit (fit): 1 workout"), "\(imported.stdout)")
        let store = try Store(dataDirectory: pickerd.data)
        let workouts = try store.items().filter { $0.kind == .workout }
        #expect(workouts.count == 2)
        // activities.csv names the GPX's run "Morning Run in the Rain" (the GPX itself says "Morning Run").
        #expect(workouts.contains { if case .workout(let w) = $0.asset { w.details?.localizedName == "Morning Run in the Rain" } else { false } })

        let bomb = pickerd.root + "/bomb.zip"
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("Records.json", b"\\0" * (100 << 20))
            """, bomb])
        #expect(r.status == 0, "\(r.stderr)")
        let refused = try pickerd.ctl(["import", bomb])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("bomb.zip: not imported: bomb.zip, Records.json: an entry that would expand to 100 MiB was refused (a zip bomb?)"),
                "\(refused.stdout)")
        #expect(try pickerd.ctl(["status"]).status == 0, "pickerd serves on")
        pickerd.stop()
    }

    @Test("a Garmin export: FIT files in a zip inside the zip are imported; archives nested deeper are refused")
    func garminNested() throws {
        let pickerd = try RunningPickerd(seed: false)
        let fit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PickerdImportTests/Fixtures/hike_bear_mountain.fit").path
        let export = pickerd.root + "/garmin.zip", deep = pickerd.root + "/deep.zip"
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import io, sys, zipfile
            def zipped(name, data):
                buffer = io.BytesIO()
                with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z: z.writestr(name, data)
                return buffer.getvalue()
            fit = open(sys.argv[1], "rb").read()
            inner = zipped("12345678_ACTIVITY.fit", fit)
            with open(sys.argv[2], "wb") as f:
                f.write(zipped("DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip", inner))
            with open(sys.argv[3], "wb") as f:
                f.write(zipped("a.zip", zipped("b.zip", inner)))
            """, fit, export, deep])
        #expect(r.status == 0, "\(r.stderr)")
        let imported = try pickerd.ctl(["import", export])
        #expect(imported.status == 0, "\(imported.stdout)")
        #expect(imported.stdout.contains("UploadedFiles_0-_Part1.zip/12345678_ACTIVITY.fit (fit): 1 workout"), "\(imported.stdout)")
        let refused = try pickerd.ctl(["import", deep])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("archives nested deeper than 2 are not unpacked"), "\(refused.stdout)")
        pickerd.stop()
    }
}
