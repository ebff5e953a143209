public import Foundation
import GRDB
public import PickerdWire
import Synchronization

extension Store {
    // MARK: Items

    /// Adds items (replacing any with the same id), all in one transaction.
    /// - Parameter items: the items.
    /// - Throws: ``StoreError`` `.writeFailed`; then none of them was kept.
    public func insert(_ items: [LibraryItem]) throws(StoreError) {
        try write("add \(items.count) items") { db in
            try ItemCodec.insert(items, db) { _ in false }
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
            for id in gone { try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id.text]) }
            for item in changed { try ItemCodec.insert(item, db) }
        }
        return true
    }

    /// Every item in the library, oldest first, those the engine derived among them. Reads the whole
    /// library: for tools and tests, never on pickerd's presentation path (which reads by id and by
    /// time range).
    /// - Returns: the items.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func items() throws(StoreError) -> [LibraryItem] {
        try read("read the library") { db in try ItemCodec.loadAll(db) }
    }

    /// The person's items, oldest first: every item but those the engine derived
    /// (``LibraryItem/isDerived``). What a person would count as their library; for tools and tests.
    /// - Returns: the items.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func personsItems() throws(StoreError) -> [LibraryItem] {
        try items().filter { !$0.isDerived }
    }

    /// The SQL condition that an `item` row is one of the person's, not one the engine derived
    /// (``LibraryItem/derivedSources``): the one rule ``LibraryItem/isDerived`` says in Swift.
    /// - Parameter table: the `item` table's name or alias in the query.
    /// - Returns: the condition, e.g. `i.source NOT IN ('photos', 'prompts')`.
    static func personsItemsSQL(_ table: String = "item") -> String { "\(table).source NOT IN \(derivedSourcesSQL)" }

    /// ``LibraryItem/derivedSources`` as an SQL list: `('photos', 'prompts')`.
    static let derivedSourcesSQL = "(" + LibraryItem.derivedSources.sorted().map { "'\($0)'" }.joined(separator: ", ") + ")"

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

    /// When the items lying within a box around `coordinate` start and end: those whose own
    /// coordinate (a photo's, a workout's place) or whose place (a visit's, a group's) is less than
    /// `reachM` metres north, south, east or west of it. Read from the item and location tables
    /// without loading an item.
    /// - Parameters:
    ///   - coordinate: the centre.
    ///   - reachM: half the box's side, in metres.
    /// - Returns: each item's start and end, ms since 1970, in no order (an item in both tables twice).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func itemSpans(near coordinate: Coordinate, withinM reachM: Double) throws(StoreError) -> [ClosedRange<Int64>] {
        let dLat = reachM / 111_320, dLon = reachM / (111_320 * max(0.01, cos(coordinate.latitude * .pi / 180)))
        let box: StatementArguments = [coordinate.latitude - dLat, coordinate.latitude + dLat, coordinate.longitude - dLon, coordinate.longitude + dLon]
        return try read("read the items near a place") { db in
            try Row.fetchAll(db, sql: """
                SELECT start_ms, end_ms FROM item WHERE latitude BETWEEN ? AND ? AND longitude BETWEEN ? AND ?
                UNION ALL
                SELECT i.start_ms, i.end_ms FROM location l JOIN item i ON i.id = l.item_id
                WHERE l.latitude BETWEEN ? AND ? AND l.longitude BETWEEN ? AND ?
                """, arguments: box + box).map { row in
                let start: Int64 = row[0], end: Int64 = row[1]
                return start...max(start, end)
            }
        }
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
    /// those with items on ``HomeBase/photoDays`` days or more; items the engine derived (stays from
    /// photos) count as neither (the photos themselves count).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func homeBase() throws(StoreError) -> HomeBase {
        try read("find home") { db in
            if let row = try Row.fetchOne(db, sql: """
                SELECT l.place, l.city, l.latitude, l.longitude, SUM(i.end_ms - i.start_ms) AS dwell,
                       CASE WHEN l.latitude IS NULL THEN l.place
                            ELSE CAST(ROUND(l.latitude * 300) AS INTEGER) || ',' || CAST(ROUND(l.longitude * 300) AS INTEGER) END AS cell
                FROM location l JOIN item i ON i.id = l.item_id
                WHERE i.kind = 'location' AND COALESCE(l.is_work_location, 0) = 0 AND \(Self.personsItemsSQL("i"))
                GROUP BY cell ORDER BY dwell DESC, cell ASC LIMIT 1
                """) {
                let latitude: Double? = row["latitude"], longitude: Double? = row["longitude"]
                return HomeBase(place: row["place"], city: row["city"],
                                coordinate: latitude.flatMap { la in longitude.map { Coordinate(latitude: la, longitude: $0) } })
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT latitude, longitude, COUNT(*) AS n, COUNT(DISTINCT start_ms / 86400000) AS days FROM item
                WHERE latitude IS NOT NULL AND \(Self.personsItemsSQL())
                GROUP BY ROUND(latitude * 100), ROUND(longitude * 100) HAVING days >= \(HomeBase.photoDays) ORDER BY n DESC LIMIT 1
                """) {
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

    /// How many of the person's items of each kind the library holds (kept by triggers: a few rows
    /// are read), the items the engine derived (``LibraryItem/derivedSources``: stays from photos,
    /// the project's prompts) left out. What `pickerctl status` and `library stats` say, what
    /// `doctor` judges and what decides that a library is empty.
    /// - Returns: counts by kind (kinds with none are absent).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func itemCounts() throws(StoreError) -> [AssetKind: Int] {
        try read("count items") { db in
            var counts: [AssetKind: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, n FROM item_count WHERE n > 0") {
                if let kind = AssetKind(rawValue: row["kind"]) { counts[kind] = row["n"] }
            }
            // The derived items are few (a stay a day, two prompts a week), counted through item_by_source.
            for row in try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) AS n FROM item WHERE source IN \(Self.derivedSourcesSQL) GROUP BY kind") {
                guard let kind = AssetKind(rawValue: row["kind"]), let all = counts[kind] else { continue }
                let n: Int = row["n"]
                counts[kind] = all - n > 0 ? all - n : nil
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
}
