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
        let id = item.id.uuidString
        if !isNew { try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id]) }
        try db.cachedStatement(sql: """
            INSERT INTO item (id, kind, category, start_ms, end_ms, excluded, source, external_id,
                              utc_offset_s, latitude, longitude, not_memory, place_name, place_city)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id, item.kind.rawValue, Int(item.kind.category.rawValue), item.startMs, item.endMs,
                             item.excludedFromSuggestions, item.source, item.externalID,
                             item.utcOffsetSeconds.map { Int($0) }, item.coordinate?.latitude, item.coordinate?.longitude,
                             item.notAMemory?.rawValue, item.filePlaceName, item.filePlaceCity])
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
        case .song(let s):
            try db.cachedStatement(sql: "INSERT INTO song VALUES (?, ?, ?, ?, ?, ?)").execute(
                           arguments: [id, s.song, s.artist, s.album, slot(s.artwork), s.date?.unixMs])
        case .podcast(let p):
            try db.cachedStatement(sql: "INSERT INTO podcast VALUES (?, ?, ?, ?, ?)").execute(
                           arguments: [id, p.episode, p.show, slot(p.artwork), p.date?.unixMs])
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
        let items = try inChunks(Array(Set(ids.map(\.uuidString))).sorted()) { marks, arguments in
            try load(db, where: "id IN (\(marks))", arguments: arguments)
        }
        return items.sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }
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
        try load(db, where: "start_ms BETWEEN ? AND ?", arguments: [fromMs, toMs])
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

    /// `SELECT` of `table`'s ``columns``, in their order.
    private static func select(_ table: String) -> String {
        "SELECT \(columns[table]!.joined(separator: ", ")) FROM \(table)"
    }

    /// Loads the items `condition` (on the `item` table) selects, oldest first; each typed table is
    /// read only for those items. Rows are decoded by position, in ``columns``' order.
    static func load(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [LibraryItem] {
        let itemRows = try Row.fetchAll(db, sql: "\(select("item")) WHERE \(condition) ORDER BY start_ms, id", arguments: arguments)
        if itemRows.isEmpty { return [] }
        let kinds = Set(itemRows.map { $0[1] as String })
        func rows(_ table: String, order: String = "", for wanted: [AssetKind]) throws -> [String: [Row]] {
            guard wanted.contains(where: { kinds.contains($0.rawValue) }) else { return [:] }
            let sql = "\(select(table)) WHERE item_id IN (SELECT id FROM item WHERE \(condition)) \(order)"
            return Dictionary(grouping: try Row.fetchAll(db, sql: sql, arguments: arguments), by: { $0[0] as String })
        }
        func rows(_ table: String, order: String = "") throws -> [String: [Row]] {
            try rows(table, order: order, for: AssetKind.allCases)
        }
        let media = try rows("media", order: "ORDER BY item_id, slot")
        let photos = try rows("photo", for: [.photo]), livePhotos = try rows("live_photo", for: [.livePhoto])
        let videos = try rows("video", for: [.video])
        let workouts = try rows("workout", order: "ORDER BY item_id, position", for: [.workout, .workoutGroup])
        let route = try rows("route_point", order: "ORDER BY item_id, position, seq", for: [.workout, .workoutGroup])
        let workoutGroups = try rows("workout_group", for: [.workoutGroup]), contacts = try rows("contact", for: [.contact])
        let locations = try rows("location", order: "ORDER BY item_id, position", for: [.location, .locationGroup])
        let songs = try rows("song", for: [.song]), podcasts = try rows("podcast", for: [.podcast])
        let motion = try rows("motion_activity", for: [.motionActivity])
        let generic = try rows("generic_media", for: [.genericMedia]), reflections = try rows("reflection", for: [.reflection])
        let moods = try rows("state_of_mind", for: [.stateOfMind])

        var items: [LibraryItem] = []
        items.reserveCapacity(itemRows.count)
        for row in itemRows {
            let idText: String = row[0]
            guard let id = UUID.parsing(idText), let kind = AssetKind(rawValue: row[1]) else { continue }
            let files = (media[idText] ?? []).map {
                StoredMedia(relativePath: $0[2], contentType: $0[3], filename: $0[4], byteCount: UInt64($0[5] as Int64),
                            pixelWidth: UInt32($0[6] as Int), pixelHeight: UInt32($0[7] as Int), modifiedNs: $0[8])
            }
            func ref(_ value: Int?) -> Media? {
                guard let value, value >= 0, value < files.count else { return nil }
                return files[value].media(slot: value)
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
            func workout(_ r: Row) -> Workout {
                let position: Int = r[1]
                let details: WorkoutDetails? = (r[2] as Bool) ? WorkoutDetails(
                    activityType: UInt32(r[3] as Int64), activeEnergyBurned: quantity(r, 4), distance: quantity(r, 6),
                    averageHeartRate: quantity(r, 8), date: interval(r[10], r[11]), localizedName: r[12]) : nil
                let points = (route[idText] ?? []).filter { ($0[1] as Int) == position }.map {
                    GeoLocation(latitude: $0[3], longitude: $0[4], altitudeM: $0[5], horizontalAccuracyM: $0[6], timestamp: timestamp($0[7]))
                }
                return Workout(details: details, icon: ref(r[13]), route: points)
            }
            func location(_ r: Row) -> Location {
                var geo: GeoLocation?
                if let latitude: Double = r[4], let longitude: Double = r[5] {
                    geo = GeoLocation(latitude: latitude, longitude: longitude, altitudeM: r[6], horizontalAccuracyM: r[7],
                                      timestamp: timestamp(r[8]))
                }
                return Location(place: r[2], city: r[3], location: geo, date: timestamp(r[9]), isWorkLocation: r[10])
            }

            let asset: Item.Asset?
            switch kind {
            case .photo:
                asset = photos[idText]?.first.map { .photo(Photo(photo: ref($0[1]), date: timestamp($0[2]))) }
            case .livePhoto:
                asset = livePhotos[idText]?.first.map { .livePhoto(LivePhoto(image: ref($0[1]), video: ref($0[2]), date: timestamp($0[3]))) }
            case .video:
                asset = videos[idText]?.first.map { .video(Video(url: ref($0[1]), date: timestamp($0[2]))) }
            case .workout:
                asset = workouts[idText]?.first.map { .workout(workout($0)) }
            case .workoutGroup:
                asset = workoutGroups[idText]?.first.map { r in
                    .workoutGroup(WorkoutGroup(workouts: (workouts[idText] ?? []).map(workout), icon: ref(r[1]), durationS: r[2],
                                               activeEnergyBurned: quantity(r, 3), averageHeartRate: quantity(r, 5)))
                }
            case .contact:
                asset = contacts[idText]?.first.map { .contact(Contact(name: $0[1], photo: ref($0[2]))) }
            case .location:
                asset = locations[idText]?.first.map { .location(location($0)) }
            case .locationGroup:
                asset = .locationGroup(LocationGroup(locations: (locations[idText] ?? []).map(location)))
            case .song:
                asset = songs[idText]?.first.map {
                    .song(Song(song: $0[1], artist: $0[2], album: $0[3], artwork: ref($0[4]), date: timestamp($0[5])))
                }
            case .podcast:
                asset = podcasts[idText]?.first.map {
                    .podcast(Podcast(episode: $0[1], show: $0[2], artwork: ref($0[3]), date: timestamp($0[4])))
                }
            case .motionActivity:
                asset = motion[idText]?.first.map {
                    .motionActivity(MotionActivity(icon: ref($0[1]), steps: $0[2], date: interval($0[3], $0[4]),
                                                   movementType: MovementType(rawValue: $0[5])))
                }
            case .genericMedia:
                asset = generic[idText]?.first.map {
                    .genericMedia(GenericMedia(title: $0[1], artist: $0[2], album: $0[3], date: timestamp($0[4]), appIcon: ref($0[5]),
                                               artwork: ref($0[6])))
                }
            case .reflection:
                asset = reflections[idText]?.first.map { .reflection(Reflection(prompt: $0[1], color: color($0[2]))) }
            case .stateOfMind:
                asset = moods[idText]?.first.map { r in
                    let labels = (r[5] as String).split(separator: ",").compactMap { Int32($0) }.map(StateOfMindLabel.init)
                    let associations = (r[6] as String).split(separator: ",").compactMap { Int32($0) }.map(StateOfMindAssociation.init)
                    let state: StateOfMindSample? = (r[1] as Bool) ? StateOfMindSample(
                        kind: StateOfMindKind(rawValue: r[2]), valence: r[3], valenceClassification: ValenceClassification(rawValue: r[4]),
                        labels: labels, associations: associations, date: timestamp(r[7])) : nil
                    return .stateOfMind(StateOfMind(state: state, icon: ref(r[8]), lightBackground: gradient(r[9]),
                                                    darkBackground: gradient(r[10])))
                }
            }
            guard let asset else { continue }
            var coordinate: Coordinate?
            if let latitude: Double = row[8], let longitude: Double = row[9] { coordinate = Coordinate(latitude: latitude, longitude: longitude) }
            items.append(LibraryItem(id: id, asset: asset, media: files, startMs: row[2], endMs: row[3], excludedFromSuggestions: row[4],
                                     source: row[5], externalID: row[6], utcOffsetSeconds: (row[7] as Int?).map(Int32.init),
                                     coordinate: coordinate, notAMemory: (row[10] as String?).flatMap(NotAMemory.init),
                                     filePlaceName: row[11], filePlaceCity: row[12]))
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
