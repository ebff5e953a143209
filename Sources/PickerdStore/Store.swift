public import Foundation
import GRDB
public import PickerdWire

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

    /// Opens the store in `dataDirectory`, creating it (mode 0700) and migrating the schema.
    /// - Parameter dataDirectory: the data directory.
    /// - Throws: ``StoreError`` `.unreadable` when the directory cannot be made or entered, `.corrupt`
    ///   when the database file is not a sound SQLite database.
    public init(dataDirectory: String) throws(StoreError) {
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
        let path = databasePath
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.read { db in
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer"
                guard check == "ok" else {
                    throw StoreError(.corrupt, "the store \(path) fails SQLite's integrity check (\(check)); move it aside to start afresh")
                }
            }
            try Self.migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw StoreError(.corrupt, "the store \(path) is not a readable SQLite database (\(error.message ?? "\(error.resultCode)")); move it aside to start afresh")
        } catch {
            throw StoreError(.unreadable, "cannot open the store \(path): \(Self.reason(error))")
        }
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

    /// Every item in the library, oldest first.
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
        let wanted = Set(ids)
        let all = try read("read items") { db in try ItemCodec.loadAll(db, only: wanted) }
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        return ids.compactMap { byID[$0] }
    }

    /// How many items of each kind the library holds.
    /// - Returns: counts by kind (kinds with none are absent).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func itemCounts() throws(StoreError) -> [AssetKind: Int] {
        try read("count items") { db in
            var counts: [AssetKind: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) AS n FROM item GROUP BY kind") {
                if let kind = AssetKind(rawValue: row["kind"]) { counts[kind] = row["n"] }
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
    /// - Throws: ``StoreError`` `.writeFailed` (a full disk, …).
    public func writeMedia(_ bytes: [UInt8], to relativePath: String) throws(StoreError) {
        let path = mediaDirectory + "/" + relativePath
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw StoreError(.writeFailed, "could not write the media file \(path): \(Self.reason(error))")
        }
    }

    /// The absolute path of a stored media file. For pickerd's own use: never sent to a client.
    /// - Parameter media: a stored file.
    /// - Returns: its path.
    public func path(of media: StoredMedia) -> String { mediaDirectory + "/" + media.relativePath }

    // MARK: Suggestions

    /// Replaces every stored suggestion with `suggestions`, in one transaction.
    /// - Parameter suggestions: the new suggestions (each at most 13 items).
    /// - Throws: ``StoreError`` `.invalid` for a suggestion over 13 items, `.writeFailed`.
    public func replaceSuggestions(_ suggestions: [StoredSuggestion]) throws(StoreError) {
        if let big = suggestions.first(where: { $0.itemIDs.count > 13 }) {
            throw StoreError(.invalid, "suggestion \"\(big.title)\" has \(big.itemIDs.count) items; the limit is 13")
        }
        try write("store \(suggestions.count) suggestions") { db in
            try db.execute(sql: "DELETE FROM suggestion")
            for s in suggestions {
                try db.execute(sql: "INSERT INTO suggestion (id, title, kind, start_ms, end_ms, score) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [s.id.uuidString, s.title, Int(s.kind.rawValue), s.startMs, s.endMs, s.score])
                for (position, item) in s.itemIDs.enumerated() {
                    try db.execute(sql: "INSERT INTO suggestion_item (suggestion_id, position, item_id) VALUES (?, ?, ?)",
                                   arguments: [s.id.uuidString, position, item.uuidString])
                }
            }
        }
    }

    /// Every stored suggestion, in no particular order.
    /// - Returns: the suggestions.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestions() throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            var items: [String: [UUID]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT suggestion_id, item_id FROM suggestion_item ORDER BY suggestion_id, position") {
                let id: String = row["suggestion_id"]
                if let item = UUID(uuidString: row["item_id"]) { items[id, default: []].append(item) }
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM suggestion").compactMap { row in
                let id: String = row["id"]
                guard let uuid = UUID(uuidString: id) else { return nil }
                return StoredSuggestion(id: uuid, title: row["title"], kind: SuggestionKind(rawValue: row["kind"]),
                                        startMs: row["start_ms"], endMs: row["end_ms"], score: row["score"],
                                        itemIDs: items[id] ?? [])
            }
        }
    }

    /// How many suggestions are stored (`pickerctl status`), counted by SQLite without reading them.
    /// - Returns: the count.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionCount() throws(StoreError) -> Int {
        try read("count suggestions") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM suggestion") ?? 0 }
    }

    // MARK: Settings and consent

    /// Every category's setting (a category never set is enabled).
    /// - Returns: one setting per category, in the schema's order.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func categorySettings() throws(StoreError) -> [CategorySetting] {
        let stored = try read("read settings") { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT category, enabled FROM category_setting")
                .map { (Int32($0["category"] as Int), ($0["enabled"] as Int) != 0) })
        }
        return Category.allKnown.filter { $0 != .unspecified }.map {
            CategorySetting(category: $0, enabled: stored[$0.rawValue] ?? true)
        }
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
        try read("read consent") { db in try Int64.fetchOne(db, sql: "SELECT given_ms FROM consent WHERE id = 1") }
    }

    /// Records consent (once per device: a second call keeps the first date).
    /// - Parameter timeMs: when, ms since 1970.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func recordConsent(at timeMs: Int64) throws(StoreError) {
        try write("record consent") { db in
            try db.execute(sql: "INSERT INTO consent (id, given_ms) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET given_ms = COALESCE(given_ms, excluded.given_ms)",
                           arguments: [timeMs])
        }
    }

    /// Forgets consent: the next presentation asks again.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func resetConsent() throws(StoreError) {
        try write("reset consent") { db in try db.execute(sql: "UPDATE consent SET given_ms = NULL WHERE id = 1") }
    }

    /// Whether the person dismissed the privacy banner.
    /// - Returns: `true` once dismissed.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func privacyBannerDismissed() throws(StoreError) -> Bool {
        try read("read consent") { db in
            (try Int.fetchOne(db, sql: "SELECT privacy_banner_dismissed FROM consent WHERE id = 1") ?? 0) != 0
        }
    }

    /// Records that the person dismissed the privacy banner.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func dismissPrivacyBanner() throws(StoreError) {
        try write("record the banner") { db in
            try db.execute(sql: "INSERT INTO consent (id, privacy_banner_dismissed) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET privacy_banner_dismissed = 1")
        }
    }

    // MARK: Notifications

    /// The person's notification settings (by default: on, smart, no app chosen to open them).
    /// - Returns: the settings.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notificationSettings() throws(StoreError) -> NotificationSettings {
        try read("read notification settings") { db in
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
    }

    /// Replaces the notification settings.
    /// - Parameter settings: the new settings.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func setNotificationSettings(_ settings: NotificationSettings) throws(StoreError) {
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
