public import Foundation
import GRDB
public import PickerdWire
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
    private let pool: DatabasePool
    /// What every presentation reads, remembered until this store changes it. pickerd is the only
    /// writer of settings and consent (pickerctl goes through it), so its own writes invalidate.
    private let cache = Mutex(Cache())

    /// Items read for presentations, while the library's version stays.
    private let itemCache = Mutex(ItemCache(version: -1))

    /// The person's hidden rules (Store+Hidden.swift), remembered until one changes.
    let hiddenCache = Mutex<[StoredHiddenRule]?>(nil)

    /// The person's corrections of home and work (Store+PlaceCorrections.swift), remembered until one changes.
    let correctionCache = Mutex<[StoredPlaceCorrection]?>(nil)

    private struct ItemCache {
        /// The most items kept (about 10 MB); past it the cache starts again.
        static let capacity = 10_000
        var version: Int64
        var items: [UUID: LibraryItem] = [:]
    }

    private struct Cache {
        var settings: [CategorySetting]?
        var consent: Int64??
        var bannerDismissed: Bool?
        var notifications: NotificationSettings?
    }

    /// Opens the store in `dataDirectory`, creating it (mode 0700) and migrating the schema.
    /// - Parameters:
    ///   - dataDirectory: the data directory.
    /// - Throws: ``StoreError`` `.unreadable` when the directory cannot be made or entered, `.corrupt`
    ///   when the database file is not a sound SQLite database.
    /// When a store checks its pages with SQLite's `quick_check`, which reads the whole file.
    public enum IntegrityCheck: Sendable {
        /// Before ``init(dataDirectory:integrityCheck:)`` returns (tools, tests).
        case atOpen
        /// On a thread of its own once open, so a large store starts at once; the outcome is
        /// ``integrityProblem()``.
        case inBackground
    }

    ///   - integrityCheck: when to run SQLite's whole-file check.
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
        // cleared history, a removed source leave nothing behind (with ``truncateLog()``).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        let path = databasePath
        // The person's alone whatever the umask: SQLite gives its write-ahead log and shared-memory
        // files the database file's mode, so that file is made (or set) 0600 before SQLite opens it.
        for file in [path, path + "-wal", path + "-shm"] {
            let fd = open(file, file == path ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDWR | O_CLOEXEC), 0o600)
            if fd >= 0 { fchmod(fd, 0o600); close(fd) }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Reading the schema finds a file that is not SQLite at once; the pages are checked below.
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            if integrityCheck == .atOpen, let problem = Self.quickCheck(pool, path: path) { throw problem }
            try Self.migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw StoreError(.corrupt, "the store \(path) is not a readable SQLite database (\(error.message ?? "\(error.resultCode)")); move it aside to start afresh")
        } catch {
            throw StoreError(.unreadable, "cannot open the store \(path): \(Self.reason(error))")
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

    /// Deletes release history: every entry, or one app's.
    /// - Parameter bundleID: the app, or empty for every app.
    /// - Returns: how many entries were deleted.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func clearHistory(bundleID: String = "") throws(StoreError) -> Int {
        try write("clear the release history") { db in
            if bundleID.isEmpty {
                try db.execute(sql: "DELETE FROM release")
            } else {
                try db.execute(sql: "DELETE FROM release WHERE bundle_id = ?", arguments: [bundleID])
            }
            return db.changesCount
        }
    }

    /// SQLite's `quick_check` over the whole file: `nil` when sound.
    private static func quickCheck(_ pool: DatabasePool, path: String) -> StoreError? {
        do {
            let check = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer" }
            return check == "ok" ? nil : StoreError(.corrupt, "the store \(path) fails SQLite's integrity check (\(check)); move it aside to start afresh")
        } catch {
            return StoreError(.corrupt, "the store \(path) fails SQLite's integrity check (\(reason(error))); move it aside to start afresh")
        }
    }

    /// Runs SQLite's whole-file check now (the background check of a store opened with
    /// ``IntegrityCheck/inBackground`` calls this once).
    /// - Returns: the problem, or `nil` when the file is sound.
    public func integrityProblem() -> StoreError? {
        Self.quickCheck(pool, path: databasePath)
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
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

    // MARK: Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: library, suggestions, settings, consent, history") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    category INTEGER NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    excluded INTEGER NOT NULL DEFAULT 0,
                    source TEXT NOT NULL,
                    external_id TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX item_by_start ON item(start_ms);
                CREATE TABLE media (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    slot INTEGER NOT NULL,
                    relative_path TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    filename TEXT NOT NULL,
                    byte_count INTEGER NOT NULL,
                    pixel_width INTEGER NOT NULL,
                    pixel_height INTEGER NOT NULL,
                    PRIMARY KEY (item_id, slot)
                );
                CREATE TABLE photo (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    photo_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE live_photo (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    image_slot INTEGER, video_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE video (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    video_slot INTEGER, date_ms INTEGER
                );
                -- A standalone workout has one row (position 0); a workout group one per workout.
                CREATE TABLE workout (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    has_details INTEGER NOT NULL,
                    activity_type INTEGER NOT NULL,
                    energy_value REAL, energy_unit TEXT,
                    distance_value REAL, distance_unit TEXT,
                    heart_rate_value REAL, heart_rate_unit TEXT,
                    start_ms INTEGER, end_ms INTEGER,
                    localized_name TEXT NOT NULL,
                    icon_slot INTEGER,
                    PRIMARY KEY (item_id, position)
                );
                CREATE TABLE route_point (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL,
                    altitude_m REAL, horizontal_accuracy_m REAL, timestamp_ms INTEGER,
                    PRIMARY KEY (item_id, position, seq)
                );
                CREATE TABLE workout_group (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    icon_slot INTEGER, duration_s REAL,
                    energy_value REAL, energy_unit TEXT,
                    heart_rate_value REAL, heart_rate_unit TEXT
                );
                CREATE TABLE contact (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    name TEXT NOT NULL, photo_slot INTEGER
                );
                -- A standalone location has one row (position 0); a location group one per place.
                CREATE TABLE location (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    place TEXT NOT NULL, city TEXT NOT NULL,
                    latitude REAL, longitude REAL, altitude_m REAL, horizontal_accuracy_m REAL, timestamp_ms INTEGER,
                    date_ms INTEGER,
                    is_work_location INTEGER,
                    PRIMARY KEY (item_id, position)
                );
                CREATE TABLE location_group (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE
                );
                CREATE TABLE song (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    song TEXT NOT NULL, artist TEXT NOT NULL, album TEXT NOT NULL, artwork_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE podcast (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    episode TEXT NOT NULL, show TEXT NOT NULL, artwork_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE motion_activity (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    icon_slot INTEGER, steps INTEGER NOT NULL, start_ms INTEGER, end_ms INTEGER,
                    movement_type INTEGER NOT NULL
                );
                CREATE TABLE generic_media (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    title TEXT NOT NULL, artist TEXT NOT NULL, album TEXT NOT NULL, date_ms INTEGER, app_icon_slot INTEGER
                );
                CREATE TABLE reflection (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    prompt TEXT NOT NULL, color TEXT
                );
                CREATE TABLE state_of_mind (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    has_state INTEGER NOT NULL,
                    kind INTEGER NOT NULL, valence REAL NOT NULL, valence_classification INTEGER NOT NULL,
                    labels TEXT NOT NULL, associations TEXT NOT NULL, date_ms INTEGER,
                    icon_slot INTEGER, light_background TEXT, dark_background TEXT
                );
                CREATE TABLE suggestion (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    score REAL NOT NULL
                );
                CREATE TABLE suggestion_item (
                    suggestion_id TEXT NOT NULL REFERENCES suggestion(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 12),
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    PRIMARY KEY (suggestion_id, position)
                );
                CREATE TABLE category_setting (
                    category INTEGER PRIMARY KEY NOT NULL,
                    enabled INTEGER NOT NULL
                );
                CREATE TABLE consent (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    given_ms INTEGER,
                    privacy_banner_dismissed INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE release (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time_ms INTEGER NOT NULL,
                    bundle_id TEXT NOT NULL,
                    app_name TEXT NOT NULL,
                    suggestion_id TEXT NOT NULL,
                    title TEXT NOT NULL
                );
                CREATE TABLE release_item (
                    release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    item_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    PRIMARY KEY (release_id, position)
                );
                """)
        }
        migrator.registerMigration("v2: notification settings and records") { db in
            try db.execute(sql: """
                CREATE TABLE notification_settings (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    enabled INTEGER NOT NULL,
                    mode INTEGER NOT NULL,
                    slots TEXT NOT NULL,
                    open_with TEXT NOT NULL
                );
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY NOT NULL,
                    suggestion_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    fired_ms INTEGER NOT NULL,
                    opened INTEGER NOT NULL DEFAULT 0,
                    url TEXT NOT NULL DEFAULT ''
                );
                """)
        }
        migrator.registerMigration("v3: reminder scheduler watermark") { db in
            // How far the scheduler has looked: every reminder due up to here was recorded (in the same
            // transaction that moved the mark), so a restart neither repeats nor loses one.
            try db.execute(sql: """
                CREATE TABLE reminder_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    checked_until_ms INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4: moments engine: item time zones, places, not-memories; indexed suggestions with rotation") { db in
            // Suggestions are rebuilt by the moments engine (deterministic ids), so the old ones go.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN utc_offset_s INTEGER;
                ALTER TABLE item ADD COLUMN latitude REAL;
                ALTER TABLE item ADD COLUMN longitude REAL;
                ALTER TABLE item ADD COLUMN not_memory TEXT;
                DELETE FROM suggestion;
                ALTER TABLE suggestion ADD COLUMN category_mask INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN shown INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN rank REAL NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN month_day INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN anchor_ms INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX suggestion_recent ON suggestion(end_ms DESC, id DESC);
                CREATE INDEX suggestion_by_kind_rank ON suggestion(kind, rank DESC);
                CREATE INDEX suggestion_by_kind_end ON suggestion(kind, end_ms DESC);
                CREATE INDEX suggestion_by_month_day ON suggestion(month_day);
                CREATE INDEX suggestion_by_anchor ON suggestion(anchor_ms);
                CREATE INDEX suggestion_item_by_item ON suggestion_item(item_id);
                CREATE TABLE engine_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    built INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v5: counts and the library's version kept by triggers") { db in
            // `pickerctl status` and the stats read a few rows, not the library: the counts are kept
            // up to date by the database itself, whoever writes (pickerd, or a tool on the file).
            try db.execute(sql: """
                CREATE TABLE item_count (kind TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
                INSERT INTO item_count (kind, n) SELECT kind, COUNT(*) FROM item GROUP BY kind;
                CREATE TRIGGER item_counted AFTER INSERT ON item BEGIN
                    INSERT INTO item_count (kind, n) VALUES (NEW.kind, 1) ON CONFLICT(kind) DO UPDATE SET n = n + 1;
                END;
                CREATE TRIGGER item_uncounted AFTER DELETE ON item BEGIN
                    UPDATE item_count SET n = n - 1 WHERE kind = OLD.kind;
                END;
                CREATE TABLE suggestion_count (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
                INSERT INTO suggestion_count (id, n) VALUES (1, (SELECT COUNT(*) FROM suggestion));
                CREATE TRIGGER suggestion_counted AFTER INSERT ON suggestion BEGIN
                    UPDATE suggestion_count SET n = n + 1 WHERE id = 1;
                END;
                CREATE TRIGGER suggestion_uncounted AFTER DELETE ON suggestion BEGIN
                    UPDATE suggestion_count SET n = n - 1 WHERE id = 1;
                END;
                -- Every change to an item moves this on: items read before are still good while it stays.
                CREATE TABLE library_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
                INSERT INTO library_version (id, n) VALUES (1, 0);
                CREATE TRIGGER item_inserted AFTER INSERT ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                CREATE TRIGGER item_updated AFTER UPDATE ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                CREATE TRIGGER item_deleted AFTER DELETE ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                """)
        }
        migrator.registerMigration("v6: sources: a person's folders, indexed in place") { db in
            // A source is a folder pickerd indexes where it is; each file it holds has a row keyed by
            // its path, with what a rescan compares (size, mtime) and what tells a move (device,
            // inode). A file's item is kept in `item` as any other; its media row names the file by
            // its absolute path (a relative path is below the store's own media directory) and the
            // mtime the release checks again. Deleting an item leaves its file's row, unlinked: the
            // next scan indexes it again.
            try db.execute(sql: """
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    added_ms INTEGER NOT NULL,
                    last_scan_ms INTEGER,
                    last_scan_seconds REAL
                );
                CREATE TABLE source_file (
                    path TEXT PRIMARY KEY NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    directory TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    item_id TEXT REFERENCES item(id) ON DELETE SET NULL,
                    role TEXT NOT NULL DEFAULT '',
                    content_id TEXT,
                    problem TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX source_file_by_source ON source_file(source_id, directory);
                CREATE INDEX source_file_by_item ON source_file(item_id);
                CREATE INDEX source_file_by_content ON source_file(content_id) WHERE content_id IS NOT NULL;
                ALTER TABLE media ADD COLUMN mtime_ns INTEGER;
                CREATE INDEX media_by_path ON media(relative_path);
                """)
        }
        migrator.registerMigration("v7: what the person allowed and revoked of apps") { db in
            // The person's word on each app: allowed (in the trusted picker) or revoked (pickerctl apps
            // revoke), with the registration it was given for (a developer build's executable and
            // entitlements, a Flatpak's app id): a registration changed since is asked about again.
            try db.execute(sql: """
                CREATE TABLE app_state (
                    bundle_id TEXT PRIMARY KEY NOT NULL,
                    allowed_key TEXT,
                    allowed_ms INTEGER,
                    revoked_ms INTEGER,
                    last_presented_ms INTEGER
                );
                """)
        }
        migrator.registerMigration("v8: donations: an app's items by its own ids; a generic media item's artwork") { db in
            // Donated items are found by app and the app's identifier (a second donation replaces the
            // first, a withdrawal names them); the donated cover of a generic media item has a slot.
            try db.execute(sql: """
                CREATE INDEX item_by_source ON item(source, external_id);
                ALTER TABLE generic_media ADD COLUMN artwork_slot INTEGER;
                """)
        }
        migrator.registerMigration("v9: people: the person's contacts, calendar events, who photos name") { db in
            // Contacts (vCard) and calendar events (.ics) are not library items: a Contact item is
            // made from them only where the data says the person spent time with someone (an event's
            // attendee, a photo that names them), and linked to what made it (`person_link`): when the
            // last photo or event behind a Contact item goes, the item goes (trigger). Events are
            // stored one row per occurrence, read by time through `calendar_event_by_start`.
            try db.execute(sql: """
                CREATE TABLE person_contact (
                    key TEXT PRIMARY KEY NOT NULL,
                    uid TEXT,
                    name TEXT NOT NULL,
                    other_names TEXT NOT NULL DEFAULT '',
                    emails TEXT NOT NULL DEFAULT '',
                    photo_path TEXT,
                    photo_type TEXT,
                    photo_bytes INTEGER,
                    photo_width INTEGER,
                    photo_height INTEGER,
                    updated_ms INTEGER NOT NULL
                );
                CREATE TABLE calendar_event (
                    id TEXT PRIMARY KEY NOT NULL,
                    uid TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    all_day INTEGER NOT NULL,
                    time_zone TEXT NOT NULL DEFAULT '',
                    location TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX calendar_event_by_start ON calendar_event(start_ms);
                CREATE INDEX calendar_event_by_uid ON calendar_event(uid);
                CREATE TABLE calendar_attendee (
                    event_id TEXT NOT NULL REFERENCES calendar_event(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    PRIMARY KEY (event_id, position)
                );
                CREATE TABLE item_person (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    PRIMARY KEY (item_id, name)
                );
                CREATE TABLE person_link (
                    contact_item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    photo_item_id TEXT REFERENCES item(id) ON DELETE CASCADE,
                    event_id TEXT REFERENCES calendar_event(id) ON DELETE CASCADE
                );
                CREATE INDEX person_link_by_contact ON person_link(contact_item_id);
                CREATE INDEX person_link_by_photo ON person_link(photo_item_id);
                CREATE INDEX person_link_by_event ON person_link(event_id);
                CREATE TRIGGER person_link_gone AFTER DELETE ON person_link
                WHEN NOT EXISTS (SELECT 1 FROM person_link WHERE contact_item_id = OLD.contact_item_id)
                BEGIN DELETE FROM item WHERE id = OLD.contact_item_id; END;
                """)
        }
        migrator.registerMigration("v10: a person's file's change time, which a release checks") { db in
            // A release opens the person's file and compares the descriptor's device, inode, size,
            // mtime and ctime with the index: a file swapped for another (even one given the same
            // size and mtime) is not released. Rows from before have no ctime; a rescan fills it.
            try db.execute(sql: "ALTER TABLE source_file ADD COLUMN ctime_ns INTEGER")
        }
        migrator.registerMigration("v11: what the person hid from suggestions") { db in
            // The person's own rules, kept with the settings (never sent to an app). A kind this
            // version cannot read is left in place and reported, never dropped.
            try db.execute(sql: """
                CREATE TABLE hidden_rule (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    suggestion_id TEXT,
                    name TEXT,
                    latitude REAL,
                    longitude REAL,
                    from_day INTEGER,
                    to_day INTEGER,
                    created_ms INTEGER NOT NULL
                )
                """)
        }
        migrator.registerMigration("v12: the person's word on where home and work are") { db in
            // `pickerctl places set-home|set-work`: a place (and from which local day on, for a move)
            // that wins over what pickerd finds in the visits. Never sent to an app. A row this
            // version cannot read is left in place and reported, never dropped.
            try db.execute(sql: """
                CREATE TABLE place_correction (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    role TEXT NOT NULL,
                    latitude REAL,
                    longitude REAL,
                    name TEXT NOT NULL DEFAULT '',
                    from_day INTEGER,
                    created_ms INTEGER NOT NULL
                )
                """)
        }
        return migrator
    }

    // MARK: Items

    /// Adds items (replacing any with the same id), all in one transaction.
    /// - Parameter items: the items.
    /// - Throws: ``StoreError`` `.writeFailed`; then none of them was kept.
    public func insert(_ items: [LibraryItem]) throws(StoreError) {
        try write("add \(items.count) items") { db in
            for item in items { try ItemCodec.insert(item, db) }
        }
    }

    /// Replaces the items of one derived `source` that start in `range` (what the engine works out
    /// from other items, such as stays from photos) with `items`, in one transaction. An item that
    /// stays as it was is not written again, so the suggestions holding it keep it.
    /// - Parameters:
    ///   - source: the derived items' `source`; only items of it are removed.
    ///   - range: start times, ms since 1970.
    ///   - items: the new items of that source starting in `range`.
    /// - Returns: whether anything changed.
    /// - Throws: ``StoreError`` `.writeFailed`; then nothing changed.
    @discardableResult
    public func replaceDerivedItems(source: String, startingIn range: Range<Int64>, with items: [LibraryItem]) throws(StoreError) -> Bool {
        let stored = try read("read derived items") { db -> [LibraryItem] in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM item WHERE source = ? AND start_ms >= ? AND start_ms < ?",
                                          arguments: [source, range.lowerBound, range.upperBound])
            return try ItemCodec.load(db, ids: ids.compactMap(UUID.init(uuidString:)))
        }
        let old = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let changed = items.filter { old[$0.id] != $0 }
        let gone = Set(old.keys).subtracting(items.map(\.id))
        guard !changed.isEmpty || !gone.isEmpty else { return false }
        try write("replace \(items.count) items derived from \(source)") { db in
            for id in gone { try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id.uuidString]) }
            for item in changed { try ItemCodec.insert(item, db) }
        }
        return true
    }

    /// Every item in the library, oldest first. Reads the whole library: for tools and tests, never
    /// on pickerd's presentation path (which reads by id and by time range).
    /// - Returns: the items.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func items() throws(StoreError) -> [LibraryItem] {
        try read("read the library") { db in try ItemCodec.loadAll(db) }
    }

    /// The items with these ids, in the order given (unknown ids are left out).
    /// - Parameter ids: item ids.
    /// - Returns: the items found.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func items(_ ids: [UUID]) throws(StoreError) -> [LibraryItem] {
        let byID = try read("read items") { db -> [UUID: LibraryItem] in
            // Items read before are used again while the library's version stays (any write to an
            // item, by any process, moves it on): a presentation reads only what it has not seen.
            let version = try Int64.fetchOne(db.cachedStatement(sql: "SELECT n FROM library_version WHERE id = 1")) ?? -1
            var found: [UUID: LibraryItem] = [:]
            let missing = itemCache.withLock { cache -> [UUID] in
                if cache.version != version { cache = ItemCache(version: version) }
                var missing: [UUID] = []
                for id in ids {
                    if let item = cache.items[id] { found[id] = item } else { missing.append(id) }
                }
                return missing
            }
            guard !missing.isEmpty else { return found }
            let loaded = try ItemCodec.load(db, ids: missing)
            itemCache.withLock { cache in
                guard cache.version == version else { return }
                if cache.items.count + loaded.count > ItemCache.capacity { cache.items.removeAll(keepingCapacity: true) }
                for item in loaded { cache.items[item.id] = item }
            }
            for item in loaded { found[item.id] = item }
            return found
        }
        return ids.compactMap { byID[$0] }
    }

    /// The items that start in [fromMs, toMs], oldest first (through the start index).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func items(startingFrom fromMs: Int64, to toMs: Int64) throws(StoreError) -> [LibraryItem] {
        try read("read items") { db in try ItemCodec.load(db, startingFrom: fromMs, to: toMs) }
    }

    /// When the library's first item starts and its last ends, or `nil` when it is empty.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func libraryRange() throws(StoreError) -> ClosedRange<Int64>? {
        try read("read the library's range") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT MIN(start_ms) AS first, MAX(start_ms) AS last FROM item"),
                  let first: Int64 = row["first"], let last: Int64 = row["last"] else { return nil }
            return first...last
        }
    }

    /// Where the person lives, as ``HomeBase/find(in:)`` says, computed by SQLite: the place with
    /// the longest visits (work aside), else the square kilometre with the most located items among
    /// those with items on ``HomeBase/photoDays`` days or more; stays the engine derived from photos
    /// count as neither (the photos themselves count).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func homeBase() throws(StoreError) -> HomeBase {
        try read("find home") { db in
            if let row = try Row.fetchOne(db, sql: """
                SELECT l.place, l.city, l.latitude, l.longitude, SUM(i.end_ms - i.start_ms) AS dwell,
                       CASE WHEN l.latitude IS NULL THEN l.place
                            ELSE CAST(ROUND(l.latitude * 300) AS INTEGER) || ',' || CAST(ROUND(l.longitude * 300) AS INTEGER) END AS cell
                FROM location l JOIN item i ON i.id = l.item_id
                WHERE i.kind = 'location' AND COALESCE(l.is_work_location, 0) = 0 AND i.source != ?
                GROUP BY cell ORDER BY dwell DESC, cell ASC LIMIT 1
                """, arguments: [LibraryItem.photoStaySource]) {
                let latitude: Double? = row["latitude"], longitude: Double? = row["longitude"]
                return HomeBase(place: row["place"], city: row["city"],
                                coordinate: latitude.flatMap { la in longitude.map { Coordinate(latitude: la, longitude: $0) } })
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT latitude, longitude, COUNT(*) AS n, COUNT(DISTINCT start_ms / 86400000) AS days FROM item
                WHERE latitude IS NOT NULL AND source != ?
                GROUP BY ROUND(latitude * 100), ROUND(longitude * 100) HAVING days >= \(HomeBase.photoDays) ORDER BY n DESC LIMIT 1
                """, arguments: [LibraryItem.photoStaySource]) {
                return HomeBase(coordinate: Coordinate(latitude: row["latitude"], longitude: row["longitude"]))
            }
            return HomeBase()
        }
    }

    /// The ids of the reflection prompts suggestions may use, in id order.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func reflectionPromptIDs() throws(StoreError) -> [UUID] {
        try read("read prompts") { db in
            try String.fetchAll(db, sql: "SELECT id FROM item WHERE kind = 'reflection' AND excluded = 0 AND not_memory IS NULL ORDER BY id")
                .compactMap(UUID.init(uuidString:))
        }
    }

    /// How many items of each kind the library holds (kept by triggers: a few rows are read), the
    /// stays the engine derived from photos left out.
    /// - Returns: counts by kind (kinds with none are absent).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func itemCounts() throws(StoreError) -> [AssetKind: Int] {
        try read("count items") { db in
            var counts: [AssetKind: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, n FROM item_count WHERE n > 0") {
                if let kind = AssetKind(rawValue: row["kind"]) { counts[kind] = row["n"] }
            }
            // The stays the engine derived from photos are not the person's items (item_by_source).
            let derived = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE source = ?"),
                                           arguments: [LibraryItem.photoStaySource]) ?? 0
            if derived > 0, let locations = counts[.location] {
                counts[.location] = locations - derived > 0 ? locations - derived : nil
            }
            return counts
        }
    }

    /// Removes every item, suggestion and media file (settings, consent and history stay).
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func clearLibrary() throws(StoreError) {
        try write("clear the library") { db in
            try db.execute(sql: "DELETE FROM suggestion; DELETE FROM item;")
        }
        let fm = FileManager.default
        for entry in (try? fm.contentsOfDirectory(atPath: mediaDirectory)) ?? [] {
            try? fm.removeItem(atPath: mediaDirectory + "/" + entry)
        }
    }

    /// Writes a media file into the media directory.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - relativePath: its path below the media directory (subdirectories are created).
    ///   - atomically: write a temporary file and rename it (a file that already exists is never
    ///     seen half-written); `false` for a new file in a bulk seeding, whose item is added only
    ///     after its files.
    ///   - directoryExists: the caller knows the file's directory was made already.
    /// - Throws: ``StoreError`` `.writeFailed` (a full disk, …).
    public func writeMedia(_ bytes: [UInt8], to relativePath: String, atomically: Bool = true, directoryExists: Bool = false) throws(StoreError) {
        let path = mediaDirectory + "/" + relativePath
        do {
            if !directoryExists {
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: atomically ? .atomic : [])
        } catch {
            throw StoreError(.writeFailed, "could not write the media file \(path): \(Self.reason(error))")
        }
    }

    /// The absolute path of a stored media file. For pickerd's own use: never sent to a client.
    /// - Parameter media: a stored file.
    /// - Returns: its path.
    public func path(of media: StoredMedia) -> String {
        media.isPersonsFile ? media.relativePath : mediaDirectory + "/" + media.relativePath
    }

    // MARK: Suggestions

    /// How much being shown and being released lower a suggestion's rank: the same moment is not
    /// recommended for ever.
    static let rankSQL = "score - 0.6 * MIN(shown, 5) - 4.0 * released"

    /// Replaces every stored suggestion with `suggestions`, in one transaction (what was shown and
    /// released of a suggestion whose id stays is kept).
    /// - Throws: ``StoreError`` `.invalid` for a suggestion over 13 items, `.writeFailed`.
    /// - Parameters:
    ///   - suggestions: the new suggestions (each at most 13 items).
    ///   - engineVersion: the version of the engine that built all of them, recorded for
    ///     ``suggestionsEngineVersion()``; `nil` (a tool's own suggestions) keeps the version recorded.
    public func replaceSuggestions(_ suggestions: [StoredSuggestion], engineVersion: Int? = nil) throws(StoreError) {
        try replaceSuggestions(startingIn: Int64.min..<Int64.max, with: suggestions, engineVersion: engineVersion, all: true)
    }

    /// Replaces the suggestions anchored in `range` with `suggestions` (the moments the engine
    /// made again for those days), in one transaction. A suggestion whose id stays keeps its
    /// rotation (how often it was shown, whether it was released).
    /// - Parameters:
    ///   - range: start times, ms since 1970, whose suggestions are replaced.
    ///   - suggestions: the new suggestions (each at most 13 items).
    ///   - engineVersion: the version of the engine that built them: recorded only when no version
    ///     is yet (some weeks built again say nothing of the others).
    /// - Throws: ``StoreError`` `.invalid` for a suggestion over 13 items, `.writeFailed`; then
    ///   nothing changed.
    public func replaceSuggestions(startingIn range: Range<Int64>, with suggestions: [StoredSuggestion], engineVersion: Int? = nil) throws(StoreError) {
        try replaceSuggestions(startingIn: range, with: suggestions, engineVersion: engineVersion, all: false)
    }

    private func replaceSuggestions(startingIn range: Range<Int64>, with suggestions: [StoredSuggestion], engineVersion: Int?,
                                    all: Bool) throws(StoreError) {
        if let big = suggestions.first(where: { $0.itemIDs.count > 13 }) {
            throw StoreError(.invalid, "suggestion \"\(big.title)\" has \(big.itemIDs.count) items; the limit is 13")
        }
        try write("store \(suggestions.count) suggestions") { db in
            var rotation: [String: (Int, Int)] = [:]
            let ids = suggestions.map(\.id.uuidString)
            for row in try Row.fetchAll(db, sql: "SELECT id, shown, released FROM suggestion WHERE anchor_ms >= ? AND anchor_ms < ?",
                                        arguments: [range.lowerBound, range.upperBound]) {
                rotation[row["id"]] = (row["shown"], row["released"])
            }
            for id in ids {
                if rotation[id] == nil, let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT shown, released FROM suggestion WHERE id = ?"),
                                                                   arguments: [id]) {
                    rotation[id] = (row["shown"], row["released"])
                }
            }
            if range == Int64.min..<Int64.max {
                try db.execute(sql: "DELETE FROM suggestion")
            } else {
                try db.execute(sql: "DELETE FROM suggestion WHERE anchor_ms >= ? AND anchor_ms < ?", arguments: [range.lowerBound, range.upperBound])
                for id in ids { try db.cachedStatement(sql: "DELETE FROM suggestion WHERE id = ?").execute(arguments: [id]) }
            }
            for (s, id) in zip(suggestions, ids) {
                let (shown, released) = rotation[id] ?? (0, 0)
                try db.cachedStatement(sql: """
                    INSERT INTO suggestion (id, title, kind, start_ms, end_ms, score, shown, released, rank, month_day, anchor_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                    """).execute(arguments: [id, s.title, Int(s.kind.rawValue), s.startMs, s.endMs, s.score, shown, released, s.monthDay,
                                             s.anchorMs])
                for (position, item) in s.itemIDs.enumerated() {
                    try db.cachedStatement(sql: "INSERT INTO suggestion_item (suggestion_id, position, item_id) VALUES (?, ?, ?)")
                        .execute(arguments: [id, position, item.uuidString])
                }
                // Which categories its items are of, as bits: the picker's filter by the person's
                // settings is then an index-friendly test, not a join.
                try db.cachedStatement(sql: """
                    UPDATE suggestion SET rank = \(Self.rankSQL), category_mask = (
                        SELECT COALESCE(SUM(DISTINCT 1 << i.category), 0) FROM suggestion_item si JOIN item i ON i.id = si.item_id
                        WHERE si.suggestion_id = suggestion.id)
                    WHERE id = ?
                    """).execute(arguments: [id])
            }
            // `built` is the version of the engine that built every suggestion (1: before versions).
            let replace = all && engineVersion != nil ? "REPLACE" : "IGNORE"
            try db.execute(sql: "INSERT OR \(replace) INTO engine_state (id, built) VALUES (1, ?)", arguments: [engineVersion ?? 1])
        }
    }

    /// The version of the moments engine that built this store's suggestions, or `nil` when none
    /// has (a store from before the engine, or one another tool filled). Stores from before
    /// versions were recorded say 1.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionsEngineVersion() throws(StoreError) -> Int? {
        try read("read the engine's state") { db in try Int.fetchOne(db, sql: "SELECT built FROM engine_state WHERE id = 1") }
    }

    /// Every stored suggestion, in no particular order. Reads the whole table: for tools and tests,
    /// never on the presentation path.
    /// - Returns: the suggestions.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestions() throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion", arguments: [])
        }
    }

    /// Reads suggestion rows (with their item ids) that `sql` selects, in its order.
    static func suggestions(_ db: Database, sql: String, arguments: StatementArguments, cached: Bool = true) throws -> [StoredSuggestion] {
        // Fixed queries stay compiled; a query whose IN list varies in length is compiled each time.
        let rows = try Row.fetchAll(cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql), arguments: arguments)
        // Their items in one query per 500 suggestions, not one per suggestion.
        let links = try ItemCodec.inChunks(rows.map { $0[0] as String }) { marks, arguments in
            try Row.fetchAll(db, sql: "SELECT suggestion_id, item_id FROM suggestion_item WHERE suggestion_id IN (\(marks)) ORDER BY suggestion_id, position",
                             arguments: arguments)
        }
        var items: [String: [UUID]] = [:]
        for row in links {
            if let item = UUID.parsing(row[1]) { items[row[0], default: []].append(item) }
        }
        return rows.compactMap { row in
            let id: String = row[0]
            guard let uuid = UUID.parsing(id) else { return nil }
            var s = StoredSuggestion(id: uuid, title: row[1], kind: SuggestionKind(rawValue: row[2]),
                                     startMs: row[3], endMs: row[4], score: row[5], itemIDs: items[id] ?? [],
                                     monthDay: row[6], anchorMs: row[7])
            s.rank = row[8]
            s.categoryMask = row[9]
            return s
        }
    }

    /// The columns every suggestion query reads, in the order ``suggestions(_:sql:arguments:)`` takes them.
    static let suggestionColumns = "id, title, kind, start_ms, end_ms, score, month_day, anchor_ms, rank, category_mask"

    /// The bits of `categories`, as ``StoredSuggestion/categoryMask`` holds them.
    public static func mask(_ categories: Set<PickerdWire.Category>) -> Int64 {
        categories.reduce(0) { $0 | (1 << Int64($1.rawValue)) }
    }

    /// Recent: suggestions with an item of an enabled category, newest first, a page at a time
    /// (through the `end_ms` index).
    /// - Parameters:
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - offset: how many to skip.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func recentSuggestions(enabled: Int64, offset: Int, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read recent suggestions") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion WHERE category_mask & ? != 0 AND \(Self.notHidden) ORDER BY end_ms DESC, id DESC LIMIT ? OFFSET ?",
                                 arguments: [enabled, limit, offset])
        }
    }

    /// Each kind's best suggestions by rank (rotation applied), and its newest, for Recommended:
    /// two short index walks per kind, then the rows in one read.
    /// - Parameters:
    ///   - kinds: the kinds of moment.
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - limit: how many of each, per kind.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func candidates(kinds: [SuggestionKind], enabled: Int64, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            var ids: [String] = []
            var seen = Set<String>()
            for kind in kinds {
                for sql in ["SELECT id FROM suggestion WHERE kind = ? AND category_mask & ? != 0 ORDER BY rank DESC LIMIT ?",
                            "SELECT id FROM suggestion WHERE kind = ? AND category_mask & ? != 0 ORDER BY end_ms DESC LIMIT ?"] {
                    for id in try String.fetchAll(db.cachedStatement(sql: sql), arguments: [Int(kind.rawValue), enabled, limit])
                    where seen.insert(id).inserted {
                        ids.append(id)
                    }
                }
            }
            return try Self.suggestions(db, ids: ids)
        }
    }

    /// The suggestions with these ids (in no particular order), 500 to a query.
    static func suggestions(_ db: Database, ids: [String]) throws -> [StoredSuggestion] {
        try ItemCodec.inChunks(ids) { marks, arguments in
            try suggestions(db, sql: "SELECT \(suggestionColumns) FROM suggestion WHERE id IN (\(marks))", arguments: arguments, cached: false)
        }
    }

    /// Suggestions of earlier years on this calendar day ("on this day"), best first.
    /// - Parameters:
    ///   - monthDay: month × 100 + day, in the person's time.
    ///   - before: only moments that ended before this time, ms since 1970.
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestions(onMonthDay monthDay: Int, endingBefore before: Int64, enabled: Int64, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            try Self.suggestions(db, sql: """
                SELECT \(Self.suggestionColumns) FROM suggestion WHERE month_day = ? AND end_ms < ? AND category_mask & ? != 0 ORDER BY rank DESC LIMIT ?
                """, arguments: [monthDay, before, enabled, limit])
        }
    }

    /// One suggestion by id, if stored.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestion(id: UUID) throws(StoreError) -> StoredSuggestion? {
        try read("read a suggestion") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion WHERE id = ?", arguments: [id.uuidString]).first
        }
    }

    /// The newest end of any suggestion (the library's "now", for recency), through the index.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func newestSuggestionEnd() throws(StoreError) -> Int64? {
        try read("read suggestions") { db in try Int64.fetchOne(db, sql: "SELECT MAX(end_ms) FROM suggestion") }
    }

    /// Records that suggestions were shown to the person (near the top of Recommended): each
    /// showing lowers their rank a little, up to a bound.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markShown(_ ids: [UUID]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write("record what was shown") { db in
            for id in ids {
                try db.cachedStatement(sql: "UPDATE suggestion SET shown = shown + 1 WHERE id = ?").execute(arguments: [id.uuidString])
                try db.cachedStatement(sql: "UPDATE suggestion SET rank = \(Self.rankSQL) WHERE id = ?").execute(arguments: [id.uuidString])
            }
        }
    }

    /// Records that a suggestion was written about: its rank drops well below the rest.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markReleased(_ id: UUID) throws(StoreError) {
        try write("record a release") { db in
            try db.execute(sql: "UPDATE suggestion SET released = 1 WHERE id = ?", arguments: [id.uuidString])
            try db.execute(sql: "UPDATE suggestion SET rank = \(Self.rankSQL) WHERE id = ?", arguments: [id.uuidString])
        }
    }

    /// How many suggestions are stored (`pickerctl status`), as the triggers keep count.
    /// - Returns: the count.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionCount() throws(StoreError) -> Int {
        try read("count suggestions") { db in try Int.fetchOne(db, sql: "SELECT n FROM suggestion_count WHERE id = 1") ?? 0 }
    }

    /// The most items any suggestion shows with these categories on (`pickerctl library stats`;
    /// it reads every suggestion's items, so it is not for the presentation path).
    /// - Parameter enabled: ``mask(_:)`` of the enabled categories.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func largestSuggestionSize(enabled: Int64) throws(StoreError) -> Int {
        try read("read suggestions") { db in
            try Int.fetchOne(db, sql: """
                SELECT COALESCE(MAX(n), 0) FROM (
                    SELECT COUNT(*) AS n FROM suggestion_item si JOIN item i ON i.id = si.item_id
                    WHERE (1 << i.category) & ? != 0 AND i.excluded = 0 AND i.not_memory IS NULL
                    GROUP BY si.suggestion_id)
                """, arguments: [enabled]) ?? 0
        }
    }

    /// The condition that leaves out suggestions the person hid by id (their other rules need the
    /// items, and are applied when a suggestion is listed).
    static let notHidden = "id NOT IN (SELECT suggestion_id FROM hidden_rule WHERE kind = 'suggestion' AND suggestion_id IS NOT NULL)"

    /// How many suggestions have an item of an enabled category and are not hidden by id (Recent's length). Counted by
    /// SQLite each time (another process may add to the library; a few milliseconds at 30,000).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func visibleSuggestionCount(enabled: Int64) throws(StoreError) -> Int {
        try read("count suggestions") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM suggestion WHERE category_mask & ? != 0 AND \(Self.notHidden)", arguments: [enabled]) ?? 0
        }
    }

    // MARK: Settings and consent

    /// Every category's setting (a category never set is enabled).
    /// - Returns: one setting per category, in the schema's order.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func categorySettings() throws(StoreError) -> [CategorySetting] {
        if let cached = cache.withLock({ $0.settings }) { return cached }
        let stored = try read("read settings") { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT category, enabled FROM category_setting")
                .map { (Int32($0["category"] as Int), ($0["enabled"] as Int) != 0) })
        }
        let settings = Category.allKnown.filter { $0 != .unspecified }.map {
            CategorySetting(category: $0, enabled: stored[$0.rawValue] ?? true)
        }
        cache.withLock { $0.settings = settings }
        return settings
    }

    /// The categories currently enabled.
    /// - Returns: the set of enabled categories.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func enabledCategories() throws(StoreError) -> Set<Category> {
        Set(try categorySettings().filter(\.enabled).map(\.category))
    }

    /// Changes the listed categories; others keep their setting.
    /// - Parameter settings: the categories to change.
    /// - Throws: ``StoreError`` `.invalid` for an unknown category, `.writeFailed`.
    public func setCategories(_ settings: [CategorySetting]) throws(StoreError) {
        if let bad = settings.first(where: { !Category.allKnown.contains($0.category) || $0.category == .unspecified }) {
            throw StoreError(.invalid, "unknown category \(bad.category.rawValue)")
        }
        defer { cache.withLock { $0.settings = nil } }
        try write("change settings") { db in
            for s in settings {
                try db.execute(sql: "INSERT OR REPLACE INTO category_setting (category, enabled) VALUES (?, ?)",
                               arguments: [Int(s.category.rawValue), s.enabled ? 1 : 0])
            }
        }
    }

    /// When the person turned suggestions on for this device, if they have.
    /// - Returns: ms since 1970, or `nil` before consent.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func consentDate() throws(StoreError) -> Int64? {
        if let cached = cache.withLock({ $0.consent }) { return cached }
        let given = try read("read consent") { db in try Int64.fetchOne(db, sql: "SELECT given_ms FROM consent WHERE id = 1") }
        cache.withLock { $0.consent = .some(given) }
        return given
    }

    /// Records consent (once per device: a second call keeps the first date).
    /// - Parameter timeMs: when, ms since 1970.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func recordConsent(at timeMs: Int64) throws(StoreError) {
        defer { cache.withLock { $0.consent = nil } }
        try write("record consent") { db in
            try db.execute(sql: "INSERT INTO consent (id, given_ms) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET given_ms = COALESCE(given_ms, excluded.given_ms)",
                           arguments: [timeMs])
        }
    }

    /// Forgets consent: the next presentation asks again.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func resetConsent() throws(StoreError) {
        defer { cache.withLock { $0.consent = nil } }
        try write("reset consent") { db in try db.execute(sql: "UPDATE consent SET given_ms = NULL WHERE id = 1") }
    }

    /// Whether the person dismissed the privacy banner.
    /// - Returns: `true` once dismissed.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func privacyBannerDismissed() throws(StoreError) -> Bool {
        if let cached = cache.withLock({ $0.bannerDismissed }) { return cached }
        let dismissed = try read("read consent") { db in
            (try Int.fetchOne(db, sql: "SELECT privacy_banner_dismissed FROM consent WHERE id = 1") ?? 0) != 0
        }
        cache.withLock { $0.bannerDismissed = dismissed }
        return dismissed
    }

    /// Records that the person dismissed the privacy banner.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func dismissPrivacyBanner() throws(StoreError) {
        defer { cache.withLock { $0.bannerDismissed = nil } }
        try write("record the banner") { db in
            try db.execute(sql: "INSERT INTO consent (id, privacy_banner_dismissed) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET privacy_banner_dismissed = 1")
        }
    }

    // MARK: Notifications

    /// The person's notification settings (by default: on, smart, no app chosen to open them).
    /// - Returns: the settings.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notificationSettings() throws(StoreError) -> NotificationSettings {
        if let cached = cache.withLock({ $0.notifications }) { return cached }
        let settings = try read("read notification settings") { db -> NotificationSettings in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM notification_settings WHERE id = 1") else {
                return NotificationSettings(enabled: true, mode: .smart)
            }
            let slots = (row["slots"] as String).split(separator: ",").compactMap { pair -> ReminderSlot? in
                let parts = pair.split(separator: ":").compactMap { UInt32($0) }
                return parts.count == 2 ? ReminderSlot(weekday: parts[0], minuteOfDay: parts[1]) : nil
            }
            return NotificationSettings(enabled: row["enabled"], mode: NotificationMode(rawValue: row["mode"]), slots: slots,
                                        openWithBundleId: row["open_with"])
        }
        cache.withLock { $0.notifications = settings }
        return settings
    }

    /// Replaces the notification settings.
    /// - Parameter settings: the new settings.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func setNotificationSettings(_ settings: NotificationSettings) throws(StoreError) {
        defer { cache.withLock { $0.notifications = nil } }
        try write("change notification settings") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO notification_settings (id, enabled, mode, slots, open_with) VALUES (1, ?, ?, ?, ?)",
                           arguments: [settings.enabled, Int(settings.mode.rawValue),
                                       settings.slots.map { "\($0.weekday):\($0.minuteOfDay)" }.joined(separator: ","),
                                       settings.openWithBundleId])
        }
    }

    /// When the person usually adds entries: the release times of the history, in ms since 1970.
    /// - Parameter limit: the most recent releases to consider.
    /// - Returns: release times, newest first.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func releaseTimes(limit: Int = 200) throws(StoreError) -> [Int64] {
        try read("read the history") { db in try Int64.fetchAll(db, sql: "SELECT time_ms FROM release ORDER BY id DESC LIMIT ?", arguments: [limit]) }
    }

    /// How far the reminder scheduler has looked, in ms since 1970; `nil` before it first ran.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func reminderWatermark() throws(StoreError) -> Int64? {
        try read("read the reminder watermark") { db in
            try Int64.fetchOne(db, sql: "SELECT checked_until_ms FROM reminder_state WHERE id = 1")
        }
    }

    /// Moves the scheduler's watermark and, in the same transaction, records the reminder that fell
    /// due before it (a record with an id already there is kept as it was: a slot fires once).
    /// - Parameters:
    ///   - watermark: every slot up to this time (ms since 1970) has been handled.
    ///   - reminder: the reminder that fired, if one did.
    /// - Returns: `true` when `reminder` is new (it was not recorded before).
    /// - Throws: ``StoreError`` `.writeFailed`; then neither changed.
    @discardableResult
    public func advanceReminders(to watermark: Int64, firing reminder: NotificationRecord? = nil) throws(StoreError) -> Bool {
        try write("record a reminder") { db in
            var inserted = false
            if let reminder {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO notification (id, suggestion_id, title, body, fired_ms, opened, url)
                    VALUES (?, ?, ?, ?, ?, 0, ?)
                    """, arguments: [reminder.id, reminder.suggestionId, reminder.title, reminder.body,
                                     reminder.firedAt?.unixMs ?? 0, reminder.url])
                inserted = db.changesCount > 0
            }
            try db.execute(sql: "INSERT OR REPLACE INTO reminder_state (id, checked_until_ms) VALUES (1, ?)", arguments: [watermark])
            return inserted
        }
    }

    /// The reminders that fired, newest first.
    /// - Parameter limit: the most to return; 0 for all.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notifications(limit: Int = 0) throws(StoreError) -> [NotificationRecord] {
        try read("read the reminders") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM notification ORDER BY fired_ms DESC, id DESC LIMIT ?",
                             arguments: [limit > 0 ? limit : -1]).map(Self.notificationRecord)
        }
    }

    /// One reminder by id, or `nil`.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notification(id: String) throws(StoreError) -> NotificationRecord? {
        try read("read a reminder") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]).map(Self.notificationRecord)
        }
    }

    /// Marks a reminder opened, with the URL it opened.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markNotificationOpened(id: String, url: String) throws(StoreError) {
        try write("mark a reminder opened") { db in
            try db.execute(sql: "UPDATE notification SET opened = 1, url = ? WHERE id = ?", arguments: [url, id])
        }
    }

    /// The suggestions the person already wrote about or was already reminded of.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionsReleasedOrReminded() throws(StoreError) -> Set<String> {
        try read("read released suggestions") { db in
            Set(try String.fetchAll(db, sql: "SELECT suggestion_id FROM release UNION SELECT suggestion_id FROM notification"))
        }
    }

    private static func notificationRecord(_ row: Row) -> NotificationRecord {
        NotificationRecord(id: row["id"], suggestionId: row["suggestion_id"], title: row["title"], body: row["body"],
                           firedAt: Timestamp(unixMs: row["fired_ms"]), opened: row["opened"], url: row["url"])
    }

    // MARK: History

    /// Records one release.
    /// - Parameters:
    ///   - timeMs: when, ms since 1970.
    ///   - bundleID: the receiving app.
    ///   - appName: its display name.
    ///   - suggestionID: the suggestion the items came from.
    ///   - title: the title the app received.
    ///   - items: what was released.
    /// - Returns: the history entry's number.
    /// - Throws: ``StoreError`` `.writeFailed`.
    @discardableResult
    public func recordRelease(timeMs: Int64, bundleID: String, appName: String, suggestionID: String, title: String,
                              items: [ReleasedItem]) throws(StoreError) -> Int64 {
        try write("record a release") { db in
            try db.execute(sql: "INSERT INTO release (time_ms, bundle_id, app_name, suggestion_id, title) VALUES (?, ?, ?, ?, ?)",
                           arguments: [timeMs, bundleID, appName, suggestionID, title])
            let id = db.lastInsertedRowID
            for (position, item) in items.enumerated() {
                try db.execute(sql: "INSERT INTO release_item (release_id, position, item_id, kind, summary) VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, position, item.itemId, item.kind, item.summary])
            }
            return id
        }
    }

    /// The release history, newest first.
    /// - Parameters:
    ///   - limit: the most entries to return; 0 for all.
    ///   - bundleID: only this app's releases; empty for every app.
    /// - Returns: the entries.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func history(limit: Int = 0, bundleID: String = "") throws(StoreError) -> [Release] {
        try read("read the history") { db in
            var sql = "SELECT * FROM release"
            var arguments: StatementArguments = []
            if !bundleID.isEmpty {
                sql += " WHERE bundle_id = ?"
                arguments += [bundleID]
            }
            sql += " ORDER BY id DESC"
            if limit > 0 {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let id: Int64 = row["id"]
                let items = try Row.fetchAll(db, sql: "SELECT * FROM release_item WHERE release_id = ? ORDER BY position", arguments: [id])
                    .map { ReleasedItem(itemId: $0["item_id"], kind: $0["kind"], summary: $0["summary"]) }
                return Release(id: id, timeMs: row["time_ms"], bundleID: row["bundle_id"], appName: row["app_name"],
                               suggestionID: row["suggestion_id"], title: row["title"], items: items)
            }
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
