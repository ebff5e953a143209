import Foundation
import GRDB
import Glibc

/// What pickerd kept and lost when it salvaged a damaged store, written beside the damaged copy
/// (`<copy>.salvage.json`) and shown by `pickerctl doctor` until the person removes that copy.
public struct SalvageReport: Sendable, Hashable, Codable {
    /// One table's rows.
    public struct Table: Sendable, Hashable, Codable {
        /// The table.
        public var table: String
        /// What its rows are, for a person ("history entries").
        public var what: String
        /// Whether its rows are the person's decisions (read first), not the library.
        public var decision: Bool
        /// Rows copied into the new store.
        public var kept: Int
        /// Rows that could not be read, when the damaged store could still count them; `nil` when
        /// even the count could not be read.
        public var lost: Int?
        /// The row numbers that could not be read ("13–24"), in order.
        public var unreadable: [String]
    }

    /// When the damage was found, ms since 1970.
    public var dateMs: Int64
    /// What SQLite found.
    public var problem: String
    /// Where the damaged store was moved (kept, with its write-ahead log if it had one).
    public var damagedCopy: String
    /// Every table read, the decisions first.
    public var tables: [Table]

    /// Whether anything was lost (or could not be told).
    public var lostAnything: Bool { tables.contains { $0.lost != 0 || !$0.unreadable.isEmpty } }

    /// One line per table that lost rows, or one saying nothing was lost; decisions first.
    public var lostLines: [String] {
        let lost = tables.filter { $0.lost != 0 || !$0.unreadable.isEmpty }.map { table in
            let rows = table.unreadable == ["all"] ? "no row could be read"
                : table.unreadable.isEmpty ? "" : "unreadable rows \(table.unreadable.joined(separator: ", "))"
            guard let count = table.lost else { return "\(table.what): \(table.kept) kept; \(rows)" }
            return "\(table.what): \(table.kept) kept, \(count) lost" + (rows.isEmpty ? "" : " (\(rows))")
        }
        return lost.isEmpty ? ["nothing was lost: every row was read"] : lost
    }

    /// The decisions kept, in one line ("12 history entries, 3 hidden rules, …").
    public var keptDecisions: String {
        let kept = tables.filter { $0.decision && $0.kept > 0 }.map { "\($0.kept) \($0.what)" }
        return kept.isEmpty ? "no decisions" : kept.joined(separator: ", ")
    }
}

extension Store {
    // MARK: Salvage

    /// The tables read from a damaged store, in order: the person's decisions first, then the
    /// library (what the sources can give again is still worth keeping: imported exports and
    /// donations have no folder to be read from again). Suggestions, counts and the engine's state
    /// are left out: they are rebuilt.
    static let salvageOrder: [(table: String, what: String, decision: Bool)] = [
        ("release", "history entries", true), ("release_item", "released items in the history", true),
        ("app_state", "apps' allowances", true), ("hidden_rule", "hidden rules", true),
        ("place_correction", "home and work corrections", true), ("category_setting", "category settings", true),
        ("consent", "consent", true), ("notification_settings", "reminder settings", true),
        ("notification", "reminders", true), ("reminder_state", "reminder schedule", true), ("source", "sources", true),
        ("item", "library items", false), ("media", "item media", false), ("photo", "photos", false),
        ("live_photo", "live photos", false), ("video", "videos", false), ("workout", "workouts", false),
        ("route_point", "route points", false), ("workout_group", "workout groups", false), ("contact", "contact items", false),
        ("location", "places", false), ("location_group", "place groups", false), ("song", "songs", false),
        ("podcast", "podcast episodes", false), ("motion_activity", "activities", false), ("generic_media", "media items", false),
        ("reflection", "reflections", false), ("state_of_mind", "states of mind", false), ("item_person", "people in photos", false),
        ("person_contact", "contacts", false), ("calendar_event", "calendar events", false),
        ("calendar_attendee", "event attendees", false), ("person_link", "people links", false),
        ("source_file", "indexed files", false), ("source_skipped_folder", "folders not looked into", false),
    ]

