import Foundation
import GRDB
import Synchronization

/// What a backup holds.
public enum BackupKind: String, Sendable, Hashable, Codable {
    /// The person's decisions: the history, apps, hidden rules, corrections, settings, reminders,
    /// sources and donations (what no folder can give again).
    case decisions
    /// The whole store (the library and its moments too; not the media files).
    case all
}

/// What a backup file says of itself.
public struct BackupInfo: Sendable, Hashable {
    /// What it holds.
    public var kind: BackupKind
    /// When it was made, ms since 1970.
    public var madeMs: Int64
    /// Its schema version.
    public var schemaVersion: Int
}

extension Store {
    // MARK: Backups

    /// The tables that are the person's decisions; a decisions backup keeps these rows, and the
    /// donated items (their `item` rows and each kind's), and nothing else.
    static let decisionTables = ["release", "release_item", "app_state", "hidden_rule", "place_correction", "category_setting",
                                 "consent", "notification_settings", "notification", "reminder_state", "source"]

    /// The tables that hold an item's own rows, by `item_id`.
    static let itemTables = ["media", "photo", "live_photo", "video", "workout", "route_point", "workout_group", "contact",
                             "location", "location_group", "song", "podcast", "motion_activity", "generic_media",
                             "reflection", "state_of_mind", "item_person"]

    /// Counts and versions the database keeps itself (triggers): never copied, counted again.
    static let derivedTables: Set<String> = ["item_count", "suggestion_count", "library_version", "grdb_migrations", "sqlite_sequence"]

    /// A condition on `item` (aliased `alias`) that holds for donated items.
    private static func donated(_ alias: String) -> String { "\(alias).source >= 'donation:' AND \(alias).source < 'donation;'" }

