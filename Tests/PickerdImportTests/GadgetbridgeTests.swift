import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Gadgetbridge's database export: workouts from BASE_ACTIVITY_SUMMARY with their tracks, steps from
/// the device families read, and every other database refused with why.
@Suite("Gadgetbridge database export")
struct GadgetbridgeTests {
    static let fixtures = AppleHealthTests.fixtures
    /// 2024-05-06T06:30:00Z.
    static let runStart: Int64 = 1_714_977_000_000

    @Test("the reader: workouts with kind, summary, track; steps from Mi Band and Pebble; Garmin's counted as left out")
    func reader() throws {
        let data = try GadgetbridgeExport.read(path: Self.fixtures + "/gadgetbridge/Gadgetbridge", name: "Gadgetbridge")
        #expect(data.workouts.map(\.activityType) == [37, 24, 13, 3000])
        let run = data.workouts[0]
        #expect(run.startMs == Self.runStart)
        #expect(run.endMs == Self.runStart + 1_800_000)
        #expect(run.name == "Morning run by the canal")
        #expect(run.distanceMeters == 5012)
        #expect(run.distanceIsDevices)
        #expect(run.energyKilocalories == 320)
        #expect(run.averageHeartRate == 148)
        #expect(run.steps == 4_950)  // the summary's, over the samples'
        #expect(run.route.count == 60)
        #expect(run.format == "gadgetbridge")
        let hike = data.workouts[1]
        #expect(hike.route.isEmpty)
        #expect(hike.steps == nil)  // no samples during it
        let ride = data.workouts[2]
        #expect(ride.distanceMeters == 14_100.5)  // SUMMARY_DATA's plain numbers too
        #expect(ride.energyKilocalories == 410)
        // A walk from the Bip (12:00-12:30, 3,000 steps) and one from the Pebble (15 minutes, 1,800);
        // the run's minutes stay the run's.
        #expect(data.motion.map(\.steps) == [3_000, 1_800])
        let walkStart: Int64 = 1_715_083_200_000  // 2024-05-07T12:00:00Z
        let walk = try #require(data.motion.first)
        #expect(walk.startMs == walkStart)
        #expect(walk.endMs - walk.startMs == 1_800_000)
        #expect(data.leftOut["workout tracks not found beside the database"] == 1)
        #expect(data.leftOut["step samples left out (GARMIN_ACTIVITY_SAMPLE: a device family not read yet)"] == 12)
        #expect(data.read["step samples"] == 80)
    }

    @Test("activity kinds: the legacy bits and the newer codes")
    func kinds() {
        #expect(GadgetbridgeExport.activityType(kind: 0x10) == 37)
        #expect(GadgetbridgeExport.activityType(kind: 0x100) == 37)  // treadmill
        #expect(GadgetbridgeExport.activityType(kind: 0x20) == 52)
        #expect(GadgetbridgeExport.activityType(kind: 0x80) == 13)
        #expect(GadgetbridgeExport.activityType(kind: 0x400) == 46)
        #expect(GadgetbridgeExport.activityType(kind: 0x0040_0000) == 24)
        #expect(GadgetbridgeExport.activityType(kind: 0x4000) == 57)
        #expect(GadgetbridgeExport.activityType(kind: 0x0400_00B1) == 37)
        #expect(GadgetbridgeExport.activityType(kind: 0x0400_0045) == 3000)
    }

