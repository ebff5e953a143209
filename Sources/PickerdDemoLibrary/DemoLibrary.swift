package import Foundation
import PickerdMoments
public import PickerdStore
package import PickerdWire

/// The bundled demo library: sixteen days (5–20 November 2026) of a made-up person's life in New
/// York, with a weekend trip to Beacon. Deterministic: the same items, ids, media bytes and
/// suggestions every time. Every picture and clip is drawn by this code at seed time.
public enum DemoLibrary {
    /// Progress while seeding: a stage name and how far it is.
    public struct Progress: Sendable, Hashable {
        /// What is being made ("photos", "workouts", …).
        public var stage: String
        /// Items done so far.
        public var done: Int
        /// Items in all.
        public var total: Int

        /// Creates progress (for the scale library in Tools/Benchmarks, which reports the same way).
        package init(stage: String, done: Int, total: Int) {
            self.stage = stage
            self.done = done
            self.total = total
        }
    }

    /// What a seeding produced.
    public struct Summary: Sendable, Hashable {
        /// Items written.
        public var items: Int
        /// Suggestions built.
        public var suggestions: Int
        /// Distinct media files written.
        public var mediaFiles: Int

        /// Creates a summary (for the scale library in Tools/Benchmarks, which reports the same way).
        package init(items: Int, suggestions: Int, mediaFiles: Int) {
            self.items = items
            self.suggestions = suggestions
            self.mediaFiles = mediaFiles
        }
    }

    /// Midnight of the first day in New York (UTC−5 in November), ms since 1970.
    public static let firstDayMs: Int64 = 1_793_854_800_000  // 2026-11-05T05:00:00Z
    /// How many days the library spans.
    public static let dayCount = 16
    static let hourMs: Int64 = 3_600_000
    static let dayMs: Int64 = 86_400_000

    /// Fills `store` with the demo library and its suggestions.
    /// - Parameters:
    ///   - store: an empty store, or one to replace when `replace` is true.
    ///   - replace: wipe an existing library first.
    ///   - progress: called as each stage advances.
    /// - Returns: what was written.
    /// - Throws: ``StoreError`` `.invalid` when the store already holds items and `replace` is false;
    ///   any write failure (nothing half-written is acknowledged: each batch is one transaction).
    @discardableResult
    public static func seed(into store: Store, replace: Bool = false,
                            progress: (Progress) -> Void = { _ in }) throws(StoreError) -> Summary {
        let existing = try store.itemCounts().values.reduce(0, +)
        if existing > 0 {
            guard replace else {
                throw StoreError(.invalid, "the store \(store.databasePath) already holds \(existing) items; seed with replace to start over")
            }
            try store.clearLibrary()
        }
        var generator = Generator()
        let plan = generator.makeLibrary()
        let total = plan.items.count
        var done = 0
        var written = Set<String>()  // icons and artwork are shared: each file is written once
        for (stage, batch) in plan.batches {
            for file in batch.flatMap(\.files) where written.insert(file.media.relativePath).inserted {
                try store.writeMedia(file.bytes, to: file.media.relativePath)
            }
            try store.insert(batch.map(\.item))
            done += batch.count
            progress(Progress(stage: stage, done: done, total: total))
        }
        let suggestions = try MomentEngine(store: store).rebuildAll()
        progress(Progress(stage: "suggestions", done: total, total: total))
        return Summary(items: total, suggestions: suggestions, mediaFiles: written.count)
    }
}

