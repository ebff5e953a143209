import Foundation
import GRDB
import PickerdWire

/// Writes and reads library items: the `item` row, the `media` rows, and one typed table per asset
/// kind, every field in its own column (lists of labels and gradient stops as short text).
enum ItemCodec {
    // MARK: Writing

    static func insert(_ item: LibraryItem, _ db: Database) throws {
        let id = item.id.uuidString
        try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
        try db.execute(sql: """
            INSERT INTO item (id, kind, category, start_ms, end_ms, excluded, source, external_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, item.kind.rawValue, Int(item.kind.category.rawValue), item.startMs, item.endMs,
                             item.excludedFromSuggestions, item.source, item.externalID])
        for (slot, media) in item.media.enumerated() {
            try db.execute(sql: """
                INSERT INTO media (item_id, slot, relative_path, content_type, filename, byte_count, pixel_width, pixel_height)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, slot, media.relativePath, media.contentType, media.filename, Int64(media.byteCount),
                                 Int(media.pixelWidth), Int(media.pixelHeight)])
        }
        switch item.asset {
        case .photo(let p):
            try db.execute(sql: "INSERT INTO photo VALUES (?, ?, ?)", arguments: [id, slot(p.photo), p.date?.unixMs])
        case .livePhoto(let p):
            try db.execute(sql: "INSERT INTO live_photo VALUES (?, ?, ?, ?)",
                           arguments: [id, slot(p.image), slot(p.video), p.date?.unixMs])
        case .video(let v):
            try db.execute(sql: "INSERT INTO video VALUES (?, ?, ?)", arguments: [id, slot(v.url), v.date?.unixMs])
        case .workout(let w):
            try insertWorkout(w, id: id, position: 0, db)
        case .workoutGroup(let g):
            try db.execute(sql: "INSERT INTO workout_group VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [id, slot(g.icon), g.durationS, g.activeEnergyBurned?.value, g.activeEnergyBurned?.unit,
                                       g.averageHeartRate?.value, g.averageHeartRate?.unit])
            for (position, w) in g.workouts.enumerated() { try insertWorkout(w, id: id, position: position, db) }
        case .contact(let c):
            try db.execute(sql: "INSERT INTO contact VALUES (?, ?, ?)", arguments: [id, c.name, slot(c.photo)])
        case .location(let l):
            try insertLocation(l, id: id, position: 0, db)
        case .locationGroup(let g):
            try db.execute(sql: "INSERT INTO location_group VALUES (?)", arguments: [id])
            for (position, l) in g.locations.enumerated() { try insertLocation(l, id: id, position: position, db) }
        case .song(let s):
            try db.execute(sql: "INSERT INTO song VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [id, s.song, s.artist, s.album, slot(s.artwork), s.date?.unixMs])
        case .podcast(let p):
            try db.execute(sql: "INSERT INTO podcast VALUES (?, ?, ?, ?, ?)",
                           arguments: [id, p.episode, p.show, slot(p.artwork), p.date?.unixMs])
        case .motionActivity(let m):
            try db.execute(sql: "INSERT INTO motion_activity VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [id, slot(m.icon), m.steps, m.date?.startUnixMs, m.date?.endUnixMs, Int(m.movementType.rawValue)])
        case .genericMedia(let g):
            try db.execute(sql: "INSERT INTO generic_media VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [id, g.title, g.artist, g.album, g.date?.unixMs, slot(g.appIcon)])
        case .reflection(let r):
            try db.execute(sql: "INSERT INTO reflection VALUES (?, ?, ?)", arguments: [id, r.prompt, r.color.map(colorText)])
        case .stateOfMind(let s):
            let state = s.state ?? StateOfMindSample()
            try db.execute(sql: "INSERT INTO state_of_mind VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        try db.execute(sql: "INSERT INTO workout VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       arguments: [id, position, d != nil, Int64(d?.activityType ?? 0),
                                   d?.activeEnergyBurned?.value, d?.activeEnergyBurned?.unit,
                                   d?.distance?.value, d?.distance?.unit,
                                   d?.averageHeartRate?.value, d?.averageHeartRate?.unit,
                                   d?.date?.startUnixMs, d?.date?.endUnixMs, d?.localizedName ?? "", slot(w.icon)])
        for (seq, point) in w.route.enumerated() {
            try db.execute(sql: "INSERT INTO route_point VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           arguments: [id, position, seq, point.latitude, point.longitude, point.altitudeM,
                                       point.horizontalAccuracyM, point.timestamp?.unixMs])
        }
    }

    private static func insertLocation(_ l: Location, id: String, position: Int, _ db: Database) throws {
        let g = l.location
        try db.execute(sql: "INSERT INTO location VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    static func loadAll(_ db: Database, only: Set<UUID>? = nil) throws -> [LibraryItem] {
        func rows(_ table: String, order: String = "") throws -> [String: [Row]] {
            Dictionary(grouping: try Row.fetchAll(db, sql: "SELECT * FROM \(table) \(order)"), by: { $0["item_id"] as String })
        }
        let media = try rows("media", order: "ORDER BY item_id, slot")
        let photos = try rows("photo"), livePhotos = try rows("live_photo"), videos = try rows("video")
        let workouts = try rows("workout", order: "ORDER BY item_id, position")
        let route = try rows("route_point", order: "ORDER BY item_id, position, seq")
        let workoutGroups = try rows("workout_group"), contacts = try rows("contact")
        let locations = try rows("location", order: "ORDER BY item_id, position")
        let songs = try rows("song"), podcasts = try rows("podcast"), motion = try rows("motion_activity")
        let generic = try rows("generic_media"), reflections = try rows("reflection"), moods = try rows("state_of_mind")

        var items: [LibraryItem] = []
        for row in try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY start_ms, id") {
            let idText: String = row["id"]
            guard let id = UUID(uuidString: idText), only?.contains(id) ?? true,
                  let kind = AssetKind(rawValue: row["kind"]) else { continue }
            let files = (media[idText] ?? []).map {
                StoredMedia(relativePath: $0["relative_path"], contentType: $0["content_type"], filename: $0["filename"],
                            byteCount: UInt64($0["byte_count"] as Int64), pixelWidth: UInt32($0["pixel_width"] as Int),
                            pixelHeight: UInt32($0["pixel_height"] as Int))
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
                                               date: timestamp($0["date_ms"]), appIcon: ref($0["app_icon_slot"])))
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
                                     externalID: row["external_id"]))
        }
        return items
    }
}
