import Foundation
import GRDB
import PickerdWire

/// Writes and reads library items: the `item` row, the `media` rows, and one typed table per asset
/// kind, every field in its own column (lists of labels and gradient stops as short text).
enum ItemCodec {
    // MARK: Writing

    static func insert(_ item: LibraryItem, _ db: Database) throws {
        let id = item.id.uuidString
        try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id])
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

    private static func coordinate(_ row: Row) -> Coordinate? {
        guard let latitude: Double = row["latitude"], let longitude: Double = row["longitude"] else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
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
        return items.sorted { ($0.startMs, $0.id.uuidString) < ($1.startMs, $1.id.uuidString) }
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

    /// Loads the items `condition` (on the `item` table) selects, oldest first; each typed table is
    /// read only for those items.
    static func load(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [LibraryItem] {
        let itemRows = try Row.fetchAll(db, sql: "SELECT * FROM item WHERE \(condition) ORDER BY start_ms, id", arguments: arguments)
        if itemRows.isEmpty { return [] }
        let kinds = Set(itemRows.map { $0["kind"] as String })
        func rows(_ table: String, order: String = "", for wanted: [AssetKind]) throws -> [String: [Row]] {
            guard wanted.contains(where: { kinds.contains($0.rawValue) }) else { return [:] }
            let sql = "SELECT * FROM \(table) WHERE item_id IN (SELECT id FROM item WHERE \(condition)) \(order)"
            return Dictionary(grouping: try Row.fetchAll(db, sql: sql, arguments: arguments), by: { $0["item_id"] as String })
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
        for row in itemRows {
            let idText: String = row["id"]
            guard let id = UUID.parsing(idText), let kind = AssetKind(rawValue: row["kind"]) else { continue }
            let files = (media[idText] ?? []).map {
                StoredMedia(relativePath: $0["relative_path"], contentType: $0["content_type"], filename: $0["filename"],
                            byteCount: UInt64($0["byte_count"] as Int64), pixelWidth: UInt32($0["pixel_width"] as Int),
                            pixelHeight: UInt32($0["pixel_height"] as Int), modifiedNs: $0["mtime_ns"])
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
            func quantity(_ r: Row, _ prefix: String) -> Quantity? {
                guard let value: Double = r["\(prefix)_value"] else { return nil }
                return Quantity(value: value, unit: r["\(prefix)_unit"] ?? "")
            }
            func workout(_ r: Row) -> Workout {
                let position: Int = r["position"]
                let details: WorkoutDetails? = (r["has_details"] as Bool) ? WorkoutDetails(
                    activityType: UInt32(r["activity_type"] as Int64), activeEnergyBurned: quantity(r, "energy"),
                    distance: quantity(r, "distance"), averageHeartRate: quantity(r, "heart_rate"),
                    date: interval(r["start_ms"], r["end_ms"]), localizedName: r["localized_name"]) : nil
                let points = (route[idText] ?? []).filter { ($0["position"] as Int) == position }.map {
                    GeoLocation(latitude: $0["latitude"], longitude: $0["longitude"], altitudeM: $0["altitude_m"],
                                horizontalAccuracyM: $0["horizontal_accuracy_m"], timestamp: timestamp($0["timestamp_ms"]))
                }
                return Workout(details: details, icon: ref(r["icon_slot"]), route: points)
            }
            func location(_ r: Row) -> Location {
                var geo: GeoLocation?
                if let latitude: Double = r["latitude"], let longitude: Double = r["longitude"] {
                    geo = GeoLocation(latitude: latitude, longitude: longitude, altitudeM: r["altitude_m"],
                                      horizontalAccuracyM: r["horizontal_accuracy_m"], timestamp: timestamp(r["timestamp_ms"]))
                }
                return Location(place: r["place"], city: r["city"], location: geo, date: timestamp(r["date_ms"]),
                                isWorkLocation: r["is_work_location"])
            }

            let asset: Item.Asset?
            switch kind {
            case .photo:
                asset = photos[idText]?.first.map { .photo(Photo(photo: ref($0["photo_slot"]), date: timestamp($0["date_ms"]))) }
            case .livePhoto:
                asset = livePhotos[idText]?.first.map {
                    .livePhoto(LivePhoto(image: ref($0["image_slot"]), video: ref($0["video_slot"]), date: timestamp($0["date_ms"])))
                }
            case .video:
                asset = videos[idText]?.first.map { .video(Video(url: ref($0["video_slot"]), date: timestamp($0["date_ms"]))) }
            case .workout:
                asset = workouts[idText]?.first.map { .workout(workout($0)) }
            case .workoutGroup:
                asset = workoutGroups[idText]?.first.map { r in
                    .workoutGroup(WorkoutGroup(workouts: (workouts[idText] ?? []).map(workout), icon: ref(r["icon_slot"]),
                                               durationS: r["duration_s"], activeEnergyBurned: quantity(r, "energy"),
                                               averageHeartRate: quantity(r, "heart_rate")))
                }
            case .contact:
                asset = contacts[idText]?.first.map { .contact(Contact(name: $0["name"], photo: ref($0["photo_slot"]))) }
            case .location:
                asset = locations[idText]?.first.map { .location(location($0)) }
            case .locationGroup:
                asset = .locationGroup(LocationGroup(locations: (locations[idText] ?? []).map(location)))
            case .song:
                asset = songs[idText]?.first.map {
                    .song(Song(song: $0["song"], artist: $0["artist"], album: $0["album"], artwork: ref($0["artwork_slot"]),
                               date: timestamp($0["date_ms"])))
                }
            case .podcast:
                asset = podcasts[idText]?.first.map {
                    .podcast(Podcast(episode: $0["episode"], show: $0["show"], artwork: ref($0["artwork_slot"]),
                                     date: timestamp($0["date_ms"])))
                }
            case .motionActivity:
                asset = motion[idText]?.first.map {
                    .motionActivity(MotionActivity(icon: ref($0["icon_slot"]), steps: $0["steps"],
                                                   date: interval($0["start_ms"], $0["end_ms"]),
                                                   movementType: MovementType(rawValue: $0["movement_type"])))
                }
            case .genericMedia:
                asset = generic[idText]?.first.map {
                    .genericMedia(GenericMedia(title: $0["title"], artist: $0["artist"], album: $0["album"],
                                               date: timestamp($0["date_ms"]), appIcon: ref($0["app_icon_slot"]),
                                               artwork: ref($0["artwork_slot"])))
                }
            case .reflection:
                asset = reflections[idText]?.first.map { .reflection(Reflection(prompt: $0["prompt"], color: color($0["color"]))) }
            case .stateOfMind:
                asset = moods[idText]?.first.map { r in
                    let labels = (r["labels"] as String).split(separator: ",").compactMap { Int32($0) }.map(StateOfMindLabel.init)
                    let associations = (r["associations"] as String).split(separator: ",").compactMap { Int32($0) }
                        .map(StateOfMindAssociation.init)
                    let state: StateOfMindSample? = (r["has_state"] as Bool) ? StateOfMindSample(
                        kind: StateOfMindKind(rawValue: r["kind"]), valence: r["valence"],
                        valenceClassification: ValenceClassification(rawValue: r["valence_classification"]),
                        labels: labels, associations: associations, date: timestamp(r["date_ms"])) : nil
                    return .stateOfMind(StateOfMind(state: state, icon: ref(r["icon_slot"]),
                                                    lightBackground: gradient(r["light_background"]),
                                                    darkBackground: gradient(r["dark_background"])))
                }
            }
            guard let asset else { continue }
            items.append(LibraryItem(id: id, asset: asset, media: files, startMs: row["start_ms"], endMs: row["end_ms"],
                                     excludedFromSuggestions: row["excluded"], source: row["source"],
                                     externalID: row["external_id"], utcOffsetSeconds: (row["utc_offset_s"] as Int?).map(Int32.init),
                                     coordinate: coordinate(row), notAMemory: (row["not_memory"] as String?).flatMap(NotAMemory.init),
                                     filePlaceName: row["place_name"], filePlaceCity: row["place_city"]))
        }
        return items
    }
}