    @Test("the folder imports the database once, its track not again as a workout of its own")
    func folderImport() throws {
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixtures + "/gadgetbridge"]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["gadgetbridge"], "\(results)")
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.workouts == 4)
        #expect(result.counts["walks and runs"] == 2)
        let items = try temporary.store.items()
        let workouts = items.compactMap { item -> Workout? in
            if case .workout(let w) = item.asset { return w }
            return nil
        }
        #expect(workouts.count == 4)
        #expect(workouts.contains { $0.route.count == 60 && $0.details?.localizedName == "Morning run by the canal" })
        let steps = items.compactMap { item -> Int64? in
            if case .motionActivity(let m) = item.asset { return m.steps }
            return nil
        }.sorted()
        #expect(steps == [1_800, 3_000, 4_950])  // two walks, and the run's own
        #expect(items.allSatisfy { $0.source == "import" })
    }

    @Test("another app's SQLite database is refused: not Gadgetbridge's")
    func unknownSchema() throws {
        #expect(throws: ImportError(file: "gadgetbridge_unknown_schema.db",
                                    "a SQLite database that is not Gadgetbridge's (no BASE_ACTIVITY_SUMMARY and no activity sample table)")) {
            _ = try GadgetbridgeExport.read(path: Self.fixtures + "/gadgetbridge_unknown_schema.db", name: "gadgetbridge_unknown_schema.db")
        }
    }

    @Test("another app's SQLite database in a folder is no export: left alone, as any file that is none")
    func unknownSchemaInFolder() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-gb")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/gadgetbridge_unknown_schema.db", toPath: directory.path + "/notes.sqlite")
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([directory.path]) { _, _, _, _ in }
        #expect(results.count == 1)
        #expect(results.first?.kind == "")
        #expect(results.first?.error == "notes.sqlite: not an export pickerd reads: \(GadgetbridgeExport.notGadgetbridge)")
    }

    @Test("a database with only a family not read is refused, naming its table and those read")
    func uncoveredFamily() throws {
        do {
            _ = try GadgetbridgeExport.read(path: Self.fixtures + "/gadgetbridge_garmin_only.db", name: "Gadgetbridge")
            Issue.record("read")
        } catch {
            #expect(error.description.contains("GARMIN_ACTIVITY_SAMPLE"), "\(error)")
            #expect(error.description.contains("MI_BAND_ACTIVITY_SAMPLE"), "\(error)")
        }
    }

    @Test("a text file named Gadgetbridge.db is refused as no database, through the importer")
    func notADatabase() throws {
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixtures + "/gadgetbridge_not_a_database"]) { _, _, _, _ in }
        #expect(results.count == 1)
        #expect(results.first?.kind == "gadgetbridge")
        let error = try #require(results.first?.error)
        #expect(error.hasPrefix("Gadgetbridge.db: not a SQLite database"), "\(error)")
        #expect(try temporary.store.items().isEmpty)
    }

    @Test("a database in WAL mode is read without writing -wal or -shm files beside it")
    func walMode() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-gb")
        let path = directory.path + "/Gadgetbridge"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/gadgetbridge/Gadgetbridge", toPath: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('pragma journal_mode=wal'); c.close()", path]
        try process.run()
        process.waitUntilExit()
        let header = try #require(FileHandle(forReadingAtPath: path)?.readData(ofLength: 20))
        try #require(header[18] == 2)
        let data = try GadgetbridgeExport.read(path: path, name: "Gadgetbridge")
        #expect(data.workouts.count == 4)
        #expect(data.motion.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Gadgetbridge"])
    }

    @Test("corrupt databases are refused, never a crash: a cut file, pages of noise, text where numbers belong")
    func corrupt() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-gb")
        let good = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/gadgetbridge/Gadgetbridge"))
        // Cut after its first pages.
        let cut = directory.path + "/cut.db"
        try good.prefix(8_192).write(to: URL(fileURLWithPath: cut))
        #expect(throws: ImportError.self) { _ = try GadgetbridgeExport.read(path: cut, name: "cut.db") }
        // Its header kept, the rest noise.
        var noise = Data(good.prefix(100))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<(good.count - 100) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise.append(UInt8(truncatingIfNeeded: seed >> 56))
        }
        let noisy = directory.path + "/noise.db"
        try noise.write(to: URL(fileURLWithPath: noisy))
        #expect(throws: ImportError.self) { _ = try GadgetbridgeExport.read(path: noisy, name: "noise.db") }
        // Text and blobs where Gadgetbridge keeps numbers, a NULL track, JSON that is not: rows left out, no crash.
        let odd = directory.path + "/odd.db"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/gadgetbridge_unknown_schema.db", toPath: odd)
        let sql = """
            CREATE TABLE BASE_ACTIVITY_SUMMARY (_id INTEGER PRIMARY KEY, NAME, START_TIME, END_TIME, ACTIVITY_KIND, GPX_TRACK, SUMMARY_DATA);
            INSERT INTO BASE_ACTIVITY_SUMMARY VALUES (1, 42, 'soon', x'00ff', 16, 7, '{not json');
            INSERT INTO BASE_ACTIVITY_SUMMARY VALUES (2, 'ok', 1714977000000, 1714978800000, 'sixteen', NULL, '[1,2]');
            CREATE TABLE MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP, DEVICE_ID, STEPS);
            INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES ('noon', 1, 'many'), (1714977000, x'01', 100), (1714977060, 1, 1e300);
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", odd, sql]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let data = try GadgetbridgeExport.read(path: odd, name: "odd.db")
        #expect(data.workouts.isEmpty)
        #expect(data.leftOut["workouts without a readable time or kind"] == 2)
    }
}
