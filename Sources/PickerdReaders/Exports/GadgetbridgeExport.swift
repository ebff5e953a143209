import Foundation
import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite  // GRDB's SQLite on Linux: sqlite3_deserialize
#else
import SQLite3
#endif
import Glibc
public import PickerdImport

/// Gadgetbridge's database export (Settings → Data management → Export DB: a SQLite file named
/// `Gadgetbridge`, or `Gadgetbridge.db` as people rename it), opened read-only, with the GPX tracks
/// Gadgetbridge wrote for its workouts when they are beside it.
///
/// The tables are greenDAO's, as Gadgetbridge's `GBDaoGenerator` declares them:
/// - `BASE_ACTIVITY_SUMMARY` (workouts): `START_TIME`, `END_TIME` (ms since 1970), `ACTIVITY_KIND`
///   (Gadgetbridge's `ActivityKind` code: running 0x10 → 37, walking 0x20 → 52, cycling 0x80 → 13,
///   hiking 0x400000 → 24… see ``activityType(kind:)``), `NAME`, `GPX_TRACK` (a path on the phone:
///   its file name is looked for beside the database and in a `files` folder there) and
///   `SUMMARY_DATA` (JSON: `distanceMeters`, `caloriesBurnt`, `steps`, `averageHR`, each a number
///   or `{"value": …}`).
/// - Activity samples, one a minute per device, `TIMESTAMP` (seconds), `DEVICE_ID`, `STEPS`, for the
///   device families in ``coveredSampleTables``: Mi Band and Amazfit (Huami, older and extended
///   samples), Pebble Health, Bangle.js. Their steps fold into each run, walk and hike and into walks
///   and runs outside workouts (``StepSamples``). Step samples in any other family's table are not
///   read: counted as left out, by table name; a database with no summary and only such tables is
///   refused, naming them.
///
/// Nothing of a database that cannot be read is imported: not SQLite, a corrupt file, or a schema
/// that is not Gadgetbridge's is an ``ImportError`` saying which. Bounds: ``maximumSummaries``
/// workouts, ``StepSamples/maximumSamples`` samples, a track file of 64 MiB, summary JSON of 1 MiB, a
/// database of ``maximumDatabase`` bytes (read into memory: nothing is written, no path opened by SQLite).
public enum GadgetbridgeExport {
    /// The format name items carry.
    public static let format = "gadgetbridge"
    /// The activity sample tables read, by device family.
    public static let coveredSampleTables: [String: String] = [
        "MI_BAND_ACTIVITY_SAMPLE": "Mi Band and Amazfit (Huami)",
        "HUAMI_EXTENDED_ACTIVITY_SAMPLE": "Mi Band and Amazfit (Huami, extended samples)",
        "PEBBLE_HEALTH_ACTIVITY_SAMPLE": "Pebble Health",
        "BANGLE_JSACTIVITY_SAMPLE": "Bangle.js",
    ]
    /// Why a SQLite database is refused when it holds none of Gadgetbridge's tables: the importer
    /// treats such a file found in a folder as no export (left alone), as it does any other file.
    static let notGadgetbridge = "a SQLite database that is not Gadgetbridge's (no BASE_ACTIVITY_SUMMARY and no activity sample table)"
    /// The most workouts read.
    static let maximumSummaries = 100_000
    /// A sample's length: the tables read hold a sample a minute.
    static let sampleSeconds: Int64 = 60

