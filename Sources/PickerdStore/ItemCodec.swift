import Foundation
import GRDB
import PickerdWire

/// Writes and reads library items: the `item` row, the `media` rows, and one typed table per asset
/// kind, every field in its own column (lists of labels and gradient stops as short text).
enum ItemCodec {
    // MARK: Writing

    /// Writes `item`, replacing the item with its id.
    /// - Parameter isNew: the caller knows no item has its id (it looked): the look-up that removes
    ///   the old one is not made (an import of a million listens makes a million of them).
    static func insert(_ item: LibraryItem, _ db: Database, isNew: Bool = false) throws {
        let id = item.id.text
        if !isNew { try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id]) }
        var row = RawBinding(try db.cachedStatement(sql: "INSERT INTO item (\(itemColumns)) VALUES (\(marks(14)))"))
        bindItem(item, &row)
        try row.run(db)
        for (slot, media) in item.media.enumerated() {
            try db.cachedStatement(sql: """
                INSERT INTO media (item_id, slot, relative_path, content_type, filename, byte_count, pixel_width, pixel_height, mtime_ns)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [id, slot, media.relativePath, media.contentType, media.filename, Int64(media.byteCount),
                                 Int(media.pixelWidth), Int(media.pixelHeight), media.modifiedNs])
        }
        switch item.asset {
        case .photo(let p):
            try db.cachedStatement(sql: "INSERT INTO photo VALUES (?, ?, ?)").execute(arguments: [id, slot(p.photo), p.date?.unixMs])
        case .livePhoto(let p):
            try db.cachedStatement(sql: "INSERT INTO live_photo VALUES (?, ?, ?, ?)").execute(
                           arguments: [id, slot(p.image), slot(p.video), p.date?.unixMs])
        case .video(let v):
            try db.cachedStatement(sql: "INSERT INTO video VALUES (?, ?, ?)").execute(arguments: [id, slot(v.url), v.date?.unixMs])
        case .workout(let w):
            try insertWorkout(w, id: id, position: 0, db)
        case .workoutGroup(let g):
            try db.cachedStatement(sql: "INSERT INTO workout_group VALUES (?, ?, ?, ?, ?, ?, ?)").execute(
                           arguments: [id, slot(g.icon), g.durationS, g.activeEnergyBurned?.value, g.activeEnergyBurned?.unit,
                                       g.averageHeartRate?.value, g.averageHeartRate?.unit])
            for (position, w) in g.workouts.enumerated() { try insertWorkout(w, id: id, position: position, db) }
        case .contact(let c):
            try db.cachedStatement(sql: "INSERT INTO contact VALUES (?, ?, ?)").execute(arguments: [id, c.name, slot(c.photo)])
        case .location(let l):
            try insertLocation(l, id: id, position: 0, db)
        case .locationGroup(let g):
            try db.cachedStatement(sql: "INSERT INTO location_group VALUES (?)").execute(arguments: [id])
            for (position, l) in g.locations.enumerated() { try insertLocation(l, id: id, position: position, db) }
        case .song, .podcast:
            let table = listenTable(item.asset)!
            var row = RawBinding(try db.cachedStatement(sql: "INSERT INTO \(table.name) VALUES (\(marks(table.width)))"))
            bindListen(item, &row)
            try row.run(db)
        case .motionActivity(let m):
            try db.cachedStatement(sql: "INSERT INTO motion_activity VALUES (?, ?, ?, ?, ?, ?)").execute(
                           arguments: [id, slot(m.icon), m.steps, m.date?.startUnixMs, m.date?.endUnixMs, Int(m.movementType.rawValue)])
        case .genericMedia(let g):
            try db.cachedStatement(sql: """
                INSERT INTO generic_media (item_id, title, artist, album, date_ms, app_icon_slot, artwork_slot) VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [id, g.title, g.artist, g.album, g.date?.unixMs, slot(g.appIcon), slot(g.artwork)])
        case .reflection(let r):
            try db.cachedStatement(sql: "INSERT INTO reflection VALUES (?, ?, ?)").execute(arguments: [id, r.prompt, r.color.map(colorText)])
        case .stateOfMind(let s):
            let state = s.state ?? StateOfMindSample()
            try db.cachedStatement(sql: "INSERT INTO state_of_mind VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(
                           arguments: [id, s.state != nil, Int(state.kind.rawValue), state.valence,
                                       Int(state.valenceClassification.rawValue),
                                       state.labels.map { String($0.rawValue) }.joined(separator: ","),
                                       state.associations.map { String($0.rawValue) }.joined(separator: ","),
                                       state.date?.unixMs, slot(s.icon),
                                       s.lightBackground.map(gradientText), s.darkBackground.map(gradientText)])
        }
    }

    /// Inserts `items` (each new, or replacing the item with its id when `isNew` says not), as the
    /// one-item insert does each.
    ///
    /// Many at once (``bulkInsert`` or more: an import's listens, a first scan's photos) are written
    /// with the two row triggers that count items by kind and move the library's version (v5's
    /// `item_counted`, `item_inserted`) set aside for the statement run, then made again from their
    /// own SQL, the count and the version moved once by what was inserted: each insert is then one
    /// statement without a trigger program or a statement journal (about a quarter of a
    /// listen's insert). It all happens in the caller's transaction: another connection sees the
    /// triggers there before and after, never without them, and a failure puts them back with the rest.
    /// - Parameters:
    ///   - items: the items.
    ///   - isNew: whether no item has an item's id yet (the caller looked).
    static func insert(_ items: [LibraryItem], _ db: Database, isNew: (LibraryItem) -> Bool) throws {
        guard items.count >= bulkInsert else {
            for item in items { try insert(item, db, isNew: isNew(item)) }
            return
        }
        let triggers = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'item' AND name IN ('item_counted', 'item_inserted')
            ORDER BY name
            """)
        try db.execute(sql: "DROP TRIGGER IF EXISTS item_counted; DROP TRIGGER IF EXISTS item_inserted")
        // Each kind has its count's row before: an item of the bulk replaced by a later one is
        // uncounted by the deletion's trigger, which only lowers a row that is there.
        for kind in Set(items.map(\.kind.rawValue)) {
            try db.execute(sql: "INSERT OR IGNORE INTO item_count (kind, n) VALUES (?, 0)", arguments: [kind])
        }
        var kinds: [String: Int] = [:]
        // New songs and podcasts without media (an import's listens) go many rows to a statement,
        // bound straight through SQLite (``RawBinding``), each table's in order; anything else one
        // by one, after the rows waiting are written.
        var waiting: [LibraryItem] = []
        func flush() throws {
            guard !waiting.isEmpty else { return }
            // Full batches many rows to a statement, the rest one by one (statements of each size
            // would be compiled and cached for one use each).
            func write(_ sql: (_ rows: Int) -> String, _ items: [LibraryItem], _ bind: (LibraryItem, inout RawBinding) -> Void) throws {
                let many = try db.cachedStatement(sql: sql(rowsAtOnce)), one = try db.cachedStatement(sql: sql(1))
                var start = 0
                while start < items.count {
                    let rows = items.count - start >= rowsAtOnce ? rowsAtOnce : 1
                    var binding = RawBinding(rows == 1 ? one : many)
                    for item in items[start..<start + rows] { bind(item, &binding) }
                    try binding.run(db)
                    start += rows
                }
            }
            func values(_ width: Int, _ rows: Int) -> String { Array(repeating: "(\(marks(width)))", count: rows).joined(separator: ",") }
            try write({ "INSERT INTO item (\(itemColumns)) VALUES \(values(14, $0))" }, waiting, bindItem)
            for table in [songTable, podcastTable] {
                let rows = waiting.filter { listenTable($0.asset)?.name == table.name }
                try write({ "INSERT INTO \(table.name) VALUES \(values(table.width, $0))" }, rows, bindListen)
            }
            waiting.removeAll(keepingCapacity: true)
        }
        for item in items {
            let new = isNew(item)
            if new, item.media.isEmpty, item.kind == .song || item.kind == .podcast {
                waiting.append(item)
                if waiting.count == rowsAtOnce * 16 { try flush() }
            } else {
                try flush()
                try insert(item, db, isNew: new)
            }
            kinds[item.kind.rawValue, default: 0] += 1
        }
        try flush()
        for (kind, n) in kinds {
            try db.execute(sql: "INSERT INTO item_count (kind, n) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET n = n + excluded.n",
                           arguments: [kind, n])
        }
        try db.execute(sql: "UPDATE library_version SET n = n + ? WHERE id = 1", arguments: [items.count])
        for sql in triggers { try db.execute(sql: sql) }
    }

    /// How many items make a bulk insert: setting the triggers aside changes the schema, which every
    /// connection then reads again.
    static let bulkInsert = 1_000

    /// How many listens a bulk insert writes a statement (14 values each for the item: 896 of
    /// SQLite's 32,766).
    static let rowsAtOnce = 64

    /// The `item` table's columns, in ``bindItem(_:_:)``'s order.
    private static let itemColumns = """
        id, kind, category, start_ms, end_ms, excluded, source, external_id, utc_offset_s, latitude, longitude, not_memory, place_name, place_city
        """

    /// `n` placeholders.
    private static func marks(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ", ") }

    /// Binds an item's `item` row, in ``itemColumns``' order.
    private static func bindItem(_ item: LibraryItem, _ row: inout RawBinding) {
        row.add(item.id)
        row.add(item.kind.rawValue)
        row.add(Int64(item.kind.category.rawValue))
        row.add(item.startMs)
        row.add(item.endMs)
        row.add(item.excludedFromSuggestions)
        row.add(item.source)
        row.add(item.externalID)
        row.add(item.utcOffsetSeconds.map { Int64($0) })
        row.add(item.coordinate?.latitude)
        row.add(item.coordinate?.longitude)
        row.add(item.notAMemory?.rawValue)
        row.add(item.filePlaceName)
        row.add(item.filePlaceCity)
    }

    /// A listen's table: its name and how many columns a row has.
    private typealias ListenTable = (name: String, width: Int)
    private static let songTable: ListenTable = ("song", 6), podcastTable: ListenTable = ("podcast", 5)

    /// The table a song's or podcast's row goes in; `nil` for other assets.
    private static func listenTable(_ asset: Item.Asset) -> ListenTable? {
        switch asset {
        case .song: songTable
        case .podcast: podcastTable
        default: nil
        }
    }

    /// Binds a song's or podcast's row (``listenTable(_:)``'s columns); nothing for other assets.
    private static func bindListen(_ item: LibraryItem, _ row: inout RawBinding) {
        switch item.asset {
        case .song(let s):
            row.add(item.id)
            row.add(s.song)
            row.add(s.artist)
            row.add(s.album)
            row.add(slot(s.artwork))
            row.add(s.date?.unixMs)
        case .podcast(let p):
            row.add(item.id)
            row.add(p.episode)
            row.add(p.show)
            row.add(slot(p.artwork))
            row.add(p.date?.unixMs)
        default: break
        }
    }

    private static func insertWorkout(_ w: Workout, id: String, position: Int, _ db: Database) throws {
        let d = w.details
        try db.cachedStatement(sql: "INSERT INTO workout VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(
                       arguments: [id, position, d != nil, Int64(d?.activityType ?? 0),
                                   d?.activeEnergyBurned?.value, d?.activeEnergyBurned?.unit,
                                   d?.distance?.value, d?.distance?.unit,
                                   d?.averageHeartRate?.value, d?.averageHeartRate?.unit,
                                   d?.date?.startUnixMs, d?.date?.endUnixMs, d?.localizedName ?? "", slot(w.icon)])
        for (seq, point) in w.route.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO route_point VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(
                           arguments: [id, position, seq, point.latitude, point.longitude, point.altitudeM,
                                       point.horizontalAccuracyM, point.timestamp?.unixMs])
        }
    }

    private static func insertLocation(_ l: Location, id: String, position: Int, _ db: Database) throws {
        let g = l.location
        try db.cachedStatement(sql: "INSERT INTO location VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(
                       arguments: [id, position, l.place, l.city, g?.latitude, g?.longitude, g?.altitudeM,
                                   g?.horizontalAccuracyM, g?.timestamp?.unixMs, l.date?.unixMs, l.isWorkLocation])
    }

    private static func slot(_ media: Media?) -> Int? { media.map { Int($0.fdIndex) } }

    static func colorText(_ c: Color) -> String { "\(c.red),\(c.green),\(c.blue),\(c.alpha)" }

    static func color(_ text: String?) -> Color? {
        guard let parts = text?.split(separator: ",").compactMap({ Double($0) }), parts.count == 4 else { return nil }
        return Color(red: parts[0], green: parts[1], blue: parts[2], alpha: parts[3])
    }

    static func gradientText(_ g: Gradient) -> String {
        g.stops.map { "\($0.color.map(colorText) ?? "")@\($0.location)" }.joined(separator: ";")
    }

    static func gradient(_ text: String?) -> Gradient? {
        guard let text else { return nil }
        let stops = text.split(separator: ";", omittingEmptySubsequences: true).map { stop -> GradientStop in
            let parts = stop.split(separator: "@", omittingEmptySubsequences: false)
            return GradientStop(color: color(parts.first.map(String.init)), location: Double(parts.last ?? "") ?? 0)
        }
        return Gradient(stops: stops)
    }

    // MARK: Reading

    /// Loads items (all, or only `only`), oldest first.
    static func loadAll(_ db: Database) throws -> [LibraryItem] {
        try load(db, where: "1", arguments: [])
    }

    /// Loads the items with these ids, oldest first, through the primary keys (never a whole table).
    static func load(_ db: Database, ids: [UUID]) throws -> [LibraryItem] {
        // Only the ids the library has are read: an import asks for each listen it brings, mostly new.
        var present: [String] = []
        try spans(of: Set(ids), db) { id, _, _ in present.append(id.text) }
        let items = try inChunks(present.sorted()) { marks, arguments in
            try load(db, where: "item.id IN (\(marks))", arguments: arguments)
        }
        return items.sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }
    }

    /// Calls `found` with each of `ids` the library has, and when it starts and ends. Each id is
    /// looked up alone, bound straight through SQLite (``RawBinding``): an import's million listens
    /// are as many look-ups, and GRDB's arguments in lists cost more than the look-ups themselves.
    static func spans(of ids: some Sequence<UUID>, _ db: Database, _ found: (UUID, _ startMs: Int64, _ endMs: Int64) throws -> Void) throws {
        var lookup = RawBinding(try db.cachedStatement(sql: "SELECT start_ms, end_ms FROM item WHERE id = ?"))
        for id in ids {
            lookup.add(id)
            try lookup.forEachRow(db) { row in try found(id, row.int64(0), row.int64(1)) }
            lookup.rewind()
        }
    }

    /// Runs `query` once per 500 keys (SQLite's limit on parameters is far above, a long IN list
    /// is not), with the placeholders and arguments of each chunk, and joins the results.
    static func inChunks<T>(_ keys: [String], _ query: (_ placeholders: String, _ arguments: StatementArguments) throws -> [T]) rethrows -> [T] {
        var results: [T] = []
        var start = 0
        while start < keys.count {
            let chunk = Array(keys[start..<min(start + 500, keys.count)])
            start += chunk.count
            results += try query(Array(repeating: "?", count: chunk.count).joined(separator: ","), StatementArguments(chunk))
        }
        return results
    }

    /// Loads the items that start in [fromMs, toMs], oldest first, through the start index.
    static func load(_ db: Database, startingFrom fromMs: Int64, to toMs: Int64) throws -> [LibraryItem] {
        try load(db, where: "item.start_ms BETWEEN ? AND ?", arguments: [fromMs, toMs])
    }

    /// The columns each table is read with, in the order the rows are decoded by position: reading
    /// a column by name costs GRDB a case-insensitive search of the row's names (both lowercased)
    /// per lookup, which was 14 % of pickerd's time building the moments of a large import. The
    /// typed tables start with `item_id`. `ItemCodecTests` checks that each list names every column
    /// its table has, so a new column cannot be written and never read.
    static let columns: [String: [String]] = [
        "item": ["id", "kind", "start_ms", "end_ms", "excluded", "source", "external_id", "utc_offset_s", "latitude", "longitude",
                 "not_memory", "place_name", "place_city", "category"],
        "media": ["item_id", "slot", "relative_path", "content_type", "filename", "byte_count", "pixel_width", "pixel_height", "mtime_ns"],
        "photo": ["item_id", "photo_slot", "date_ms"],
        "live_photo": ["item_id", "image_slot", "video_slot", "date_ms"],
        "video": ["item_id", "video_slot", "date_ms"],
        "workout": ["item_id", "position", "has_details", "activity_type", "energy_value", "energy_unit", "distance_value", "distance_unit",
                    "heart_rate_value", "heart_rate_unit", "start_ms", "end_ms", "localized_name", "icon_slot"],
        "route_point": ["item_id", "position", "seq", "latitude", "longitude", "altitude_m", "horizontal_accuracy_m", "timestamp_ms"],
        "workout_group": ["item_id", "icon_slot", "duration_s", "energy_value", "energy_unit", "heart_rate_value", "heart_rate_unit"],
        "contact": ["item_id", "name", "photo_slot"],
        "location": ["item_id", "position", "place", "city", "latitude", "longitude", "altitude_m", "horizontal_accuracy_m", "timestamp_ms",
                     "date_ms", "is_work_location"],
        "location_group": ["item_id"],
        "song": ["item_id", "song", "artist", "album", "artwork_slot", "date_ms"],
        "podcast": ["item_id", "episode", "show", "artwork_slot", "date_ms"],
        "motion_activity": ["item_id", "icon_slot", "steps", "start_ms", "end_ms", "movement_type"],
        "generic_media": ["item_id", "title", "artist", "album", "date_ms", "app_icon_slot", "artwork_slot"],
        "reflection": ["item_id", "prompt", "color"],
        "state_of_mind": ["item_id", "has_state", "kind", "valence", "valence_classification", "labels", "associations", "date_ms",
                          "icon_slot", "light_background", "dark_background"],
    ]

    /// `SELECT` of `table`'s ``columns`` in their order, each typed table's joined to its items,
    /// with the item's rowid first: the key rows are joined by in ``load(_:where:arguments:)`` (an
    /// integer hashes and compares for less than the id's text, which is not read again), in place
    /// of a typed table's `item_id`, and before the `item` table's own columns.
    private static func select(_ table: String) -> String {
        table == "item"
            ? "SELECT item.rowid, \(columns[table]!.map { "item.\($0)" }.joined(separator: ", ")) FROM item"
            : "SELECT item.rowid, \(columns[table]!.dropFirst().map { "\(table).\($0)" }.joined(separator: ", ")) FROM item JOIN \(table) ON \(table).item_id = item.id"
    }

    /// Loads the items `condition` (on the `item` table) selects, oldest first; each typed table is
    /// read only for those items. Rows are decoded by position, in ``columns``' order, as they are
    /// read: no row is kept (holding a window's rows, each a copy with its column names, before
    /// decoding them was half of an engine build's memory at 300,000 listens, and a third of its time).
    static func load(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [LibraryItem] {
        /// An `item` row, decoded.
        struct Head {
            var key: Int64, id: UUID, kind: AssetKind, startMs: Int64, endMs: Int64, excluded: Bool, source: String, externalID: String
            var utcOffset: Int?, latitude: Double?, longitude: Double?, notAMemory: String?, placeName: String?, placeCity: String?
        }
        var heads: [Head] = []
        var kinds = Set<AssetKind>()
        let itemRows = try Row.fetchCursor(db, sql: "\(select("item")) WHERE \(condition) ORDER BY item.start_ms, item.id", arguments: arguments)
        while let row = try itemRows.next() {
            guard let id = UUID.parsing(row[1]), let kind = AssetKind(rawValue: row[2]) else { continue }
            kinds.insert(kind)
            heads.append(Head(key: row[0], id: id, kind: kind, startMs: row[3], endMs: row[4], excluded: row[5], source: row[6], externalID: row[7],
                              utcOffset: row[8], latitude: row[9], longitude: row[10], notAMemory: row[11], placeName: row[12], placeCity: row[13]))
        }
        if heads.isEmpty { return [] }
        /// Calls `body` with each row of `table` (and its item's key) for the items selected, when
        /// any of them is of a `wanted` kind. The selection's items are joined to the table (each
        /// looked for by its id), not listed first (SQLite builds a sorted list of the ids before
        /// it looks them up: twice the time).
        func each(_ table: String, order: String = "", for wanted: [AssetKind], _ body: (Int64, Row) throws -> Void) throws {
            guard wanted.contains(where: kinds.contains) else { return }
            let rows = try Row.fetchCursor(db, sql: "\(select(table)) WHERE \(condition) \(order)", arguments: arguments)
            while let row = try rows.next() { try body(row[0], row) }
        }
        /// The first row of `table` for each item, decoded by `decode`.
        func first<T>(_ table: String, for wanted: [AssetKind], _ decode: (Int64, Row) -> T) throws -> [Int64: T] {
            var decoded: [Int64: T] = [:]
            try each(table, for: wanted) { key, row in
                if decoded[key] == nil { decoded[key] = decode(key, row) }
            }
            return decoded
        }
        var files: [Int64: [StoredMedia]] = [:]
        try each("media", order: "ORDER BY item_id, slot", for: AssetKind.allCases) { key, r in
            files[key, default: []].append(StoredMedia(relativePath: r[2], contentType: r[3], filename: r[4], byteCount: UInt64(r[5] as Int64),
                                                       pixelWidth: UInt32(r[6] as Int), pixelHeight: UInt32(r[7] as Int), modifiedNs: r[8]))
        }
        func ref(_ value: Int?, _ key: Int64) -> Media? {
            guard let value, value >= 0, let media = files[key], value < media.count else { return nil }
            return media[value].media(slot: value)
        }
        func timestamp(_ value: Int64?) -> Timestamp? { value.map { Timestamp(unixMs: $0) } }
        func interval(_ start: Int64?, _ end: Int64?) -> PickerdWire.DateInterval? {
            guard let start, let end else { return nil }
            return PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end)
        }
        /// A value at column `value` with its unit at the next.
        func quantity(_ r: Row, _ value: Int) -> Quantity? {
            guard let amount: Double = r[value] else { return nil }
            return Quantity(value: amount, unit: r[value + 1] ?? "")
        }
        var route: [Int64: [(position: Int, point: GeoLocation)]] = [:]
        try each("route_point", order: "ORDER BY item_id, position, seq", for: [.workout, .workoutGroup]) { key, r in
            route[key, default: []].append((r[1], GeoLocation(latitude: r[3], longitude: r[4], altitudeM: r[5], horizontalAccuracyM: r[6],
                                                               timestamp: timestamp(r[7]))))
        }
        var workouts: [Int64: [Workout]] = [:]
        try each("workout", order: "ORDER BY item_id, position", for: [.workout, .workoutGroup]) { key, r in
            let position: Int = r[1]
            let details: WorkoutDetails? = (r[2] as Bool) ? WorkoutDetails(
                activityType: UInt32(r[3] as Int64), activeEnergyBurned: quantity(r, 4), distance: quantity(r, 6),
                averageHeartRate: quantity(r, 8), date: interval(r[10], r[11]), localizedName: r[12]) : nil
            let points = (route[key] ?? []).filter { $0.position == position }.map(\.point)
            workouts[key, default: []].append(Workout(details: details, icon: ref(r[13], key), route: points))
        }
        var locations: [Int64: [Location]] = [:]
        try each("location", order: "ORDER BY item_id, position", for: [.location, .locationGroup]) { key, r in
            var geo: GeoLocation?
            if let latitude: Double = r[4], let longitude: Double = r[5] {
                geo = GeoLocation(latitude: latitude, longitude: longitude, altitudeM: r[6], horizontalAccuracyM: r[7], timestamp: timestamp(r[8]))
            }
            locations[key, default: []].append(Location(place: r[2], city: r[3], location: geo, date: timestamp(r[9]), isWorkLocation: r[10]))
        }
        let photos = try first("photo", for: [.photo]) { key, r in Item.Asset.photo(Photo(photo: ref(r[1], key), date: timestamp(r[2]))) }
        let livePhotos = try first("live_photo", for: [.livePhoto]) { key, r in
            Item.Asset.livePhoto(LivePhoto(image: ref(r[1], key), video: ref(r[2], key), date: timestamp(r[3])))
        }
        let videos = try first("video", for: [.video]) { key, r in Item.Asset.video(Video(url: ref(r[1], key), date: timestamp(r[2]))) }
        let workoutGroups = try first("workout_group", for: [.workoutGroup]) { key, r in
            Item.Asset.workoutGroup(WorkoutGroup(workouts: workouts[key] ?? [], icon: ref(r[1], key), durationS: r[2],
                                                 activeEnergyBurned: quantity(r, 3), averageHeartRate: quantity(r, 5)))
        }
        let contacts = try first("contact", for: [.contact]) { key, r in Item.Asset.contact(Contact(name: r[1], photo: ref(r[2], key))) }
        let songs = try first("song", for: [.song]) { key, r in
            Item.Asset.song(Song(song: r[1], artist: r[2], album: r[3], artwork: ref(r[4], key), date: timestamp(r[5])))
        }
        let podcasts = try first("podcast", for: [.podcast]) { key, r in
            Item.Asset.podcast(Podcast(episode: r[1], show: r[2], artwork: ref(r[3], key), date: timestamp(r[4])))
        }
        let motion = try first("motion_activity", for: [.motionActivity]) { key, r in
            Item.Asset.motionActivity(MotionActivity(icon: ref(r[1], key), steps: r[2], date: interval(r[3], r[4]),
                                                     movementType: MovementType(rawValue: r[5])))
        }
        let generic = try first("generic_media", for: [.genericMedia]) { key, r in
            Item.Asset.genericMedia(GenericMedia(title: r[1], artist: r[2], album: r[3], date: timestamp(r[4]), appIcon: ref(r[5], key),
                                                 artwork: ref(r[6], key)))
        }
        let reflections = try first("reflection", for: [.reflection]) { _, r in Item.Asset.reflection(Reflection(prompt: r[1], color: color(r[2]))) }
        let moods = try first("state_of_mind", for: [.stateOfMind]) { key, r in
            let labels = (r[5] as String).split(separator: ",").compactMap { Int32($0) }.map(StateOfMindLabel.init)
            let associations = (r[6] as String).split(separator: ",").compactMap { Int32($0) }.map(StateOfMindAssociation.init)
            let state: StateOfMindSample? = (r[1] as Bool) ? StateOfMindSample(
                kind: StateOfMindKind(rawValue: r[2]), valence: r[3], valenceClassification: ValenceClassification(rawValue: r[4]),
                labels: labels, associations: associations, date: timestamp(r[7])) : nil
            return Item.Asset.stateOfMind(StateOfMind(state: state, icon: ref(r[8], key), lightBackground: gradient(r[9]),
                                                      darkBackground: gradient(r[10])))
        }

        var items: [LibraryItem] = []
        items.reserveCapacity(heads.count)
        for head in heads {
            let key = head.key
            let asset: Item.Asset?
            switch head.kind {
            case .photo: asset = photos[key]
            case .livePhoto: asset = livePhotos[key]
            case .video: asset = videos[key]
            case .workout: asset = workouts[key]?.first.map { .workout($0) }
            case .workoutGroup: asset = workoutGroups[key]
            case .contact: asset = contacts[key]
            case .location: asset = locations[key]?.first.map { .location($0) }
            case .locationGroup: asset = .locationGroup(LocationGroup(locations: locations[key] ?? []))
            case .song: asset = songs[key]
            case .podcast: asset = podcasts[key]
            case .motionActivity: asset = motion[key]
            case .genericMedia: asset = generic[key]
            case .reflection: asset = reflections[key]
            case .stateOfMind: asset = moods[key]
            }
            guard let asset else { continue }
            var coordinate: Coordinate?
            if let latitude = head.latitude, let longitude = head.longitude { coordinate = Coordinate(latitude: latitude, longitude: longitude) }
            items.append(LibraryItem(id: head.id, asset: asset, media: files[key] ?? [], startMs: head.startMs, endMs: head.endMs,
                                     excludedFromSuggestions: head.excluded, source: head.source, externalID: head.externalID,
                                     utcOffsetSeconds: head.utcOffset.map(Int32.init), coordinate: coordinate,
                                     notAMemory: head.notAMemory.flatMap(NotAMemory.init), filePlaceName: head.placeName,
                                     filePlaceCity: head.placeCity))
        }
        return items
    }
}

extension Store {
    /// The store's tables with their columns, and the tables whose `item_id` refers to an item:
    /// what the tests hold ``ItemCodec/columns`` against.
    /// - Throws: ``StoreError`` `.unreadable`.
    func schemaColumns() throws(StoreError) -> (columns: [String: [String]], referringToItems: Set<String>) {
        try read("read the schema") { db in
            var columns: [String: [String]] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                columns[table] = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
            }
            let referring = try String.fetchAll(db, sql: """
                SELECT DISTINCT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f
                WHERE m.type = 'table' AND f."table" = 'item' AND f."from" = 'item_id'
                """)
            return (columns, Set(referring))
        }
    }
}
