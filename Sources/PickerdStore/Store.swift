import Foundation
import GRDB
import PickerdWire
import Synchronization

/// pickerd's store: one SQLite database (through GRDB, in WAL mode) and a media directory that only
/// its owner can enter, both in pickerd's data directory.
///
/// Every write is one transaction: a write that returned has been committed, and survives a killed
/// pickerd. A database that cannot be read gives one ``StoreError`` naming the file, never a crash.
public final class Store: Sendable {
    /// The data directory (`--data-dir`, by default `$XDG_DATA_HOME/pickerd`).
    public let dataDirectory: String
    /// The SQLite database file.
    public let databasePath: String
    /// Where media files live (mode 0700).
    public let mediaDirectory: String
    let pool: DatabasePool
    /// What this open salvaged from a damaged store (moved aside, kept), or `nil` when the store
    /// opened sound. ``salvageReports(in:)`` lists every salvage whose damaged copy is still kept.
    public let salvaged: SalvageReport?
    /// What every presentation reads, remembered until this store changes it. pickerd is the only
    /// writer of settings and consent (pickerctl goes through it), so its own writes invalidate.
    let cache = Mutex(Cache())

    /// Items read for presentations, while the library's version stays.
    let itemCache = Mutex(ItemCache(version: -1))

    /// The person's hidden rules (Store+Hidden.swift), remembered until one changes.
    let hiddenCache = Mutex<[StoredHiddenRule]?>(nil)

    /// The person's corrections of home and work (Store+PlaceCorrections.swift), remembered until one changes.
    let correctionCache = Mutex<[StoredPlaceCorrection]?>(nil)
    /// The windows whose suggestions were replaced while a full rebuild runs beside serving
    /// (``noteReplacedWindows()``); `nil` when none runs.
    let replacedWindows = Mutex<[Range<Int64>]?>(nil)

    struct ItemCache {
        /// The most items kept (about 10 MB); past it the cache starts again.
        static let capacity = 10_000
        var version: Int64
        var items: [UUID: LibraryItem] = [:]
    }

    struct Cache {
        var settings: [CategorySetting]?
        var consent: Int64??
        var bannerDismissed: Bool?
        var notifications: NotificationSettings?
    }

    /// When a store checks its pages with SQLite's `quick_check`, which reads the whole file.
    public enum IntegrityCheck: Sendable {
        /// Before ``init(dataDirectory:integrityCheck:)`` returns (tools, tests).
        case atOpen
        /// On a thread of its own once open, so a large store starts at once; the outcome is
        /// ``integrityProblem()``.
        case inBackground
    }