    /// Reads the database at `path`.
    /// - Parameters:
    ///   - path: the database file.
    ///   - name: its name, for errors.
    /// - Returns: its workouts, walks and runs, and what was left out.
    /// - Throws: ``ImportError`` when it is not a SQLite database, cannot be read, or is not Gadgetbridge's.
    public static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        let queue = try open(path, name: name)
        let folder = (path as NSString).deletingLastPathComponent
        do {
            return try queue.read { db throws -> ImportedData in
                let tables = try Row.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { text($0[0]) }
                var columns: [String: Set<String>] = [:]
                for table in tables {
                    columns[table] = Set(try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                        .compactMap { text($0[0]) }.map { $0.uppercased() })
                }
                let summary = columns["BASE_ACTIVITY_SUMMARY"].flatMap { $0.isSuperset(of: ["START_TIME", "END_TIME", "ACTIVITY_KIND"]) ? $0 : nil }
                let covered = coveredSampleTables.keys.sorted().filter { columns[$0]?.isSuperset(of: ["TIMESTAMP", "STEPS", "DEVICE_ID"]) == true }
                let others = tables.filter { table in
                    coveredSampleTables[table] == nil && table.hasSuffix("_SAMPLE") && columns[table]?.contains("STEPS") == true
                }.sorted()
                guard summary != nil || !covered.isEmpty else {
                    if !others.isEmpty {
                        throw ImportError(file: name, "its step samples are in tables of device families not read yet (\(others.joined(separator: ", "))); "
                                          + "read are \(coveredSampleTables.keys.sorted().joined(separator: ", ")) and BASE_ACTIVITY_SUMMARY")
                    }
                    throw ImportError(file: name, notGadgetbridge)
                }
                var data = ImportedData()
                if let summary { try readSummaries(db, columns: summary, folder: folder, into: &data) }
                var steps = StepSamples()
                for table in covered { try readSamples(db, table: table, into: &steps) }
                steps.fold(into: &data, format: format)
                for table in others {
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\" WHERE STEPS > 0") ?? 0
                    if count > 0 { data.leftOut["step samples left out (\(table): a device family not read yet)"] = count }
                }
                data.read["step samples"] = steps.samples.count
                return data
            }
        } catch let error as ImportError {
            throw error
        } catch let error as DatabaseError {
            throw ImportError(file: name, "the database cannot be read: \(error.message ?? "SQLite error \(error.resultCode.rawValue)")")
        } catch {
            throw ImportError(file: name, "the database cannot be read: \(error)")
        }
    }

    /// The most bytes of a database read: it is read into memory whole.
    static let maximumDatabase = 1 << 30

    /// The database after its header says it is SQLite, read into memory (through ``ReaderFiles``,
    /// at most ``maximumDatabase`` bytes) and opened there read-only with `sqlite3_deserialize`: no
    /// path reaches SQLite, so it neither writes `-wal`/`-shm` files beside the person's export nor
    /// opens anything. A database in WAL mode (as Android's SQLite leaves many) is marked as a
    /// rollback-journal one in that copy; temporary tables and sorts stay in memory.
    private static func open(_ path: String, name: String) throws(ImportError) -> DatabaseQueue {
        guard let fd = ReaderFiles.open(path) else { throw ImportError(file: name, "cannot be read") }
        defer { close(fd) }
        let size = ReaderFiles.size(of: fd) ?? 0
        var header = [UInt8](repeating: 0, count: 100)
        let headerCount = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 100, 0) }
        guard headerCount == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw ImportError(file: name, "not a SQLite database (Gadgetbridge's export is one): \(ExportKind.describe(Array(header.prefix(max(0, headerCount)))))")
        }
        guard size <= maximumDatabase else {
            throw ImportError(file: name, "\(size >> 20) MB is larger than a database pickerd reads can be (\(maximumDatabase >> 20) MB)")
        }
        // SQLite's own allocation, handed over with the database (SQLITE_DESERIALIZE_FREEONCLOSE).
        guard let buffer = sqlite3_malloc64(sqlite3_uint64(size))?.assumingMemoryBound(to: UInt8.self) else {
            throw ImportError(file: name, "out of memory for a database of \(size >> 20) MB")
        }
        var done = 0
        while done < size {
            let n = pread(fd, buffer + done, size - done, off_t(done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                sqlite3_free(buffer)
                throw ImportError(file: name, "cannot be read")
            }
            done += n
        }
        if buffer[18] == 2 || buffer[19] == 2 {
            buffer[18] = 1
            buffer[19] = 1
        }
        var configuration = Configuration()
        configuration.label = "gadgetbridge-import"
        do {
            let queue = try DatabaseQueue(configuration: configuration)  // in memory: no file
            try queue.inDatabase { db in
                let code = sqlite3_deserialize(db.sqliteConnection, "main", buffer, sqlite3_int64(size), sqlite3_int64(size),
                                               UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY))
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                db.clearSchemaCache()
            }
            return queue
        } catch {
            if let error = error as? DatabaseError {
                throw ImportError(file: name, "the database cannot be opened: \(error.message ?? "SQLite error \(error.resultCode.rawValue)")")
            }
            throw ImportError(file: name, "the database cannot be opened: \(error)")
        }
    }

    private static func readSummaries(_ db: Database, columns: Set<String>, folder: String, into data: inout ImportedData) throws {
        let wanted = ["START_TIME", "END_TIME", "ACTIVITY_KIND", "NAME", "GPX_TRACK", "SUMMARY_DATA"]
        let select = wanted.map { columns.contains($0) ? $0 : "NULL" }.joined(separator: ", ")
        let rows = try Row.fetchCursor(db, sql: "SELECT \(select) FROM BASE_ACTIVITY_SUMMARY ORDER BY START_TIME")
        var skipped = 0
        while let row = try rows.next() {
            guard data.workouts.count < maximumSummaries else {
                throw ImportError(file: "BASE_ACTIVITY_SUMMARY", "more than \(maximumSummaries) workouts")
            }
            guard let start = integer(row[0]), let end = integer(row[1]), let kind = integer(row[2]),
                  start > 946_684_800_000, start < 4_102_444_800_000, end >= start, end - start < 7 * 86_400_000 else {
                skipped += 1
                continue
            }
            let activity = activityType(kind: kind)
            let summary = text(row[5]).flatMap(summaryValues) ?? [:]
            var workout = ImportedWorkout(activityType: activity, startMs: start, endMs: end,
                                          distanceMeters: summary["distanceMeters"].flatMap { $0 > 0 ? $0 : nil },
                                          energyKilocalories: summary["caloriesBurnt"].flatMap { $0 > 0 ? $0 : nil },
                                          averageHeartRate: summary["averageHR"].flatMap { $0 > 0 && $0 < 300 ? $0 : nil },
                                          steps: summary["steps"].flatMap { $0 > 0 && $0 < 1e7 ? Int($0) : nil },
                                          name: text(row[3]).flatMap { $0.isEmpty ? nil : $0 }, format: format)
            workout.distanceIsDevices = workout.distanceMeters != nil
            if let track = text(row[4]), !track.isEmpty {
                let file = (track as NSString).lastPathComponent
                let candidates = [folder + "/" + file, folder + "/files/" + file]
                if !file.isEmpty, file != "..", let found = candidates.first(where: ReaderFiles.exists) {
                    do throws(ImportError) {
                        let bytes = try ExportReaders.whole(found, name: file, limit: AppleHealthExport.maximumRouteFile, what: "a track file")
                        workout.route = try GPXReader.read(bytes, file: file).workouts.flatMap(\.route)
                        if workout.distanceMeters == nil, workout.route.count > 1 { workout.distanceMeters = WorkoutFiles.length(of: workout.route) }
                        workout.route = AppleHealthExport.thinned(workout.route)
                    } catch {
                        data.leftOut["workout tracks unreadable (\(error.description))", default: 0] += 1
                    }
                } else {
                    data.leftOut["workout tracks not found beside the database", default: 0] += 1
                }
            }
            data.workouts.append(workout)
        }
        if skipped > 0 { data.leftOut["workouts without a readable time or kind", default: 0] += skipped }
    }

    private static func readSamples(_ db: Database, table: String, into steps: inout StepSamples) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT TIMESTAMP, STEPS, DEVICE_ID FROM \"\(table)\" WHERE STEPS > 0 ORDER BY DEVICE_ID, TIMESTAMP")
        while let row = try rows.next() {
            guard let time = integer(row[0]), let count = integer(row[1]), time > 946_684_800, time < 4_102_444_800, count < 100_000 else {
                continue
            }
            let device = integer(row[2]) ?? 0
            steps.add(startMs: time * 1000, endMs: (time + sampleSeconds) * 1000, steps: Double(count), source: "\(table)#\(device)")
        }
    }

    /// An integer column's value, whatever SQLite stored (a real is truncated; text or a blob is nil).
    private static func integer(_ value: DatabaseValue) -> Int64? {
        switch value.storage {
        case .int64(let v): return v
        case .double(let v): return v.isFinite && abs(v) < 9e18 ? Int64(v) : nil
        case .string(let s): return Int64(s)
        default: return nil
        }
    }

    private static func text(_ value: DatabaseValue) -> String? {
        if case .string(let s) = value.storage { return s }
        return nil
    }

    /// The numbers of a `SUMMARY_DATA` JSON object, by key: a number, or an object's `value`.
    static func summaryValues(_ json: String) -> [String: Double]? {
        guard json.utf8.count <= 1 << 20, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        var values: [String: Double] = [:]
        for (key, value) in object {
            if let number = value as? NSNumber {
                values[key] = number.doubleValue
            } else if let inner = value as? [String: Any], let number = inner["value"] as? NSNumber {
                values[key] = number.doubleValue
            }
        }
        return values.filter { $0.value.isFinite }
    }

    /// HealthKit's activity raw value for a Gadgetbridge `ActivityKind` code (its legacy bit
    /// values and the newer codes from 0x04000000): running, treadmill, indoor and outdoor running
    /// → 37; walking, indoor and outdoor walking → 52; cycling, indoor and outdoor cycling, e-bike
    /// → 13; swimming, open water, pool → 46; hiking, mountain hike → 24; yoga → 57; elliptical → 16;
    /// rowing machine and rowing → 35; strength training → 20; other codes → 3000.
    public static func activityType(kind: Int64) -> UInt32 {
        switch kind {
        case 0x10, 0x100, 0x0400_00B0, 0x0400_00B1, 0x0400_0067: return HealthKitActivity.running
        case 0x20, 0x0400_0012, 0x0400_00B2, 0x0400_00D5: return HealthKitActivity.walking
        case 0x80, 0x800, 0x0400_0003, 0x0400_0004, 0x0400_00B3: return HealthKitActivity.cycling
        case 0x40, 0x400, 0x0400_000A: return HealthKitActivity.swimming
        case 0x0040_0000, 0x0400_00E2: return HealthKitActivity.hiking
        case 0x4000: return 57
        case 0x1000: return 16
        case 0x0001_0000, 0x0400_0016: return 35
        case 0x0020_0000: return 20
        default: return HealthKitActivity.other
        }
    }

    /// The track files the database at `path` names (by file name), for the importer to leave to
    /// the database rather than import again as workouts of their own. Errors give none.
    static func trackFiles(of path: String) -> Set<String> {
        guard let queue = try? open(path, name: "") else { return [] }
        let tracks = try? queue.read { db -> [String] in
            guard try db.tableExists("BASE_ACTIVITY_SUMMARY"), try db.columns(in: "BASE_ACTIVITY_SUMMARY").contains(where: { $0.name.uppercased() == "GPX_TRACK" })
            else { return [] }
            return try Row.fetchAll(db, sql: "SELECT GPX_TRACK FROM BASE_ACTIVITY_SUMMARY WHERE GPX_TRACK IS NOT NULL LIMIT ?",
                                    arguments: [maximumSummaries]).compactMap { text($0[0]) }
        }
        return Set((tracks ?? []).map { ($0 as NSString).lastPathComponent }.filter { !$0.isEmpty })
    }
}
