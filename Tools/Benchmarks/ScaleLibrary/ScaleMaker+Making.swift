import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

extension ScaleMaker {
    // MARK: Making

    func ms(_ day: Day, _ hour: Double) -> Int64 {
        (Int64(day.date) * 86_400 - Int64(day.offset)) * 1000 + Int64((hour * 3_600_000).rounded())
    }

    mutating func item(_ asset: Item.Asset, media: [GeneratedItem.File] = [], start: Int64, end: Int64? = nil, _ day: Day,
                       coordinate: Coordinate? = nil, notAMemory: NotAMemory? = nil,
                       source: String = "demo", externalID: String = "") -> GeneratedItem {
        GeneratedItem(item: LibraryItem(id: g.uuid(), asset: asset, media: media.map(\.media), startMs: start, endMs: end,
                                        source: source, externalID: externalID, utcOffsetSeconds: day.offset,
                                        coordinate: coordinate, notAMemory: notAMemory),
                      files: media)
    }

    /// Everything one planned day holds, appended to `out`.
    mutating func render(_ index: Int, into out: inout [GeneratedItem]) {
        let day = days[index]
        switch day.context {
        case .trip(let trip), .tripEnd(let trip):
            if trip != tripOf {
                tripOf = trip
                tripStops = []
            }
        case .home, .departure, .arrival:
            break
        }
        let week = Int(Civil.floorDiv(Int64(day.date - 4), 7))
        if week != weekKey {
            weekKey = week
            weekWorkouts = []
        }
        var sawFriends = false, workedOut = false

        for person in day.intros {
            out.append(contact(person, ms(day, max(day.awakeFrom, min(day.awakeTo, 18.25))), day))
        }
        for visit in day.visits {
            let start = ms(day, visit.start), end = ms(day, visit.end)
            let location = self.location(visit.place, start: start, end: end, day)
            out.append(location)
            if visit.stop, case .location(let stop) = location.item.asset, !tripStops.contains(where: { $0.location.place == stop.place }) {
                tripStops.append((stop, start, end))
            }
            if let c = visit.cluster { shoot(c, visit.place, from: start, to: end, day, into: &out) }
            for (k, person) in visit.friends.enumerated() {
                out.append(contact(person, start + Int64(g.int(2...15) + 3 * k) * 60_000, day))
                sawFriends = true
            }
            if chance(visit.moodChance) {
                let valence = chance(0.9) ? between(0.3, 0.95) : between(-0.5, 0.1)
                var associations: [StateOfMindAssociation] = visit.friends.isEmpty ? [.hobbies] : [.friends]
                if day.context != .home { associations.append(.travel) }
                out.append(mood(end + Int64(g.int(5...30)) * 60_000, day, kind: .momentaryEmotion, valence: valence, associations: associations))
            }
        }
        for shoot in day.shoots { self.shoot(shoot.cluster, shoot.place, from: ms(day, shoot.start), to: ms(day, shoot.end), day, into: &out) }
        for session in day.sessions {
            workout(session, day, into: &out)
            workedOut = true
        }

        // Where the night is spent, until the next day's morning.
        if let night = day.night {
            let start = ms(day, night.start)
            var end = index + 1 < days.count ? ms(days[index + 1], days[index + 1].morning) : ms(day, 31.5)
            end = max(start + 60_000, min(end, endingAtMs))
            out.append(location(night.place, start: start, end: end, day))
        }

        // Commutes: a podcast there, a walk or songs back.
        if day.workday, let office = day.visits.first(where: { $0.place.isWork }), let back = day.visits.last(where: { $0.place.isWork }) {
            if chance(0.8) {
                let show = g.int(0...ScaleCast.podcasts.count - 1)
                let start = ms(day, max(day.morning, office.start - between(0.55, 0.75)))
                out.append(podcast(show, start, day))
            }
            if chance(0.5) {
                let start = ms(day, back.end + between(0.03, 0.1))
                let minutes = Int64(g.int(22...40))
                out.append(item(.motionActivity(MotionActivity(icon: icons["motion-walking"]!.media.media(slot: 0),
                                                               steps: minutes * Int64(g.int(95...115)),
                                                               date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: start + minutes * 60_000),
                                                               movementType: .walking)),
                                media: [icons["motion-walking"]!], start: start, end: start + minutes * 60_000, day))
            }
        }
        // Music most days.
        if chance(day.context == .home || day.context == .arrival ? 0.85 : 0.5) {
            for _ in 0..<g.int(1...4) { out.append(song(ms(day, between(day.awakeFrom, day.awakeTo)), day)) }
        }
        // A chapter before bed.
        if let night = day.night, night.start < 21.6, chance(day.context == .home ? 0.3 : 0.1) {
            out.append(chapterItem(ms(day, awake(day, max(night.start, 21.0), 22.4)), day))
        }
        // A call with someone the person knows.
        if day.context == .home, let night = day.night, night.start < 21, chance(0.07) {
            let known = introDates.indices.filter { introDates[$0] < day.date }
            if !known.isEmpty { out.append(contact(pick(known), ms(day, between(max(night.start, 19.5), 21.8)), day)) }
        }
        // Reflection prompts every few days.
        if day.date >= nextReflection, day.awakeTo - day.awakeFrom > 3 {
            nextReflection = day.date + g.int(2...5)
            let (prompt, color) = Generator.prompts[g.int(0...Generator.prompts.count - 1)]
            let hour = day.awakeTo > 21.5 && chance(0.5) ? awake(day, 21.0, 21.5) : awake(day, day.awakeFrom, day.awakeFrom + 1)
            out.append(item(.reflection(Reflection(prompt: prompt, color: color)), start: ms(day, hour), day))
        }
        // The day's mood, most evenings.
        if day.awakeTo > 21.5, chance(0.8) {
            baseline = baseline * 0.85 + g.double(-0.2...0.5) * 0.15
            var valence = baseline + g.double(-0.45...0.45)
            var associations: [StateOfMindAssociation] = []
            if day.context != .home && day.context != .departure {
                valence += 0.25
                associations.append(.travel)
            }
            if day.weekend && day.context == .home {
                valence += 0.12
                associations.append(chance(0.5) ? .family : .hobbies)
            }
            if sawFriends {
                valence += 0.15
                associations.append(.friends)
            }
            if workedOut {
                valence += 0.1
                associations.append(.fitness)
            }
            if day.workday {
                if Civil.weekday(day.date) == 1 { valence -= 0.1 }
                associations.insert(valence < 0 ? .work : (chance(0.5) ? .work : .tasks), at: 0)
            }
            if associations.isEmpty || chance(0.3) { associations.append(pick([.selfCare, .weather, .health, .partner, .community])) }
            valence = max(-1, min(1, valence))
            out.append(mood(ms(day, awake(day, 21.5, 22.8)), day, kind: .dailyMood, valence: valence,
                            associations: Array(associations.prefix(3))))
        }
        // Screenshots.
        for (hour, event) in day.screenshots where shotEvents[event].count > 0 {
            var t = ms(day, hour)
            for _ in 0..<shotEvents[event].count {
                out.append(screenshot(t, day))
                t += Int64(g.int(4_000...90_000))
            }
        }
        // A scanning evening: old prints, dated when they were scanned.
        if let scan = day.scan, scanSessions[scan.session].count > 0 {
            var t = ms(day, scan.hour)
            for _ in 0..<scanSessions[scan.session].count {
                out.append(scanned(t, day))
                t += Int64(g.int(40_000...120_000))
            }
        }
        // The trip's places, on its last day.
        if case .tripEnd = day.context, !tripStops.isEmpty {
            out.append(item(.locationGroup(LocationGroup(locations: tripStops.map(\.location))),
                            start: tripStops[0].start, end: tripStops.map(\.end).max()!, day))
        }
        // The week's workouts, on Sunday evening.
        if Civil.weekday(day.date) == 0, day.lastOfDate {
            if weekWorkouts.count >= 2 {
                let details = weekWorkouts.compactMap(\.details)
                let energy = details.compactMap { $0.activeEnergyBurned?.value }.reduce(0, +)
                let seconds = details.compactMap(\.date).map { Double($0.endUnixMs - $0.startUnixMs) / 1000 }
                let rates: [Double] = details.map { $0.averageHeartRate?.value ?? 0 }
                var beats = 0.0
                for (rate, duration) in zip(rates, seconds) { beats += rate * duration }
                let heart = beats / max(1, seconds.reduce(0, +))
                let icon = icons["workout-group"]!
                out.append(item(.workoutGroup(WorkoutGroup(workouts: weekWorkouts, icon: icon.media.media(slot: 0),
                                                            durationS: seconds.reduce(0, +),
                                                            activeEnergyBurned: Quantity(value: energy.rounded(), unit: "kcal"),
                                                            averageHeartRate: Quantity(value: heart.rounded(), unit: "count/min"))),
                                media: [icon], start: details.compactMap { $0.date?.startUnixMs }.min()!,
                                end: details.compactMap { $0.date?.endUnixMs }.max()!, day))
            }
            weekWorkouts = []
        }
    }

    mutating func location(_ place: Place, start: Int64, end: Int64, _ day: Day) -> GeneratedItem {
        let altitude = place.scene == .mountain ? 420.0 : 30.0
        let loc = Location(place: place.name, city: place.city,
                           location: GeoLocation(latitude: place.latitude, longitude: place.longitude, altitudeM: altitude,
                                                 horizontalAccuracyM: 15, timestamp: Timestamp(unixMs: start)),
                           date: Timestamp(unixMs: start), isWorkLocation: place.isWork)
        return item(.location(loc), start: start, end: end, day,
                    coordinate: Coordinate(latitude: place.latitude, longitude: place.longitude))
    }

    /// Where in a place a photo was taken: close by in a café, anywhere in a park or on a trail.
    mutating func near(_ place: Place) -> Coordinate {
        let radius = switch place.scene {
        case .park, .river: 0.0022
        case .mountain: 0.006
        case .city: 0.0012
        case .food, .indoor: 0.0002
        }
        let lat = place.latitude + g.double(-radius...radius)
        let lon = place.longitude + g.double(-radius...radius) / max(0.2, cos(place.latitude * .pi / 180))
        return Coordinate(latitude: (lat * 1e6).rounded() / 1e6, longitude: (lon * 1e6).rounded() / 1e6)
    }

    /// A cluster's photos: a few moments of several shots each within a few minutes, some Live
    /// Photos and videos, and maybe a burst.
    mutating func shoot(_ index: Int, _ place: Place, from: Int64, to: Int64, _ day: Day, into out: inout [GeneratedItem]) {
        let cluster = camera[index]
        guard cluster.count > 0 else { return }
        let last = max(from, to - 60_000)
        let moments = max(1, Int(Double(cluster.count).squareRoot().rounded()))
        let centers = (0..<moments).map { _ in from + Int64(g.double(0...1) * Double(max(0, last - from - 240_000))) }
        var times: [Int64] = []
        times.reserveCapacity(cluster.count)
        for _ in 0..<(cluster.count - cluster.burst) {
            times.append(min(last, centers[g.int(0...moments - 1)] + Int64(g.int(0...240_000))))
        }
        times.sort()
        for t in times {
            let r = g.double(0...1)
            let gps = cluster.gps && chance(0.98)
            out.append(cameraItem(r < 0.0425 ? .video : r < 0.127 ? .live : .still, place, t, day, gps: gps))
        }
        if cluster.burst > 0 {
            let t0 = centers[0] + Int64(g.int(0...60_000))
            let gps = cluster.gps
            for frame in 0..<cluster.burst {
                out.append(cameraItem(.still, place, t0 + Int64(frame * 1_900 / cluster.burst), day, gps: gps,
                                      notAMemory: frame == 0 ? nil : .burst))
            }
        }
    }

    enum CameraKind { case still, live, video }

    /// "scale/YYYY/MM/" and the local date and time of an instant.
    func folder(_ ms: Int64, _ day: Day) -> (folder: String, localSeconds: Int64, hour: Double) {
        let local = Civil.floorDiv(ms, 1000) + Int64(day.offset)
        let date = Civil.date(Int(Civil.floorDiv(local, 86_400)))
        let hour = Double(local - Civil.floorDiv(local, 86_400) * 86_400) / 3600
        return ("scale/\(date.year)/" + Civil.digits(date.month, 2) + "/", local, hour)
    }

    mutating func cameraItem(_ kind: CameraKind, _ place: Place, _ ms: Int64, _ day: Day, gps: Bool,
                             notAMemory: NotAMemory? = nil) -> GeneratedItem {
        shotNumber += 1
        let (folder, local, hour) = self.folder(ms, day)
        let name = "IMG_" + Civil.digits(shotNumber, 6)
        let coordinate = gps ? near(place) : nil
        let scene = ScalePools.scene(place.scene), light = ScalePools.light(hour)
        if kind == .video {
            let clip = pools.videos[scene][light]
            let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".y4m", contentType: Y4M.contentType,
                                                             filename: name + ".y4m", byteCount: UInt64(clip.bytes.count),
                                                             pixelWidth: clip.width, pixelHeight: clip.height), bytes: clip.bytes)
            return item(.video(Video(url: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file],
                        start: ms, end: ms + clip.durationMs, day, coordinate: coordinate)
        }
        let still = pools.stills[scene][light][g.int(0...ScalePools.variants - 1)]
        let exif = Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local),
                             gps: coordinate.map { Exif.GPS(latitude: $0.latitude, longitude: $0.longitude) })
        let bytes = still.png(exif: exif)
        let image = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                          filename: name + ".png", byteCount: UInt64(bytes.count),
                                                          pixelWidth: still.width, pixelHeight: still.height), bytes: bytes)
        if kind == .live {
            let clip = pools.live[scene][light]
            let video = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".y4m", contentType: Y4M.contentType,
                                                              filename: name + ".y4m", byteCount: UInt64(clip.bytes.count),
                                                              pixelWidth: clip.width, pixelHeight: clip.height), bytes: clip.bytes)
            return item(.livePhoto(LivePhoto(image: image.media.media(slot: 0), video: video.media.media(slot: 1),
                                             date: Timestamp(unixMs: ms))),
                        media: [image, video], start: ms, day, coordinate: coordinate)
        }
        return item(.photo(Photo(photo: image.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [image], start: ms, day,
                    coordinate: coordinate, notAMemory: notAMemory)
    }

    /// A screenshot: no camera, no place; the file is small but the size recorded is the phone's screen.
    mutating func screenshot(_ ms: Int64, _ day: Day) -> GeneratedItem {
        shotNumber += 1
        let (folder, local, _) = self.folder(ms, day)
        let name = "IMG_" + Civil.digits(shotNumber, 6)
        let year = Civil.date(day.date).year
        let (width, height): (UInt32, UInt32) = year < 2018 ? (750, 1334) : year < 2021 ? (1125, 2436) : year < 2024 ? (1170, 2532) : (1179, 2556)
        let bytes = pools.screens[g.int(0...pools.screens.count - 1)].png(exif: Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local), gps: nil))
        let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                         filename: name + ".png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: width, pixelHeight: height), bytes: bytes)
        return item(.photo(Photo(photo: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file], start: ms, day,
                    notAMemory: .screenshot)
    }

    /// A scanned print, dated when it was scanned.
    mutating func scanned(_ ms: Int64, _ day: Day) -> GeneratedItem {
        scanNumber += 1
        let (folder, local, _) = self.folder(ms, day)
        let name = "SCAN_" + Civil.digits(scanNumber, 6)
        let still = pools.scans[g.int(0...pools.scans.count - 1)]
        let bytes = still.png(exif: Exif.make(dateTimeOriginal: Civil.exifDate(localSeconds: local), gps: nil))
        let file = GeneratedItem.File(media: StoredMedia(relativePath: folder + name + ".png", contentType: "image/png",
                                                         filename: name + ".png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: still.width, pixelHeight: still.height), bytes: bytes)
        return item(.photo(Photo(photo: file.media.media(slot: 0), date: Timestamp(unixMs: ms))), media: [file], start: ms, day,
                    notAMemory: .scan)
    }

    mutating func contact(_ index: Int, _ ms: Int64, _ day: Day) -> GeneratedItem {
        let file = contactFiles[index]
        return item(.contact(Contact(name: ScaleCast.contacts[index].0, photo: file?.media.media(slot: 0))),
                    media: file.map { [$0] } ?? [], start: ms, day)
    }

    mutating func song(_ ms: Int64, _ day: Day) -> GeneratedItem {
        // Favourites more often: the earlier albums of the catalogue.
        let albumIndex = min(ScaleCast.albums.count - 1, Int(pow(g.double(0...1), 1.6) * Double(ScaleCast.albums.count)))
        let (album, artist, songs) = ScaleCast.albums[albumIndex]
        let art = artwork[albumIndex]
        return item(.song(Song(song: pick(songs), artist: artist, album: album, artwork: art.media.media(slot: 0), date: Timestamp(unixMs: ms))),
                    media: [art], start: ms, end: ms + Int64(g.int(150...280)) * 1000, day)
    }

    mutating func podcast(_ show: Int, _ ms: Int64, _ day: Day) -> GeneratedItem {
        let (name, _, topics) = ScaleCast.podcasts[show]
        let number = episodes[show]
        episodes[show] += 1
        let art = showArtwork[show]
        return item(.podcast(Podcast(episode: "Ep. \(number): " + topics[number % topics.count], show: name,
                                     artwork: art.media.media(slot: 0), date: Timestamp(unixMs: ms))),
                    media: [art], start: ms, end: ms + Int64(g.int(25...45)) * 60_000, day)
    }

    mutating func chapterItem(_ ms: Int64, _ day: Day) -> GeneratedItem {
        let (title, author, chapters) = ScaleCast.books[book]
        let number = chapter
        chapter += 1
        if chapter > chapters {
            chapter = 1
            book = (book + 1) % ScaleCast.books.count
        }
        let icon = icons["app-inkwell"]!
        return item(.genericMedia(GenericMedia(title: "Chapter \(number)", artist: author, album: title, date: Timestamp(unixMs: ms),
                                               appIcon: icon.media.media(slot: 0))),
                    media: [icon], start: ms, end: ms + Int64(g.int(15...40)) * 60_000, day,
                    source: ScaleCast.readingApp, externalID: "inkwell-\(ScaleCast.slug(title))-\(number)")
    }

    /// A mood whose labels agree with how it felt.
    mutating func mood(_ ms: Int64, _ day: Day, kind: StateOfMindKind, valence: Double,
                       associations: [StateOfMindAssociation]) -> GeneratedItem {
        let choices: [StateOfMindLabel] = switch valence {
        case 0.6...: [.joyful, .happy, .grateful, .excited, .amazed, .proud, .passionate]
        case 0.2..<0.6: [.content, .happy, .grateful, .peaceful, .satisfied, .hopeful, .calm, .confident]
        case -0.2..<0.2: [.calm, .indifferent, .peaceful, .content]
        case -0.6 ..< -0.2: [.stressed, .drained, .worried, .frustrated, .irritated, .anxious, .annoyed]
        default: [.overwhelmed, .sad, .discouraged, .lonely, .disappointed, .hopeless]
        }
        var labels: [StateOfMindLabel] = []
        for _ in 0..<g.int(1...3) {
            let label = pick(choices)
            if !labels.contains(label) { labels.append(label) }
        }
        let classification = StateOfMindStyle.classification(valence: valence)
        let backgrounds = StateOfMindStyle.backgrounds(valence: valence)
        let icon = icons[valence >= 0 ? "mood-pleasant" : "mood-unpleasant"]!
        var unique: [StateOfMindAssociation] = []
        for association in associations where !unique.contains(association) { unique.append(association) }
        let state = StateOfMind(
            state: StateOfMindSample(kind: kind, valence: (valence * 100).rounded() / 100, valenceClassification: classification,
                                     labels: labels, associations: unique, date: Timestamp(unixMs: ms)),
            icon: icon.media.media(slot: 0), lightBackground: backgrounds.light, darkBackground: backgrounds.dark)
        return item(.stateOfMind(state), media: [icon], start: ms, day)
    }

    /// A workout: its details and route, the steps it took, sometimes how it felt; remembered for
    /// the week's summary.
    mutating func workout(_ session: ScalePlan.Session, _ day: Day, into out: inout [GeneratedItem]) {
        let start = ms(day, session.start), end = start + Int64(session.minutes * 60_000)
        let (type, name, icon, speed, kcal, heart): (UInt32, String, String, ClosedRange<Double>, Double, ClosedRange<Int>) =
            switch session.sport {
            case .run: (37, "Running", "workout-running", 160...200, 11.2, 140...162)
            case .walk: (52, "Walking", "workout-walking", 78...95, 4.6, 92...115)
            case .ride: (13, "Cycling", "workout-cycling", 280...400, 9.0, 118...145)
            case .hike: (24, "Hiking", "workout-hiking", 42...62, 7.2, 108...135)
            case .yoga: (57, "Yoga", "workout-yoga", 0...0, 3.4, 84...104)
            }
        let distance = (session.minutes * g.double(speed)).rounded()
        var route: [GeoLocation] = []
        if let place = session.place {
            // A loop of the right length around the place, a little wobbly.
            let points = g.int(20...40)
            let radius = distance / (2 * .pi) / 111_000
            let squeeze = max(0.2, cos(place.latitude * .pi / 180))
            let phase = g.double(0...(2 * .pi))
            for i in 0..<points {
                let t = Double(i) / Double(points - 1)
                let angle = phase + t * 2 * .pi
                let wobble = 1 + g.double(-0.08...0.08)
                let climb = session.sport == .hike ? 300 * sin(t * .pi) : 8 * sin(t * 2 * .pi)
                route.append(GeoLocation(latitude: ((place.latitude + radius * wobble * (sin(angle) - sin(phase))) * 1e6).rounded() / 1e6,
                                         longitude: ((place.longitude + radius * wobble * (cos(angle) - cos(phase)) / squeeze) * 1e6).rounded() / 1e6,
                                         altitudeM: ((place.scene == .mountain ? 300 : 30) + climb).rounded(), horizontalAccuracyM: 5,
                                         timestamp: Timestamp(unixMs: start + Int64(t * Double(end - start)))))
            }
        }
        let iconFile = icons[icon]!
        let workout = Workout(details: WorkoutDetails(activityType: type,
                                                      activeEnergyBurned: Quantity(value: (session.minutes * kcal * g.double(0.9...1.1)).rounded(), unit: "kcal"),
                                                      distance: session.sport == .yoga ? nil : Quantity(value: distance, unit: "m"),
                                                      averageHeartRate: Quantity(value: Double(g.int(heart)), unit: "count/min"),
                                                      date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                      localizedName: name),
                              icon: iconFile.media.media(slot: 0), route: route)
        weekWorkouts.append(workout)
        out.append(item(.workout(workout), media: [iconFile], start: start, end: end, day,
                        coordinate: session.place.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }))
        if session.sport == .run || session.sport == .walk || session.sport == .hike {
            let motion = icons[session.sport == .run ? "motion-running" : "motion-walking"]!
            let stride = session.sport == .run ? 1.05 : 0.75
            out.append(item(.motionActivity(MotionActivity(icon: motion.media.media(slot: 0), steps: Int64(distance / stride),
                                                           date: PickerdWire.DateInterval(startUnixMs: start, endUnixMs: end),
                                                           movementType: session.sport == .run ? .running : .walking)),
                            media: [motion], start: start, end: end, day))
        }
        if chance(0.35) {
            let valence = chance(0.92) ? between(0.35, 0.95) : between(-0.4, 0.1)
            out.append(mood(end + Int64(g.int(3...20)) * 60_000, day, kind: .momentaryEmotion, valence: valence,
                            associations: [.fitness, chance(0.5) ? .health : .selfCare]))
        }
    }
}