    /// Writes a backup of the store to `file`: SQLite's online backup (a consistent copy while
    /// pickerd serves) into a temporary file beside it, cut down to the decisions unless `kind` is
    /// `.all`, marked as pickerd's backup, and renamed into place once whole.
    /// - Parameters:
    ///   - file: where to write (replaced if there).
    ///   - kind: what to keep.
    /// - Returns: the backup's size in bytes.
    /// - Throws: ``StoreError`` `.writeFailed` (a full disk, a directory that is not there); no half
    ///   file is left.
    @discardableResult
    public func backup(to file: String, kind: BackupKind) throws(StoreError) -> UInt64 {
        let temporary = file + ".partial-\(getpid())"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: temporary + suffix) } }
        do {
            let queue = try DatabaseQueue(path: temporary)
            try pool.backup(to: queue)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                try db.inTransaction {
                    if kind == .decisions {
                        let keep = Set(Self.decisionTables + Self.itemTables + ["item"]).union(Self.derivedTables)
                        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") where !keep.contains(table) {
                            try db.execute(sql: "DELETE FROM \"\(table)\"")
                        }
                        try db.execute(sql: "DELETE FROM item WHERE NOT (\(Self.donated("item")))")
                        for table in Self.itemTables where try db.tableExists(table) {
                            try db.execute(sql: "DELETE FROM \"\(table)\" WHERE item_id NOT IN (SELECT id FROM item)")
                        }
                    }
                    try db.execute(sql: "CREATE TABLE pickerd_backup (id INTEGER PRIMARY KEY CHECK (id = 1), kind TEXT NOT NULL, made_ms INTEGER NOT NULL)")
                    try db.execute(sql: "INSERT INTO pickerd_backup (id, kind, made_ms) VALUES (1, ?, ?)",
                                   arguments: [kind.rawValue, Int64(Date().timeIntervalSince1970 * 1000)])
                    return .commit
                }
                try db.execute(sql: "VACUUM")
            }
            try queue.close()
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { fsync(fd); close(fd) }
            guard rename(temporary, file) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            throw StoreError(.writeFailed, "cannot write the backup \(file): \(Self.reason(error)); nothing was written")
        }
        return ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? UInt64) ?? 0
    }

    /// What `file` is, if it is a backup pickerd made that this pickerd can read.
    /// - Parameter file: the file.
    /// - Returns: its kind, date and schema version.
    /// - Throws: ``StoreError`` `.invalid` naming the file and why it is no backup (not SQLite, no
    ///   pickerd backup mark, a newer pickerd's).
    public static func backupInfo(_ file: String) throws(StoreError) -> BackupInfo {
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw StoreError(.invalid, "\(file) cannot be read (is it there?)")
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: file, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws -> BackupInfo in
                guard try db.tableExists("pickerd_backup"), let row = try Row.fetchOne(db, sql: "SELECT kind, made_ms FROM pickerd_backup WHERE id = 1"),
                      let kind = BackupKind(rawValue: row[0]) else {
                    throw StoreError(.invalid, "\(file) is not a pickerd backup (pickerctl backup FILE makes one)")
                }
                let applied = try migrator.appliedIdentifiers(db)
                if let unknown = applied.first(where: { !migrator.migrations.contains($0) }) {
                    throw StoreError(.invalid, "\(file) was made by a newer pickerd (\(unknown.prefix { $0 != ":" })); this one knows up to v\(currentSchemaVersion)")
                }
                let version = migrator.migrations.last(where: { applied.contains($0) }).flatMap(schemaVersion(of:)) ?? 0
                return BackupInfo(kind: kind, madeMs: row[1], schemaVersion: version)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.invalid, "\(file) is not a pickerd backup (\(reason(error)))")
        }
    }

    /// Puts a backup's rows back, in one transaction: with `all` every table (the library too, for
    /// a backup of everything), else the decisions and the donated items. A backup of an earlier
    /// schema is upgraded first (on a copy; the file is never written).
    /// - Parameters:
    ///   - file: the backup.
    ///   - all: restore everything it holds, not only the decisions.
    /// - Returns: what the backup was.
    /// - Throws: ``StoreError`` `.invalid` for a file that is not a backup (or `all` from a
    ///   decisions backup); `.writeFailed`: then nothing changed.
    @discardableResult
    public func restore(from file: String, all: Bool) throws(StoreError) -> BackupInfo {
        let info = try Self.backupInfo(file)
        if all && info.kind != .all {
            throw StoreError(.invalid, "\(file) holds the decisions only: restore it without --all")
        }
        let copy = dataDirectory + "/restore-\(getpid()).sqlite"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        do {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: file, toPath: copy)
            let queue = try DatabaseQueue(path: copy)
            try Self.migrator.migrate(queue)
            try queue.close()
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS backup", arguments: [copy])
                defer { try? db.execute(sql: "DETACH DATABASE backup") }
                try db.inTransaction(.immediate) {
                    // Foreign keys hold at the commit, once every table is back.
                    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                    if all {
                        // Every row goes first, then every row comes back: a deletion's cascade never
                        // takes a row already put back.
                        let tables = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'table'")
                            .filter { !Self.derivedTables.contains($0) }
                        for table in tables { try db.execute(sql: "DELETE FROM main.\"\(table)\"") }
                        for table in tables { try Self.copyRows(table, in: db, where: "1") }
                        try db.execute(sql: "DELETE FROM item_count")
                        try db.execute(sql: "INSERT INTO item_count (kind, n) SELECT kind, COUNT(*) FROM item GROUP BY kind")
                        try db.execute(sql: "UPDATE suggestion_count SET n = (SELECT COUNT(*) FROM suggestion) WHERE id = 1")
                    } else {
                        // A source the backup names is added if missing, never replaced: replacing would
                        // drop its files' index, and a rescan would index them as new items.
                        let replaced = Self.decisionTables.filter { $0 != "source" }
                        for table in replaced { try db.execute(sql: "DELETE FROM main.\"\(table)\"") }
                        for table in replaced { try Self.copyRows(table, in: db, where: "1") }
                        try db.execute(sql: """
                            INSERT OR IGNORE INTO main.source (path, added_ms, last_scan_ms, last_scan_seconds)
                            SELECT path, added_ms, NULL, NULL FROM backup.source WHERE path NOT IN (SELECT path FROM main.source)
                            """)
                        // The donations: the store's go, the backup's come back, each with its own rows.
                        try db.execute(sql: "DELETE FROM main.item WHERE \(Self.donated("main.item"))")
                        try Self.copyRows("item", in: db, where: Self.donated("item"))
                        for table in Self.itemTables {
                            try Self.copyRows(table, in: db, where: "item_id IN (SELECT id FROM backup.item WHERE \(Self.donated("backup.item")))")
                        }
                    }
                    try db.execute(sql: "UPDATE library_version SET n = n + 1 WHERE id = 1")
                    return .commit
                }
            }
        } catch {
            throw StoreError(.writeFailed, "cannot restore \(file) into \(databasePath): \(Self.reason(error)); nothing was changed")
        }
        cache.withLock { $0 = Cache() }
        hiddenCache.withLock { $0 = nil }
        correctionCache.withLock { $0 = nil }
        itemCache.withLock { $0 = ItemCache(version: -1) }
        return info
    }

    private static func copyRows(_ table: String, in db: Database, where condition: String) throws {
        let mine = try Row.fetchAll(db, sql: "PRAGMA main.table_info(\"\(table)\")").map { $0["name"] as String }
        let theirs = Set(try Row.fetchAll(db, sql: "PRAGMA backup.table_info(\"\(table)\")").map { $0["name"] as String })
        let columns = mine.filter(theirs.contains).map { "\"\($0)\"" }.joined(separator: ", ")
        guard !columns.isEmpty else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO main.\"\(table)\" (\(columns)) SELECT \(columns) FROM backup.\"\(table)\" WHERE \(condition)")
    }

    /// Writes everything the store holds about the person as JSON into `directory`: one file per
    /// table (`<table>.json`, an array of objects by column; bytes as base64), and `README.json`
    /// saying what each is. Counts and the schema's bookkeeping are left out. Read in one snapshot.
    /// - Parameter directory: where to write (made if missing).
    /// - Returns: the files written.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func export(to directory: String) throws(StoreError) -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let tables: [(String, [[String: Any]])] = try pool.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .filter { !Self.derivedTables.contains($0) }
                    .map { table in
                        (table, try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { row in
                            var object: [String: Any] = [:]
                            for (column, value) in row {
                                switch value.storage {
                                case .null: object[column] = NSNull()
                                case .int64(let n): object[column] = n
                                case .double(let d): object[column] = d
                                case .string(let s): object[column] = s
                                case .blob(let b): object[column] = b.base64EncodedString()
                                }
                            }
                            return object
                        })
                    }
            }
            var written: [String] = []
            for (table, rows) in tables {
                let data = try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
                let path = directory + "/\(table).json"
                try Self.writeDurably(data, to: path)
                written.append(path)
            }
            let readme: [String: Any] = [
                "what": "everything pickerd holds about you, one file per table of its store (schema v\(Self.currentSchemaVersion))",
                "decisions": Self.decisionTables.map { "\($0).json" },
                "library": "item.json and each kind's table (location.json, photo.json, …); media files are not copied: media.json names them",
                "exported_ms": Int64(Date().timeIntervalSince1970 * 1000),
            ]
            try Self.writeDurably(try JSONSerialization.data(withJSONObject: readme, options: [.prettyPrinted, .sortedKeys]), to: directory + "/README.json")
            return written + [directory + "/README.json"]
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "cannot export to \(directory): \(Self.reason(error))")
        }
    }
}