    /// An item kind's own table: an item whose row there was lost cannot be read and goes too.
    static let kindTables = ["photo": "photo", "livePhoto": "live_photo", "video": "video", "workout": "workout",
                             "workoutGroup": "workout_group", "contact": "contact", "location": "location",
                             "locationGroup": "location_group", "song": "song", "podcast": "podcast",
                             "motionActivity": "motion_activity", "genericMedia": "generic_media",
                             "reflection": "reflection", "stateOfMind": "state_of_mind"]

    /// The marker of a salvage under way: a kill during one leaves it, and the next open finishes.
    static func salvageMarker(_ dataDirectory: String) -> String { dataDirectory + "/pickerd.sqlite.salvaging" }

    /// Every salvage report in `dataDirectory` whose damaged copy is still there, newest first.
    /// - Parameter dataDirectory: the data directory.
    /// - Returns: the reports.
    public static func salvageReports(in dataDirectory: String) -> [SalvageReport] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []
        return names.filter { $0.hasSuffix(".salvage.json") }.compactMap { name -> SalvageReport? in
            guard let data = FileManager.default.contents(atPath: dataDirectory + "/" + name),
                  let report = try? JSONDecoder().decode(SalvageReport.self, from: data),
                  FileManager.default.fileExists(atPath: report.damagedCopy) else { return nil }
            return report
        }.sorted { $0.dateMs > $1.dateMs }
    }

    private struct SalvageMarker: Codable {
        var damagedCopy: String
        var problem: String
        var dateMs: Int64
    }

    /// Moves a damaged store aside and builds a new one of what can still be read, table by table
    /// (decisions first), row by row past pages that cannot be read. The damaged file is kept,
    /// named with the date, with a report of what was kept and lost beside it. A kill at any point
    /// leaves ``salvageMarker(_:)``: calling this again (the next open does) finishes the job.
    /// - Parameters:
    ///   - dataDirectory: the data directory.
    ///   - problem: what was found wrong.
    /// - Returns: the report, or `nil` when there was no store to salvage.
    /// - Throws: ``StoreError`` `.writeFailed` when the new store cannot be written (a full disk):
    ///   the damaged store is then kept where the marker says, and the next start tries again.
    @discardableResult
    public static func salvage(dataDirectory: String, problem: String) throws(StoreError) -> SalvageReport? {
        let fm = FileManager.default
        let path = dataDirectory + "/pickerd.sqlite"
        let markerPath = salvageMarker(dataDirectory)
        let fresh = path + ".salvage-new"
        var marker: SalvageMarker
        if let data = fm.contents(atPath: markerPath), let known = try? JSONDecoder().decode(SalvageMarker.self, from: data) {
            marker = known
            if fm.fileExists(atPath: path) && fm.fileExists(atPath: known.damagedCopy) && !fm.fileExists(atPath: fresh) {
                // Killed after the new store was moved into place: only the marker was left to remove.
                try? fm.removeItem(atPath: markerPath)
                return salvageReports(in: dataDirectory).first { $0.damagedCopy == known.damagedCopy }
            }
        } else {
            let now = Date()
            let stamp = ISO8601DateFormatter().string(from: now).replacingOccurrences(of: ":", with: "-")
            marker = SalvageMarker(damagedCopy: path + ".damaged-" + stamp, problem: problem, dateMs: Int64(now.timeIntervalSince1970 * 1000))
            guard fm.fileExists(atPath: path) else { return nil }
            try writeDurably(try encoded(marker), to: markerPath)
        }
        let copy = marker.damagedCopy
        if !fm.fileExists(atPath: copy) {
            guard fm.fileExists(atPath: path) else {
                try? fm.removeItem(atPath: markerPath)
                return nil
            }
            // The write-ahead log holds committed rows too: it goes with the file, under the name
            // SQLite looks for beside it; the shared-memory index is rebuilt from them.
            if fm.fileExists(atPath: path + "-wal") { _ = rename(path + "-wal", copy + "-wal") }
            try? fm.removeItem(atPath: path + "-shm")
            guard rename(path, copy) == 0 else {
                throw StoreError(.writeFailed, "cannot move the damaged store \(path) aside to \(copy): \(String(cString: strerror(errno)))")
            }
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: fresh + suffix) }
        let report = try salvageRows(from: copy, into: fresh, marker: marker)
        try writeDurably(try encoded(report), to: copy + ".salvage.json")
        guard rename(fresh, path) == 0 else {
            throw StoreError(.writeFailed, "cannot move the salvaged store into place at \(path): \(String(cString: strerror(errno)))")
        }
        try? fm.removeItem(atPath: markerPath)
        return report
    }

    private static func encoded<T: Encodable>(_ value: T) throws(StoreError) -> Data {
        do { return try JSONEncoder().encode(value) } catch { throw StoreError(.writeFailed, "cannot encode \(T.self): \(error)") }
    }

    /// Writes `data` to a temporary file, syncs it and renames it to `path`.
    static func writeDurably(_ data: Data, to path: String) throws(StoreError) {
        let temporary = path + ".partial"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(.writeFailed, "cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw StoreError(.writeFailed, "cannot write \(path) (is the disk full?)")
        }
    }

    /// Reads what can be read of `damaged` into a new store at `fresh`, at the damaged store's own
    /// schema version (the usual open then upgrades it, with its copy).
    private static func salvageRows(from damaged: String, into fresh: String, marker: SalvageMarker) throws(StoreError) -> SalvageReport {
        var tables: [SalvageReport.Table] = []
        var source: DatabaseQueue?
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        source = try? DatabaseQueue(path: damaged, configuration: configuration)
        // The version it was at: its migrations table, when that can be read.
        let applied = (try? source?.read { db in try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations") }) ?? nil
        let known = migrator.migrations
        let target = applied.flatMap { applied in known.last(where: { applied.contains($0) }) } ?? known.last!
        do {
            var freshConfiguration = Configuration()
            freshConfiguration.foreignKeysEnabled = false
            freshConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
            let destination = try DatabaseQueue(path: fresh, configuration: freshConfiguration)
            try migrator.migrate(destination, upTo: target)
            for (table, what, decision) in salvageOrder {
                guard try destination.read({ db in try db.tableExists(table) }) else { continue }
                tables.append(try copyTable(table, what: what, decision: decision, from: source, into: destination))
            }
            try destination.write { db in try tidy(db, &tables) }
            try destination.writeWithoutTransaction { db in _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try destination.close()
            try? source?.close()
            let fd = open(fresh, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { fsync(fd); close(fd) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "cannot write the salvaged store \(fresh): \(reason(error)); the damaged store is kept at \(damaged)")
        }
        return SalvageReport(dateMs: marker.dateMs, problem: marker.problem, damagedCopy: damaged, tables: tables)
    }

    /// Copies one table's readable rows: in runs of rows by rowid; where a run fails, row by row;
    /// where a row cannot be reached, the next readable rowid is found by probing ever further, then
    /// narrowed, so only the rows of the damaged pages are passed over.
    private static func copyTable(_ table: String, what: String, decision: Bool, from source: DatabaseQueue?,
                                  into destination: DatabaseQueue) throws -> SalvageReport.Table {
        var result = SalvageReport.Table(table: table, what: what, decision: decision, kept: 0, lost: nil, unreadable: [])
        let wanted = try destination.read { db in try db.columns(in: table).map(\.name) }
        guard let source, let present = try? source.read({ db in try db.columns(in: table).map(\.name) }), !present.isEmpty else {
            result.unreadable = ["all"]
            return result
        }
        let columns = wanted.filter(present.contains)
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let select = "SELECT rowid, \(quoted) FROM \"\(table)\" WHERE rowid >= ? ORDER BY rowid LIMIT ?"
        let insert = "INSERT OR IGNORE INTO \"\(table)\" (\(quoted)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        func rows(from: Int64, limit: Int) throws -> [Row] {
            try source.read { db in try Row.fetchAll(db, sql: select, arguments: [from, limit]) }
        }
        func keep(_ rows: [Row]) throws {
            try destination.write { db in
                let statement = try db.cachedStatement(sql: insert)
                for row in rows {
                    try statement.execute(arguments: StatementArguments(columns.indices.map { row[$0 + 1] as DatabaseValue }))
                    result.kept += db.changesCount
                }
            }
        }
        /// Whether a row at or after `rowid` can be reached; `nil` when none is there.
        func reachable(_ rowid: Int64) -> Int64?? {
            guard let found = try? rows(from: rowid, limit: 1) else { return .some(nil) }
            return found.first.map { .some($0[0] as Int64) } ?? nil
        }
        var from: Int64 = Int64.min
        reading: while true {
            if let run = try? rows(from: from, limit: 256) {
                try keep(run)
                // A damaged page can hand back rowids out of order: the next read always starts
                // past this one's start, so the copy moves on whatever the file holds.
                guard run.count == 256, let last: Int64 = run.last?[0], max(last, from) < Int64.max else { break }
                from = max(last, from) + 1
                continue
            }
            if let one = try? rows(from: from, limit: 1) {
                guard let row = one.first else { break }
                try keep(one)
                let rowid: Int64 = max(row[0], from)
                guard rowid < Int64.max else { break }
                from = rowid + 1
                continue
            }
            // Nothing at or after `from` can be reached: probe further on until something is.
            var failed = from
            var step: Int64 = 1
            var next: Int64?
            var ended = false
            while true {
                let (probe, overflow) = from.addingReportingOverflow(step)
                if overflow { ended = true; break }
                switch reachable(probe) {
                case .some(.some(let rowid)): next = rowid
                case .none: ended = true  // nothing after: the damage reaches the end
                case .some(.none): failed = probe
                }
                // The widest step probed and nothing reachable (from Int64.min it never overflows).
                if next != nil || ended || step == Int64.max { break }
                step = step > Int64.max / 2 ? Int64.max : step * 2
            }
            if let found = next {
                // Narrow: the first rowid past `failed` from which a row can be reached.
                var low = failed, high = min(found, from.addingReportingOverflow(step).overflow ? Int64.max : from + step)
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if case .some(.none) = reachable(middle) { low = middle } else { high = middle }
                }
                let resume = max((reachable(high) ?? nil) ?? found, high, from + 1)
                result.unreadable.append(range(from, resume - 1))
                from = resume
            } else {
                result.unreadable.append(from == Int64.min ? "all" : "\(from) on")
                break reading
            }
        }
        if let count = try? source.read({ db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") }) {
            result.lost = max(0, count - result.kept)
        }
        return result
    }

    private static func range(_ from: Int64, _ to: Int64) -> String {
        let start = from == Int64.min ? "1" : "\(from)"
        return start == "\(to)" ? start : "\(start)–\(to)"
    }

    /// What the copied rows must agree on, as pickerd's own writes keep it: a file whose item was
    /// lost is indexed again at the next scan (as a deleted item's is); an item of a source folder
    /// whose file row was lost goes (the scan makes it again); an item whose own row was lost goes;
    /// a row whose parent was lost goes. Each removal is counted as lost.
    private static func tidy(_ db: Database, _ tables: inout [SalvageReport.Table]) throws {
        func lose(_ table: String, _ count: Int) {
            guard count > 0, let index = tables.firstIndex(where: { $0.table == table }) else { return }
            tables[index].kept -= count
            tables[index].lost = (tables[index].lost ?? 0) + count
        }
        if try db.tableExists("source_file") {
            try db.execute(sql: "UPDATE source_file SET item_id = NULL WHERE item_id IS NOT NULL AND item_id NOT IN (SELECT id FROM item)")
            try db.execute(sql: "DELETE FROM item WHERE source = 'file' AND id NOT IN (SELECT item_id FROM source_file WHERE item_id IS NOT NULL)")
            lose("item", db.changesCount)
        }
        for (kind, table) in kindTables where try db.tableExists(table) {
            try db.execute(sql: "DELETE FROM item WHERE kind = ? AND id NOT IN (SELECT item_id FROM \"\(table)\")", arguments: [kind])
            lose("item", db.changesCount)
        }
        // Until no row points at a lost one (a removed item orphans its media rows, and so on).
        while true {
            let orphans = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            var removed = 0
            for orphan in orphans {
                let table: String = orphan[0]
                guard let rowid: Int64 = orphan[1] else { continue }
                try db.execute(sql: "DELETE FROM \"\(table)\" WHERE rowid = ?", arguments: [rowid])
                removed += db.changesCount
                lose(table, db.changesCount)
            }
            if removed == 0 { break }
        }
    }
}