    /// Opens the store in `dataDirectory`, creating it (mode 0700) and migrating the schema (a copy
    /// kept from before, see ``migrate(_:path:)``). A database file that is not a readable SQLite
    /// database, or fails the check at open, is moved aside and salvaged (``salvage(dataDirectory:problem:)``):
    /// ``salvaged`` then says what was kept and lost.
    /// - Parameters:
    ///   - dataDirectory: the data directory.
    ///   - integrityCheck: when to run SQLite's whole-file check.
    /// - Throws: ``StoreError`` `.unreadable` when the directory cannot be made or entered; `.invalid`
    ///   for a store a newer pickerd wrote; `.writeFailed` when an upgrade or a salvage cannot be written.
    public init(dataDirectory: String, integrityCheck: IntegrityCheck = .atOpen) throws(StoreError) {
        self.dataDirectory = dataDirectory
        self.databasePath = dataDirectory + "/pickerd.sqlite"
        self.mediaDirectory = dataDirectory + "/media"
        let fm = FileManager.default
        for directory in [dataDirectory, mediaDirectory] {
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                       attributes: [.posixPermissions: 0o700])
                try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
            } catch {
                throw StoreError(.unreadable, "cannot create or use the store directory \(directory): \(Self.reason(error))")
            }
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        // What is deleted is overwritten in the file, not left in free pages: a removed donation, a
        // cleared history, a removed source leave nothing behind (with ``truncateLog()``). SQLite's
        // temporary files stay in memory: a statement's journal (the pages a statement changes, kept
        // to undo it) went past 64 KiB once in a large write and was then a file in /var/tmp, written
        // for every later statement of the transaction: 15,000 writes of the person's pages a second,
        // outside the store's private directory, and a tenth of an import's time writing them.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY") }
        let path = databasePath
        // A salvage a kill interrupted is finished before anything opens the file.
        var salvaged: SalvageReport?
        if fm.fileExists(atPath: Self.salvageMarker(dataDirectory)) {
            salvaged = try Self.salvage(dataDirectory: dataDirectory, problem: "")
        }
        var opened: DatabasePool?
        do {
            opened = try Self.openPool(path, configuration: configuration, check: integrityCheck == .atOpen)
            try Self.migrate(opened!, path: path)
        } catch let damage where damage.code == .corrupt {
            // Never a stop for good: the damaged file is moved aside (kept), what can be read of it
            // makes a new store, and that one is opened. A salvage that fails (a full disk) says why.
            try? opened?.close()
            salvaged = try Self.salvage(dataDirectory: dataDirectory, problem: damage.message)
            opened = try Self.openPool(path, configuration: configuration, check: false)
            try Self.migrate(opened!, path: path)
        }
        pool = opened!
        self.salvaged = salvaged
    }

    /// Opens the database file (made 0600 first), reads its schema and, when `check`, runs SQLite's
    /// whole-file check.
    private static func openPool(_ path: String, configuration: Configuration, check: Bool) throws(StoreError) -> DatabasePool {
        // The person's alone whatever the umask: SQLite gives its write-ahead log and shared-memory
        // files the database file's mode, so that file is made (or set) 0600 before SQLite opens it.
        for file in [path, path + "-wal", path + "-shm"] {
            let fd = open(file, file == path ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDWR | O_CLOEXEC), 0o600)
            if fd >= 0 { fchmod(fd, 0o600); close(fd) }
        }
        var pool: DatabasePool?
        do {
            let opened = try DatabasePool(path: path, configuration: configuration)
            pool = opened
            // Reading the schema finds a file that is not SQLite at once; the pages are checked below.
            _ = try opened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            if check, let problem = quickCheck(opened, path: path) { throw problem }
            return opened
        } catch let error as StoreError {
            try? pool?.close()
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            try? pool?.close()
            throw StoreError(.corrupt, "the store \(path) is not a readable SQLite database (\(error.message ?? "\(error.resultCode)"))")
        } catch {
            try? pool?.close()
            throw StoreError(.unreadable, "cannot open the store \(path): \(reason(error))")
        }
    }

    /// Moves what the write-ahead log holds into the database and empties the log file
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`): after a deletion, so deleted rows (overwritten in the
    /// database by `secure_delete`) stay in no file, and when pickerd stops.
    /// - Throws: ``StoreError`` `.writeFailed` when a reader kept the log from being emptied.
    public func truncateLog() throws(StoreError) {
        do {
            try pool.writeWithoutTransaction { db in
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                if let busy: Int = row?[0], busy != 0 { throw StoreError(.writeFailed, "a reader kept \(databasePath)-wal from being emptied") }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "could not empty \(databasePath)-wal: \(Self.reason(error))")
        }
    }

    /// SQLite's `quick_check` over the whole file: `nil` when sound.
    private static func quickCheck(_ pool: DatabasePool, path: String) -> StoreError? {
        do {
            let check = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer" }
            return check == "ok" ? nil : StoreError(.corrupt, "the store \(path) fails SQLite's integrity check (\(check))")
        } catch {
            return StoreError(.corrupt, "the store \(path) fails SQLite's integrity check (\(reason(error)))")
        }
    }

    /// Runs SQLite's whole-file check now (the background check of a store opened with
    /// ``IntegrityCheck/inBackground`` calls this once).
    /// - Returns: the problem, or `nil` when the file is sound.
    public func integrityProblem() -> StoreError? {
        Self.quickCheck(pool, path: databasePath)
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            // SQLite's online backup reports a failure of the copy's file by its code alone, with
            // "not an error" for a message: the code's own text (sqlite3_errstr's) says it then.
            if let message = error.message, message != "not an error" { return message }
            switch error.resultCode {
            case .SQLITE_FULL: return "database or disk is full"
            case .SQLITE_IOERR: return "disk I/O error"
            case .SQLITE_READONLY: return "attempt to write a readonly database"
            case .SQLITE_CANTOPEN: return "unable to open database file"
            default: return "\(error.resultCode)"
            }
        }
        if let error = error as? CocoaError, let underlying = error.underlying { return "\(underlying.localizedDescription)" }
        return "\(error.localizedDescription)"
    }

    /// Runs a write transaction, turning failures into ``StoreError``.
    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "could not \(what) in \(databasePath): \(Self.reason(error)); nothing of it was kept")
        }
    }

    /// Runs a read, turning failures into ``StoreError``.
    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unreadable, "could not \(what) from \(databasePath): \(Self.reason(error))")
        }
    }

    /// The database file's size plus the media directory's, in bytes.
    /// - Returns: the bytes the store occupies on disk.
    public func diskUsage() -> UInt64 {
        let fm = FileManager.default
        var total: UInt64 = 0
        for suffix in ["", "-wal", "-shm"] {
            total += ((try? fm.attributesOfItem(atPath: databasePath + suffix))?[.size] as? UInt64) ?? 0
        }
        if let walker = fm.enumerator(atPath: mediaDirectory) {
            for case let entry as String in walker {
                total += ((try? fm.attributesOfItem(atPath: mediaDirectory + "/" + entry))?[.size] as? UInt64) ?? 0
            }
        }
        return total
    }
}
