import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Apple Health's export (`export.zip`, or its folder unpacked): workouts with their statistics and
/// routes, steps folded into runs and walks, streamed, and what a broken export does.
@Suite("Apple Health export")
struct AppleHealthTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    /// 2024-05-04 07:05:00 -0400.
    static let runStart: Int64 = 1_714_820_700_000

    static func importing(_ paths: [String], into temporary: TemporaryStore) -> [ExportImporter.FileResult] {
        ExportImporter(store: temporary.store).run(paths.map { fixtures + "/" + $0 }) { _, _, _, _ in }
    }

    static func workouts(_ store: Store) throws -> [(item: LibraryItem, workout: Workout)] {
        try store.items().compactMap { item in
            if case .workout(let w) = item.asset { return (item, w) }
            return nil
        }.sorted { $0.item.startMs < $1.item.startMs }
    }

    static func motion(_ store: Store) throws -> [(item: LibraryItem, motion: MotionActivity)] {
        try store.items().compactMap { item in
            if case .motionActivity(let m) = item.asset { return (item, m) }
            return nil
        }.sorted { $0.item.startMs < $1.item.startMs }
    }

    @Test("dates keep their offset: 2024-05-04 07:05:00 -0400 is 11:05 UTC")
    func dates() {
        #expect(HealthDates.parse("2024-05-04 07:05:00 -0400")! == (Self.runStart, -14_400))
        #expect(HealthDates.parse("2024-05-04 13:05:00 +0200")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-05-04T11:05:00Z")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-05-04T16:35:00+05:30")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-02-29 00:00:00 +0000")!.ms == 1_709_164_800_000)
        #expect(HealthDates.parse("2024-13-04 07:05:00 -0400") == nil)
        #expect(HealthDates.parse("2024-05-04 07:05") == nil)
        #expect(HealthDates.parse("2024-05-04 07:05:00 -04") == nil)
    }

    @Test("activity types map to HealthKit's raw values")
    func activityTypes() {
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeRunning") == 37)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeWalking") == 52)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeHiking") == 24)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeCycling") == 13)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeSwimming") == 46)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeYoga") == 57)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeHighIntensityIntervalTraining") == 63)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeSomethingNew") == 3000)
    }

    @Test("export.xml is told by its DOCTYPE, which outruns the 4 KiB a file's kind is told from")
    func detection() throws {
        let prefix = try #require(ExportKind.prefix(ofFile: Self.fixtures + "/apple_health_export/export.xml"))
        #expect(prefix.count == 4_096)
        #expect(ExportKind.detect(prefix, name: "renamed.xml") == .appleHealth)
        #expect(ExportKind.detect(Array("<HealthData locale=\"en_US\">".utf8), name: "x") == .appleHealth)
    }

    @Test("the reader: four workouts with distance, energy, heart rate, steps and the run's route")
    func reader() throws {
        var progress: [Int] = []
        let data = try AppleHealthExport.read(path: Self.fixtures + "/apple_health_export/export.xml", name: "export.xml") { progress.append($0) }
        #expect(data.workouts.map(\.activityType) == [37, 52, 13, 57])
        let run = data.workouts[0]
        #expect(run.startMs == Self.runStart)
        #expect(run.endMs == Self.runStart + 1_950_000)
        #expect(run.distanceMeters == 5120)
        #expect(run.distanceIsDevices)
        #expect(run.energyKilocalories == 312.5)
        #expect(run.averageHeartRate == 151.4)
        #expect(run.steps == 5_200)
        #expect(run.route.count == 66)
        #expect(run.route.first?.timeMs == Self.runStart + 1_000)
        #expect(run.name == "Outdoor Run")
        #expect(run.format == "apple-health")
        let walk = data.workouts[1]
        #expect(abs(walk.distanceMeters! - 2.1 * 1609.344) < 0.001)
        #expect(walk.energyKilocalories == 150)
        #expect(walk.steps == nil)  // no step samples during it
        #expect(walk.route.isEmpty)
        let ride = data.workouts[2]
        #expect(abs(ride.energyKilocalories! - 400) < 0.01)  // 1673.6 kJ
        #expect(ride.distanceMeters == 16_400)
        #expect(data.workouts[3].name == "Yoga")
        // The walk on Friday morning: the watch's 4,000 steps, not the phone's 3,600 as well.
        #expect(data.motion.count == 1)
        let morning = try #require(data.motion.first)
        #expect(morning.steps == 4_000)
        #expect(morning.startMs == 1_714_737_600_000)  // 2024-05-03 08:00 -0400
        #expect(morning.endMs == 1_714_737_600_000 + 2_400_000)
        #expect(!morning.running)
        #expect(data.read["health records"] == 31)  // ExportDate, Me, 24 records, 4 workouts, an activity summary
        #expect(progress.last == 31)
        #expect(data.leftOut.isEmpty)
    }

    @Test("export.zip: one run with its route, not a second workout from the route file; the CDA file is not reported")
    func zipImport() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_export.zip"], into: temporary)
        #expect(results.count == 1, "\(results)")
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.kind == "apple-health")
        #expect(result.workouts == 4)
        #expect(result.counts["walks and runs"] == 1)
        let workouts = try Self.workouts(temporary.store)
        #expect(workouts.count == 4)
        let run = workouts[0].workout
        #expect(run.route.count == 66)
        #expect(run.details?.distance?.value == 5120)
        #expect(run.details?.activityType == 37)
        #expect(workouts[0].item.externalID == "apple-health")
        // The run's steps and the morning walk, as motion.
        let motion = try Self.motion(temporary.store)
        #expect(motion.map(\.motion.steps) == [4_000, 5_200])
        #expect(motion[1].motion.movementType == .running)
        #expect(motion[0].motion.movementType == .walking)
    }

    @Test("the unpacked folder imports the same, and again is all duplicates")
    func folderImport() throws {
        let temporary = try TemporaryStore()
        let first = Self.importing(["apple_health_export"], into: temporary)
        #expect(first.map(\.kind) == ["apple-health"], "\(first)")
        let count = try temporary.store.items().count
        let again = Self.importing(["apple_health_export"], into: temporary)
        #expect(again.first?.duplicates == 5)  // 4 workouts and the walk
        #expect(try temporary.store.items().count == count)
    }

    @Test("the same run's Strava GPX is the same workout, under the person's name, with the watch's distance")
    func dedupeWithGPX() throws {
        for order in [["apple_health_export.zip", "strava_same_run.gpx"], ["strava_same_run.gpx", "apple_health_export.zip"]] {
            let temporary = try TemporaryStore()
            for path in order {
                let results = Self.importing([path], into: temporary)
                #expect(results.allSatisfy { $0.error == nil }, "\(results)")
            }
            let runs = try Self.workouts(temporary.store).filter { $0.workout.details?.activityType == 37 }
            #expect(runs.count == 1, "\(order)")
            #expect(runs.first?.workout.details?.localizedName == "Riverside before breakfast")
            #expect(runs.first?.workout.details?.distance?.value == 5120)
            #expect(runs.first?.workout.route.count == 66)
        }
    }

    @Test("a zip whose route file is missing imports the run without its route, and says so")
    func missingRoute() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_missing_route.zip"], into: temporary)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.workouts == 4)
        #expect(result.counts["workout routes not found in the export"] == 1)
        let run = try #require(try Self.workouts(temporary.store).first)
        #expect(run.workout.route.isEmpty)
        #expect(run.workout.details?.distance?.value == 5120)
    }

    @Test("an export.zip whose export.xml is larger than a zip entry may unpack to says to import the unzipped folder")
    func tooLargeForZip() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/apple_health_missing_route.zip")))
        // The central directory's uncompressed size of its one entry: 600 MiB.
        let central = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x01, 0x02]) })
        let size = UInt32(600 << 20)
        for k in 0..<4 { bytes[central + 24 + k] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(k))) }
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path + "/export.zip"))
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([directory.path + "/export.zip"]) { _, _, _, _ in }
        let error = try #require(results.first?.error)
        #expect(error.contains("600 MiB") && error.contains("import its apple_health_export folder"), "\(error)")
    }

    @Test("a truncated export.xml is refused with its line, and nothing of it is imported")
    func truncated() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_truncated.xml", "strava_same_run.gpx"], into: temporary)
        #expect(results.count == 2)
        let error = try #require(results[0].error)
        #expect(results[0].kind == "apple-health")
        #expect(error.hasPrefix("apple_health_truncated.xml, line "), "\(error)")
        #expect(error.contains("truncated"), "\(error)")
        // The next file still imports; nothing of the broken one does.
        #expect(results[1].error == nil)
        let workouts = try Self.workouts(temporary.store)
        #expect(workouts.count == 1)
        #expect(workouts.first?.item.externalID == "gpx")
        #expect(try Self.motion(temporary.store).isEmpty)
    }

    @Test("broken documents: each refused with what is wrong")
    func malformed() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        let cases: [(String, String)] = [
            ("<HealthData>\n <Record type=\"x\" startDate=\"2024-05-04 07:05:00 -0400\"/>\n", "ends inside <HealthData>"),
            ("<HealthData>\n <Correlation>\n </Record>\n</HealthData>\n", "</Record> where <Correlation> should close"),
            ("<HealthData>\n <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"12\" startDate=\"yesterday\" endDate=\"today\"/>\n</HealthData>\n",
             "not a date"),
            ("<HealthData>\n <Record type=HKQuantityTypeIdentifierStepCount/>\n</HealthData>\n", "without quotes"),
            ("<HealthData/>\n<HealthData/>\n", "after the root"),
            ("<HealthData>\n" + String(repeating: "<a>", count: 100) + "\n", "deeper than 64"),
            ("<HealthData>\n <Record type=\"" + String(repeating: "x", count: 1_100_000) + "\"/>\n</HealthData>\n", "longer than"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = directory.path + "/export-\(index).xml"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try AppleHealthExport.read(path: path, name: "export.xml")
                Issue.record("case \(index) was read")
            } catch {
                #expect(error.description.contains(expected), "\(index): \(error.description)")
                #expect(error.location?.hasPrefix("line ") == true)
            }
        }
    }

    @Test("tags split across reads are read whole: a document read in chunks of any size gives the same")
    func chunkBoundaries() throws {
        // Records long enough that several straddle every 1 MiB chunk boundary.
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ATTLIST Record a CDATA \"x>y\">\n]>\n<HealthData locale=\"en_US\">\n"
        let base = Int64(1_714_737_600)
        for index in 0..<30_000 {
            let start = base + Int64(index) * 60
            let date = { (s: Int64) in
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = TimeZone(secondsFromGMT: 0)
                f.dateFormat = "yyyy-MM-dd HH:mm:ss"
                return f.string(from: Date(timeIntervalSince1970: Double(s))) + " +0000"
            }
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Ana&#8217;s &lt;Watch&gt;\" unit=\"count\" "
                + "startDate=\"\(date(start))\" endDate=\"\(date(start + 60))\" value=\"\(index % 3 == 0 ? 0 : 100)\"/>\n"
        }
        text += "</HealthData>\n"
        let path = directory.path + "/export.xml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text.utf8.count > 2 * XMLTagStream.chunk)
        let data = try AppleHealthExport.read(path: path, name: "export.xml")
        #expect(data.read["health records"] == 30_000)
        // Every third minute has no steps: 2 of 3 minutes at 100 steps keep one walk going all along.
        #expect(data.motion.count == 1)
        #expect(data.motion.first?.steps == 2_000_000)
    }

    @Test("a long route is thinned to what the library keeps, its first and last points kept, while the export is read")
    func thinning() {
        let route = (0..<3_601).map { LocationPoint(timeMs: Int64($0) * 1000, latitude: 40 + Double($0) * 1e-5, longitude: -74) }
        let thinned = AppleHealthExport.thinned(route)
        #expect(thinned.count == ExportItems.maximumRoutePoints)
        #expect(thinned.first == route.first)
        #expect(thinned.last == route.last)
        #expect(AppleHealthExport.thinned(Array(route.prefix(66))).count == 66)
    }

    @Test("many walks and workouts cost n log n: 50,000 ten-minute walks, every other inside a workout")
    func manyWalks() {
        var samples = StepSamples()
        let base: Int64 = 1_700_000_000_000
        for walk in 0..<50_000 {
            let start = base + Int64(walk) * 1_800_000  // every 30 minutes
            for minute in 0..<11 {
                let t = start + Int64(minute) * 60_000
                samples.add(startMs: t, endMs: t + 60_000, steps: 110, source: "watch")
            }
        }
        samples.finish()
        let workouts = (0..<25_000).map { i -> ClosedRange<Int64> in
            let start = base + Int64(2 * i) * 1_800_000
            return start...(start + 660_000)
        }
        let bouts = samples.bouts(outside: workouts, format: "apple-health")
        #expect(bouts.count == 25_000)
        #expect(bouts.allSatisfy { $0.steps == 1_210 })
    }

    @Test("attribute entities are decoded")
    func entities() {
        let bytes = Array("Ana&#8217;s &lt;Watch&gt; &amp; &quot;phone&quot; &#x41;&unknown;".utf8)
        let text = bytes.withUnsafeBufferPointer { XMLTagStream.decoded($0) }
        #expect(text == "Ana\u{2019}s <Watch> & \"phone\" A&unknown;")
    }
}