/// Makes the demo library's items, in batches by stage.
package struct Generator {
    package var random = SeededRandom(seed: 0x5049_434B_4552_4421)  // "PICKERD!"
    var items: [GeneratedItem] = []
    var batches: [(String, [GeneratedItem])] = []

    /// A generator at its fixed seed (the scale library in Tools/Benchmarks paints with one too).
    package init() {}

    /// New York's offset from UTC in November (EST).
    static let newYorkOffset: Int32 = -5 * 3600

    // The cast.
    static let home = Place(name: "Home", city: "New York", latitude: 40.7870, longitude: -73.9754, scene: .indoor)
    static let office = Place(name: "Office", city: "New York", latitude: 40.7549, longitude: -73.9840, isWork: true, scene: .city)
    static let riverside = Place(name: "Riverside Park", city: "New York", latitude: 40.8013, longitude: -73.9719, scene: .river)
    static let ramble = Place(name: "The Ramble, Central Park", city: "New York", latitude: 40.7794, longitude: -73.9691, scene: .park)
    static let coffee = Place(name: "Joe Coffee", city: "New York", latitude: 40.7806, longitude: -73.9800, scene: .food)
    static let viaCarota = Place(name: "Via Carota", city: "New York", latitude: 40.7331, longitude: -74.0036, scene: .food)
    static let strand = Place(name: "Strand Book Store", city: "New York", latitude: 40.7332, longitude: -73.9907, scene: .indoor)
    static let highLine = Place(name: "The High Line", city: "New York", latitude: 40.7480, longitude: -74.0048, scene: .city)
    static let diaBeacon = Place(name: "Dia Beacon", city: "Beacon", latitude: 41.5007, longitude: -73.9830, scene: .indoor)
    static let mountBeacon = Place(name: "Mount Beacon Trail", city: "Beacon", latitude: 41.4886, longitude: -73.9548, scene: .mountain)
    static let mainStreet = Place(name: "Main Street", city: "Beacon", latitude: 41.5048, longitude: -73.9690, scene: .city)
    static let roundhouse = Place(name: "The Roundhouse", city: "Beacon", latitude: 41.5046, longitude: -73.9626, scene: .river)

    static let contacts: [(String, Bool)] = [  // name, has a photo of their own
        ("Maya Okafor", true), ("Daniel Reyes", true), ("Priya Natarajan", true),
        ("Sam Whitaker", false), ("Lena Fischer", true), ("Tom Becker", false),
    ]
    static let songs: [(String, String, String)] = [
        ("Harbor Lights", "The Tideline", "Low Water"), ("Northbound", "Kestrel & Fig", "Paper Maps"),
        ("Salt in the Air", "The Tideline", "Low Water"), ("Late Trains", "Mira Vale", "Platform Nine"),
        ("Bright Static", "Oslo Kids", "Antenna"), ("Open Road Hymn", "Kestrel & Fig", "Paper Maps"),
        ("Slow Orbit", "Mira Vale", "Platform Nine"), ("Copper Sky", "Juniper Lane", "Field Notes"),
        ("Run the River", "Oslo Kids", "Antenna"), ("Small Hours", "Juniper Lane", "Field Notes"),
    ]
    static let podcasts: [(String, String)] = [
        ("Quiet Hours", "Ep. 112: Slow mornings"), ("Quiet Hours", "Ep. 113: The art of the walk"),
        ("Small Experiments", "How habits stick"), ("Small Experiments", "Sleep, revisited"),
        ("City Field Guide", "The birds of Central Park"), ("City Field Guide", "Hudson River ferries"),
    ]
    package static let prompts: [(String, Color)] = [
        ("What is something small you are grateful for today?", Color(red: 0.98, green: 0.76, blue: 0.29, alpha: 1)),
        ("Describe a kind thing someone did for you recently.", Color(red: 0.94, green: 0.45, blue: 0.55, alpha: 1)),
        ("What gave your day a sense of purpose?", Color(red: 0.36, green: 0.55, blue: 0.93, alpha: 1)),
        ("When did you feel most like yourself this week?", Color(red: 0.47, green: 0.78, blue: 0.56, alpha: 1)),
        ("What is a challenge you handled better than you expected?", Color(red: 0.62, green: 0.47, blue: 0.86, alpha: 1)),
        ("Who would you like to thank, and for what?", Color(red: 0.98, green: 0.58, blue: 0.33, alpha: 1)),
        ("What made you curious today?", Color(red: 0.29, green: 0.74, blue: 0.80, alpha: 1)),
        ("How could you be kind to yourself tomorrow?", Color(red: 0.91, green: 0.51, blue: 0.73, alpha: 1)),
        ("What moment today would you like to remember in a year?", Color(red: 0.55, green: 0.67, blue: 0.35, alpha: 1)),
        ("What is something you are looking forward to?", Color(red: 0.99, green: 0.67, blue: 0.24, alpha: 1)),
    ]

    package mutating func uuid() -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    package mutating func double(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }

    static func time(day: Int, hour: Double) -> Int64 {
        DemoLibrary.firstDayMs + Int64(day) * DemoLibrary.dayMs + Int64(hour * 3_600_000)
    }

    /// "YYYY:MM:DD HH:MM:SS" in New York time (UTC−5 in November 2026).
    static func exifDate(_ ms: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: -5 * 3600)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                        from: Date(unixMs: ms))
        return String(format: "%04d:%02d:%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    // MARK: Media

    package mutating func scene(_ place: Place, hour: Double, width: Int = 160, height: Int = 120, shift: Int = 0) -> Raster {
        typealias C = Raster.RGB
        let (top, bottom): (C, C) = switch hour {
        case ..<7.5: (C(40, 44, 96), C(238, 150, 96))
        case ..<16: (C(84, 150, 230), C(190, 220, 245))
        case ..<18.5: (C(120, 80, 160), C(250, 170, 90))
        default: (C(14, 18, 44), C(60, 50, 90))
        }
        var r = Raster(width: width, height: height)
        r.verticalGradient(top, bottom, y0: 0, y1: height * 2 / 3)
        let sunColor = hour >= 18.5 ? C(235, 235, 210) : C(255, 226, 140)
        r.disc(cx: (width / 5 + shift * 2 + int(0...width / 2)) % width, cy: height / 5 + int(0...height / 6), radius: height / 10, sunColor)
        let phase = double(0...6.28)
        switch place.scene {
        case .park:
            r.hills(base: height * 3 / 5, amplitude: 6, period: 14, phase: phase, C(70, 140, 70))
            r.hills(base: height * 3 / 4, amplitude: 4, period: 9, phase: phase + 1, C(40, 110, 50))
        case .river:
            r.hills(base: height * 11 / 20, amplitude: 5, period: 18, phase: phase, C(60, 120, 70))
            r.fillRect(x: 0, y: height * 7 / 10, w: width, h: height, C(50, 100, 160))
        case .mountain:
            r.hills(base: height / 2, amplitude: 18, period: 22, phase: phase, C(90, 100, 120))
            r.hills(base: height * 7 / 10, amplitude: 8, period: 11, phase: phase + 2, C(50, 100, 60))
        case .city:
            var x = 0
            while x < width {
                let w = int(10...24), h = int(height / 4...height * 3 / 5)
                r.fillRect(x: x, y: height - h, w: w - 2, h: h, C(UInt8(int(60...110)), UInt8(int(60...100)), UInt8(int(70...120))))
                x += w
            }
        case .food:
            r.fillRect(x: 0, y: height / 2, w: width, h: height, C(150, 100, 60))
            r.disc(cx: width / 2 + shift, cy: height * 3 / 4, radius: height / 5, C(245, 240, 230))
            r.disc(cx: width / 2 + shift, cy: height * 3 / 4, radius: height / 8, C(200, 80, 50))
        case .indoor:
            r.fillRect(x: 0, y: 0, w: width, h: height, C(200, 190, 170))
            r.fillRect(x: width / 8, y: height / 6, w: width / 3, h: height / 3, top.mixed(bottom, 0.5))
            r.fillRect(x: 0, y: height * 3 / 4, w: width, h: height, C(130, 95, 70))
        }
        return r
    }

    mutating func photoFile(_ place: Place, ms: Int64, gps: Bool, name: String) -> GeneratedItem.File {
        let hour = Double((ms - DemoLibrary.firstDayMs) % DemoLibrary.dayMs) / 3_600_000
        let raster = scene(place, hour: hour)
        let exif = Exif.make(dateTimeOriginal: Self.exifDate(ms),
                             gps: gps ? Exif.GPS(latitude: place.latitude, longitude: place.longitude) : nil)
        let bytes = PNG.encode(raster, exif: exif)
        return GeneratedItem.File(media: StoredMedia(relativePath: "photos/\(name).png", contentType: "image/png", filename: "\(name).png",
                                                     byteCount: UInt64(bytes.count), pixelWidth: UInt32(raster.width),
                                                     pixelHeight: UInt32(raster.height)), bytes: bytes)
    }

    mutating func clipFile(_ place: Place, ms: Int64, frames: Int, size: (Int, Int), name: String) -> GeneratedItem.File {
        let hour = Double((ms - DemoLibrary.firstDayMs) % DemoLibrary.dayMs) / 3_600_000
        let saved = random
        var rasters: [Raster] = []
        for frame in 0..<frames {
            random = saved  // the same scene each frame, the sun and plate moving
            rasters.append(scene(place, hour: hour, width: size.0, height: size.1, shift: frame))
        }
        let bytes = Y4M.encode(frames: rasters, framesPerSecond: 10)
        return GeneratedItem.File(media: StoredMedia(relativePath: "videos/\(name).y4m", contentType: Y4M.contentType,
                                                     filename: "\(name).y4m", byteCount: UInt64(bytes.count),
                                                     pixelWidth: UInt32(size.0), pixelHeight: UInt32(size.1)), bytes: bytes)
    }

    package func badge(_ text: String, background: Raster.RGB, size: Int = 64, directory: String, name: String) -> GeneratedItem.File {
        var r = Raster(width: size, height: size, fill: background)
        r.disc(cx: size / 2, cy: size / 2, radius: size * 2 / 5, background.mixed(Raster.RGB(255, 255, 255), 0.25))
        r.text(text, centerX: size / 2, centerY: size / 2, scale: max(1, size / (6 * max(1, text.count) + 6)), Raster.RGB(255, 255, 255))
        let bytes = PNG.encode(r)
        return GeneratedItem.File(media: StoredMedia(relativePath: "\(directory)/\(name).png", contentType: "image/png",
                                                     filename: "\(name).png", byteCount: UInt64(bytes.count),
                                                     pixelWidth: UInt32(size), pixelHeight: UInt32(size)), bytes: bytes)
    }

    // MARK: The library

    mutating func makeLibrary() -> (items: [GeneratedItem], batches: [(String, [GeneratedItem])]) {
        var photoIndex = 0
        var contactItems: [String: GeneratedItem] = [:]
        var weekWorkouts: [[Workout]] = [[], [], []]

        // Contacts first: outings refer to them.
        var people: [GeneratedItem] = []
        for (i, (name, hasPhoto)) in Self.contacts.enumerated() {
            let initials = name.split(separator: " ").compactMap(\.first).map(String.init).joined()
            let colors: [Raster.RGB] = [Raster.RGB(86, 120, 200), Raster.RGB(200, 110, 90), Raster.RGB(110, 170, 120),
                                        Raster.RGB(150, 110, 190), Raster.RGB(210, 160, 70), Raster.RGB(90, 160, 170)]
            let file: GeneratedItem.File
            if hasPhoto {
                var r = Raster(width: 64, height: 64, fill: colors[i].mixed(Raster.RGB(255, 255, 255), 0.6))
                r.disc(cx: 32, cy: 26, radius: 13, Raster.RGB(UInt8(120 + i * 20), UInt8(90 + i * 10), UInt8(70 + i * 5)))
                r.disc(cx: 32, cy: 64, radius: 26, colors[i])
                let bytes = PNG.encode(r)
                file = GeneratedItem.File(media: StoredMedia(relativePath: "contacts/\(initials).png", contentType: "image/png",
                                                             filename: "\(initials).png", byteCount: UInt64(bytes.count),
                                                             pixelWidth: 64, pixelHeight: 64), bytes: bytes)
            } else {
                file = badge(initials, background: colors[i], directory: "contacts", name: initials)
            }
            // A call or a message with each of them, one every other evening.
            let ms = Self.time(day: 1 + i * 2, hour: 18.25)
            let item = GeneratedItem(item: LibraryItem(id: uuid(), asset: .contact(Contact(name: name, photo: file.media.media(slot: 0))),
                                                       media: [file.media], startMs: ms), files: [file])
            contactItems[name] = item
            people.append(item)
        }
        batches.append(("contacts", people))

        for day in 0..<DemoLibrary.dayCount {
            var batch: [GeneratedItem] = []
            let weekday = (day + 4) % 7  // 5 Nov 2026 is a Thursday; 0 = Sunday
            let trip = day >= 8 && day <= 10  // Friday 13 – Sunday 15 November
            let workday = !trip && weekday >= 1 && weekday <= 5
            let runDay = !trip && [0, 1, 3, 5].contains(weekday)
            let week = day < 4 ? 0 : (day < 11 ? 1 : 2)

            func photo(_ place: Place, hour: Double, gps: Bool = true) -> GeneratedItem {
                photoIndex += 1
                let ms = Self.time(day: day, hour: hour)
                let file = photoFile(place, ms: ms, gps: gps, name: String(format: "IMG_%04d", photoIndex))
                return GeneratedItem(item: LibraryItem(id: uuid(), asset: .photo(Photo(photo: file.media.media(slot: 0),
                                                                                          date: Timestamp(unixMs: ms))),
                                                       media: [file.media], startMs: ms,
                                                       coordinate: gps ? Coordinate(latitude: place.latitude, longitude: place.longitude) : nil),
                                     files: [file])
            }
            func location(_ place: Place, from: Double, to: Double) -> GeneratedItem {
                let start = Self.time(day: day, hour: from)
                let loc = Location(place: place.name, city: place.city,
                                   location: GeoLocation(latitude: place.latitude, longitude: place.longitude, altitudeM: 20,
                                                         horizontalAccuracyM: 15, timestamp: Timestamp(unixMs: start)),
                                   date: Timestamp(unixMs: start), isWorkLocation: place.isWork)
                return GeneratedItem(item: LibraryItem(id: uuid(), asset: .location(loc), startMs: start,
                                                       endMs: Self.time(day: day, hour: to)), files: [])
            }
            func song(hour: Double) -> GeneratedItem {
                let (title, artist, album) = Self.songs[int(0...Self.songs.count - 1)]
                let ms = Self.time(day: day, hour: hour)
                let art = badge(String(album.prefix(2)), background: Raster.RGB(UInt8(album.count * 17 % 200 + 30), 90, UInt8(album.count * 29 % 200 + 40)),
                                directory: "artwork", name: album.replacingOccurrences(of: " ", with: "-"))
                return GeneratedItem(item: LibraryItem(id: uuid(), asset: .song(Song(song: title, artist: artist, album: album,
                                                                                      artwork: art.media.media(slot: 0),
                                                                                      date: Timestamp(unixMs: ms))),
                                                       media: [art.media], startMs: ms), files: [art])
            }
            func mood(hour: Double, kind: StateOfMindKind, valence: Double, labels: [StateOfMindLabel],
                      associations: [StateOfMindAssociation]) -> GeneratedItem {
                let ms = Self.time(day: day, hour: hour)
                let classification = StateOfMindStyle.classification(valence: valence)
                let backgrounds = StateOfMindStyle.backgrounds(valence: valence)
                let icon = badge(valence >= 0 ? "+" : "-", background: valence >= 0 ? Raster.RGB(240, 170, 60) : Raster.RGB(90, 110, 190),
                                 size: 32, directory: "icons", name: valence >= 0 ? "mood-pleasant" : "mood-unpleasant")
                let state = StateOfMind(
                    state: StateOfMindSample(kind: kind, valence: valence, valenceClassification: classification,
                                             labels: labels, associations: associations, date: Timestamp(unixMs: ms)),
                    icon: icon.media.media(slot: 0), lightBackground: backgrounds.light, darkBackground: backgrounds.dark)
                return GeneratedItem(item: LibraryItem(id: uuid(), asset: .stateOfMind(state), media: [icon.media], startMs: ms), files: [icon])
            }

            // Morning run along the river, with music, a photo and the run's motion.
            if runDay {
                let startHour = 6.75 + Double(day % 3) * 0.25
                let minutes = Double(int(28...52))
                let start = Self.time(day: day, hour: startHour), end = start + Int64(minutes * 60_000)
                let distance = minutes * double(165...190)
                var route: [GeoLocation] = []
                for i in 0..<30 {
                    let t = Double(i) / 29
                    route.append(GeoLocation(latitude: Self.riverside.latitude + t * 0.018 * (i < 15 ? 1 : 2 - t * 2),
                                             longitude: Self.riverside.longitude - 0.004 * sin(t * 3),
                                             altitudeM: 12 + 6 * t, horizontalAccuracyM: 5,
                                             timestamp: Timestamp(unixMs: start + Int64(t * Double(end - start)))))
                }
                let icon = badge("R", background: Raster.RGB(80, 200, 120), size: 32, directory: "icons", name: "workout-running")
                let workout = Workout(details: WorkoutDetails(activityType: 37, activeEnergyBurned: Quantity(value: (minutes * 11.2).rounded(), unit: "kcal"),
                                                              distance: Quantity(value: distance.rounded(), unit: "m"),
                                                              averageHeartRate: Quantity(value: Double(int(142...161)), unit: "count/min"),
                                                              date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                              localizedName: "Outdoor Run"),
                                      icon: icon.media.media(slot: 0), route: route)
                weekWorkouts[week].append(workout)
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .workout(workout), media: [icon.media], startMs: start, endMs: end),
                                           files: [icon]))
                batch.append(location(Self.riverside, from: startHour, to: startHour + minutes / 60))
                batch.append(song(hour: startHour + 0.1))
                batch.append(song(hour: startHour + 0.3))
                batch.append(photo(Self.riverside, hour: startHour + minutes / 60 - 0.05))
                let runIcon = badge("RUN", background: Raster.RGB(70, 180, 110), size: 32, directory: "icons", name: "motion-running")
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .motionActivity(MotionActivity(
                    icon: runIcon.media.media(slot: 0), steps: Int64(distance / 1.1),
                    date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end), movementType: .running)),
                    media: [runIcon.media], startMs: start, endMs: end), files: [runIcon]))
                batch.append(mood(hour: startHour + minutes / 60 + 0.1, kind: .momentaryEmotion, valence: 0.7,
                                  labels: [.excited, .proud], associations: [.fitness, .health]))
            }

            if workday {
                batch.append(location(Self.coffee, from: 8.1, to: 8.4))
                let (show, episode) = Self.podcasts[day % Self.podcasts.count]
                let ms = Self.time(day: day, hour: 8.5)
                let art = badge(String(show.prefix(1)), background: Raster.RGB(60, 60, 70), directory: "artwork",
                                name: show.replacingOccurrences(of: " ", with: "-"))
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .podcast(Podcast(episode: episode, show: show,
                                                                                                  artwork: art.media.media(slot: 0),
                                                                                                  date: Timestamp(unixMs: ms))),
                                                             media: [art.media], startMs: ms, endMs: ms + 1_800_000), files: [art]))
                batch.append(location(Self.office, from: 9, to: 17.5))
                if day % 4 == 1 { batch.append(photo(Self.office, hour: 12.6)) }
                // The walk home.
                let walkIcon = badge("W", background: Raster.RGB(90, 150, 220), size: 32, directory: "icons", name: "motion-walking")
                let walkStart = Self.time(day: day, hour: 17.6)
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .motionActivity(MotionActivity(
                    icon: walkIcon.media.media(slot: 0), steps: Int64(int(3200...5400)),
                    date: PickerdWire.DateInterval(startUnixMs: walkStart, endUnixMs: walkStart + 2_400_000), movementType: .walking)),
                    media: [walkIcon.media], startMs: walkStart, endMs: walkStart + 2_400_000), files: [walkIcon]))
            }

            // Evenings: dinner with a friend twice a week, otherwise at home.
            if !trip && (weekday == 2 || weekday == 6) {
                let friend = Self.contacts[(day / 2) % Self.contacts.count].0
                let place = weekday == 6 ? Self.viaCarota : Self.strand
                batch.append(location(place, from: 19, to: 21.5))
                batch.append(photo(place, hour: 19.6))
                if weekday == 6 {
                    photoIndex += 1
                    let ms = Self.time(day: day, hour: 20.2)
                    let image = photoFile(place, ms: ms, gps: true, name: String(format: "IMG_%04d", photoIndex))
                    let clip = clipFile(place, ms: ms, frames: 12, size: (64, 48), name: String(format: "IMG_%04d", photoIndex))
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .livePhoto(LivePhoto(
                        image: image.media.media(slot: 0), video: clip.media.media(slot: 1), date: Timestamp(unixMs: ms))),
                        media: [image.media, clip.media], startMs: ms), files: [image, clip]))
                }
                if let contact = contactItems[friend] {
                    // The friend appears in the evening's moment: the contact item itself, met again.
                    var met = contact
                    met.item.id = uuid()
                    met.item.startMs = Self.time(day: day, hour: 19.1)
                    met.item.endMs = met.item.startMs
                    met.files = []
                    batch.append(met)
                }
                batch.append(mood(hour: 21.8, kind: .momentaryEmotion, valence: 0.8, labels: [.happy, .grateful],
                                  associations: [.friends]))
            } else if !trip {
                batch.append(location(Self.home, from: 18.5, to: 23))
                batch.append(song(hour: 20 + Double(day % 3) * 0.5))
                if day % 5 == 0 {
                    let ms = Self.time(day: day, hour: 21)
                    let icon = badge("B", background: Raster.RGB(150, 90, 60), size: 32, directory: "icons", name: "app-bookshelf")
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .genericMedia(GenericMedia(
                        title: "Chapter \(day + 3): The lighthouse keeper", artist: "A. R. Whitfield", album: "The Long Coast",
                        date: Timestamp(unixMs: ms), appIcon: icon.media.media(slot: 0))),
                        media: [icon.media], startMs: ms, source: LibraryItem.donationSource("com.example.bookshelf"), externalID: "chapter-\(day + 3)"),
                                               files: [icon]))
                }
            }

            // The day's mood, every evening.
            let valence = [0.5, 0.2, -0.3, 0.6, 0.1, 0.8, -0.1, 0.4][day % 8]
            let labels: [StateOfMindLabel] = valence > 0.4 ? [.content, .grateful] : valence > 0 ? [.calm] : [.stressed, .drained]
            batch.append(mood(hour: 22.3, kind: .dailyMood, valence: valence, labels: labels,
                              associations: valence > 0 ? [.family, .selfCare] : [.work, .tasks]))

            // A reflection prompt every other day.
            if day % 2 == 0 {
                let (prompt, color) = Self.prompts[(day / 2) % Self.prompts.count]
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .reflection(Reflection(prompt: prompt, color: color)),
                                                             startMs: Self.time(day: day, hour: 7)), files: []))
            }

            // Weekend in Central Park.
            if !trip && weekday == 6 {
                batch.append(location(Self.ramble, from: 10, to: 12))
                batch.append(photo(Self.ramble, hour: 10.5))
                batch.append(photo(Self.ramble, hour: 11.2))
                batch.append(video(Self.ramble, hour: 11.4, frames: 20))
            }
            func video(_ place: Place, hour: Double, frames: Int) -> GeneratedItem {
                let ms = Self.time(day: day, hour: hour)
                let clip = clipFile(place, ms: ms, frames: frames, size: (96, 72), name: "VID_\(day)_\(Int(hour * 10))")
                return GeneratedItem(item: LibraryItem(id: uuid(), asset: .video(Video(url: clip.media.media(slot: 0),
                                                                                        date: Timestamp(unixMs: ms))),
                                                       media: [clip.media], startMs: ms), files: [clip])
            }
            if !trip && weekday == 0 {
                batch.append(location(Self.highLine, from: 14, to: 16))
                batch.append(photo(Self.highLine, hour: 14.5))
                batch.append(video(Self.highLine, hour: 15.2, frames: 16))
                let yogaIcon = badge("Y", background: Raster.RGB(200, 120, 180), size: 32, directory: "icons", name: "workout-yoga")
                let start = Self.time(day: day, hour: 17), end = start + 3_600_000
                let yoga = Workout(details: WorkoutDetails(activityType: 57, activeEnergyBurned: Quantity(value: 190, unit: "kcal"),
                                                           averageHeartRate: Quantity(value: 96, unit: "count/min"),
                                                           date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                           localizedName: "Yoga"), icon: yogaIcon.media.media(slot: 0))
                weekWorkouts[week].append(yoga)
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .workout(yoga), media: [yogaIcon.media], startMs: start, endMs: end),
                                           files: [yogaIcon]))
            }

            // The trip to Beacon.
            if trip {
                let places = [day == 8 ? Self.mainStreet : Self.diaBeacon, day == 9 ? Self.mountBeacon : Self.roundhouse]
                batch.append(location(places[0], from: 11, to: 14))
                batch.append(photo(places[0], hour: 11.5))
                batch.append(photo(places[0], hour: 12.8))
                if day == 8 { batch.append(video(places[0], hour: 13.1, frames: 16)) }
                batch.append(location(places[1], from: 15, to: 18))
                batch.append(photo(places[1], hour: 16))
                photoIndex += 1
                let ms = Self.time(day: day, hour: 16.8)
                let image = photoFile(places[1], ms: ms, gps: true, name: String(format: "IMG_%04d", photoIndex))
                let clip = clipFile(places[1], ms: ms, frames: 12, size: (64, 48), name: String(format: "IMG_%04d", photoIndex))
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .livePhoto(LivePhoto(
                    image: image.media.media(slot: 0), video: clip.media.media(slot: 1), date: Timestamp(unixMs: ms))),
                    media: [image.media, clip.media], startMs: ms), files: [image, clip]))
                if day == 9 {
                    let hikeIcon = badge("H", background: Raster.RGB(120, 160, 80), size: 32, directory: "icons", name: "workout-hiking")
                    let start = Self.time(day: day, hour: 15.1), end = Self.time(day: day, hour: 17.4)
                    let hike = Workout(details: WorkoutDetails(activityType: 24, activeEnergyBurned: Quantity(value: 640, unit: "kcal"),
                                                               distance: Quantity(value: 7400, unit: "m"),
                                                               averageHeartRate: Quantity(value: 128, unit: "count/min"),
                                                               date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                               localizedName: "Hiking"),
                                       icon: hikeIcon.media.media(slot: 0),
                                       route: (0..<25).map { i in
                                           GeoLocation(latitude: Self.mountBeacon.latitude + Double(i) * 0.0004,
                                                       longitude: Self.mountBeacon.longitude + Double(i % 5) * 0.0003,
                                                       altitudeM: 60 + Double(i) * 12, horizontalAccuracyM: 8,
                                                       timestamp: Timestamp(unixMs: start + Int64(i) * 330_000))
                                       })
                    weekWorkouts[week].append(hike)
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .workout(hike), media: [hikeIcon.media],
                                                                 startMs: start, endMs: end), files: [hikeIcon]))
                    let mixIcon = badge("HK", background: Raster.RGB(110, 150, 90), size: 32, directory: "icons", name: "motion-mixed")
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .motionActivity(MotionActivity(
                        icon: mixIcon.media.media(slot: 0), steps: 14_820,
                        date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end), movementType: .runningWalking)),
                        media: [mixIcon.media], startMs: start, endMs: end), files: [mixIcon]))
                    batch.append(mood(hour: 17.6, kind: .momentaryEmotion, valence: 0.9, labels: [.amazed, .peaceful],
                                      associations: [.travel, .fitness]))
                }
                if day == 10 {
                    // The trip's places, as one group.
                    let tripPlaces = [Self.mainStreet, Self.diaBeacon, Self.mountBeacon, Self.roundhouse]
                    let start = Self.time(day: 8, hour: 11), end = Self.time(day: 10, hour: 18)
                    let group = LocationGroup(locations: tripPlaces.enumerated().map { i, p in
                        Location(place: p.name, city: p.city,
                                 location: GeoLocation(latitude: p.latitude, longitude: p.longitude, altitudeM: 40,
                                                       horizontalAccuracyM: 20, timestamp: Timestamp(unixMs: start + Int64(i) * 20 * 3_600_000)),
                                 date: Timestamp(unixMs: start + Int64(i) * 20 * 3_600_000), isWorkLocation: false)
                    })
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .locationGroup(group), startMs: start, endMs: end), files: []))
                }
            }

            // A donated audiobook chapter the person asked to keep out of suggestions.
            if day == 12 {
                let ms = Self.time(day: day, hour: 22.5)
                let icon = badge("A", background: Raster.RGB(70, 70, 140), size: 32, directory: "icons", name: "app-audiobooks")
                batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .genericMedia(GenericMedia(
                    title: "Private Notes, Part 2", artist: "Anonymous", album: "Private Notes",
                    date: Timestamp(unixMs: ms), appIcon: icon.media.media(slot: 0))),
                    media: [icon.media], startMs: ms, excludedFromSuggestions: true, source: LibraryItem.donationSource("com.example.audiobooks"),
                    externalID: "private-2"), files: [icon]))
            }

            // Sunday evening: the week's workouts as a group.
            if weekday == 0 || day == DemoLibrary.dayCount - 1 {
                let workouts = weekWorkouts[week]
                if workouts.count >= 2 {
                    let icon = badge("WK", background: Raster.RGB(60, 170, 110), size: 32, directory: "icons", name: "workout-group")
                    let energy = workouts.compactMap { $0.details?.activeEnergyBurned?.value }.reduce(0, +)
                    let seconds = workouts.compactMap { $0.details?.date }.map { Double($0.endUnixMs - $0.startUnixMs) / 1000 }.reduce(0, +)
                    let starts = workouts.compactMap { $0.details?.date?.startUnixMs }
                    let ends = workouts.compactMap { $0.details?.date?.endUnixMs }
                    batch.append(GeneratedItem(item: LibraryItem(id: uuid(), asset: .workoutGroup(WorkoutGroup(
                        workouts: workouts, icon: icon.media.media(slot: 0), durationS: seconds,
                        activeEnergyBurned: Quantity(value: energy, unit: "kcal"),
                        averageHeartRate: Quantity(value: 141, unit: "count/min"))),
                        media: [icon.media], startMs: starts.min() ?? 0, endMs: ends.max() ?? 0), files: [icon]))
                }
            }
            batch.sort { $0.item.startMs < $1.item.startMs }
            batches.append(("day \(day + 1) of \(DemoLibrary.dayCount)", batch))
        }
        // The person lives in New York: every item says so (a photo's EXIF offset would).
        batches = batches.map { stage, batch in
            (stage, batch.map { generated in
                var copy = generated
                copy.item.utcOffsetSeconds = Self.newYorkOffset
                return copy
            })
        }
        items = batches.flatMap(\.1)
        return (items, batches)
    }
}

