import Foundation
public import PickerdStore
import PickerdMoments
import PickerdPlaces
import PickerdWire

/// Turns what an export held into library items and writes them, one transaction per file, without
/// doubling what another export brought already:
/// - a workout's id comes from its activity and its start minute, so the same run from a FIT file and
///   from a GPX export is one item (a neighbouring minute counts too: exports round differently), and
///   the copy with the richer route is kept, under the name the person gave it in either copy
///   ("Sunday long run to Treptower Park" over an app's "Morning Run": ``WorkoutNames``) and with
///   the device's own distance when either copy has it (a TCX or FIT file's, over one measured
///   along a GPX's points);
/// - a visit that overlaps one already imported by at least half of the shorter, within 200 m, is the
///   same visit; the one with a place name is kept (Semantic history over a visit found in raw points).
public struct ExportItems: Sendable {
    /// The store.
    public let store: Store
    /// The most route points kept per workout (evenly thinned beyond): enough for a sketch.
    package static let maximumRoutePoints = 1_000

    /// How a contact's photo is read back (pickerd's confined readers).
    public let reading: any FileReading

    /// Creates the writer.
    /// - Parameters:
    ///   - store: the store.
    ///   - reading: how a contact's photo is read back to check it (pickerd passes its confined readers).
    public init(store: Store, reading: any FileReading) {
        self.store = store
        self.reading = reading
    }

    /// What writing one file's data did.
    public struct Written: Sendable, Hashable {
        /// Items added or replaced.
        public var added = 0
        /// Workouts and visits already in the library.
        public var duplicates = 0
        /// When the items written or replaced happen: the days the engine builds again.
        public var touched: [ClosedRange<Int64>] = []
    }

    /// Writes a file's workouts and visits in one transaction.
    /// - Parameters:
    ///   - data: what the file held.
    ///   - listens: its listens picked already (``pick(_:)``), or `nil` to pick them here.
    /// - Returns: what was written.
    /// - Throws: ``StoreError``; then nothing of the file was written.
    public func write(_ data: ImportedData, listens: PickedListens? = nil) throws(StoreError) -> Written {
        var written = Written()
        var changes = SourceChanges()
        for var workout in data.workouts {
            let candidates = (-1...1).map { Self.workoutID(workout, minuteOffset: $0) }
            // The copy already imported is the one that starts nearest: with two workouts in
            // neighbouring minutes (gpxpy's cerknicko-jezero.gpx: a 13 s track, then one 46 s later),
            // the other one is not this one's copy, and a second import must not replace it.
            let existing = try store.items(candidates).min { abs($0.startMs - workout.startMs) < abs($1.startMs - workout.startMs) }
            let existingName = existing.flatMap(Self.workoutName) ?? ""
            let existingDistance = existing.flatMap(Self.devicesDistance)
            if let existing, Self.routeCount(existing) >= workout.route.count {
                written.duplicates += 1
                // The copy kept takes this one's name when only this one has the person's own, and
                // its distance when only this one has the device's.
                let name = workout.name.flatMap { WorkoutNames.rank($0) > WorkoutNames.rank(existingName) ? $0 : nil }
                let distance = workout.distanceIsDevices && existingDistance == nil ? workout.distanceMeters : nil
                if name != nil || distance != nil, let updated = Self.updated(existing, name: name, distanceMeters: distance) {
                    changes.items.append(updated)
                }
                continue
            }
            if let existing {
                written.duplicates += 1
                changes.removedItems.append(existing.id)
                changes.removedItems.append(Self.workoutPlaceID(existing.id))
                if WorkoutNames.rank(existingName) > WorkoutNames.rank(workout.name ?? "") { workout.name = existingName }
                if !workout.distanceIsDevices, let existingDistance {
                    workout.distanceMeters = existingDistance
                    workout.distanceIsDevices = true
                }
            }
            changes.items += Self.items(for: workout)
        }
        let known = try knownVisits(around: data.visits)
        var taken: [(start: Int64, end: Int64, coordinate: Coordinate, named: Bool)] = known.map { ($0.startMs, $0.endMs, $0.coordinate!, Self.isNamed($0)) }
        for visit in data.visits {
            let named = visit.placeName != nil || visit.semantic != nil
            if let index = taken.firstIndex(where: { Self.sameVisit($0.start, $0.end, $0.coordinate, visit) }) {
                written.duplicates += 1
                // A named visit replaces a nameless one found in raw points; otherwise the first stays.
                guard named, !taken[index].named, let old = known.first(where: { $0.startMs == taken[index].start && $0.coordinate == taken[index].coordinate })
                else { continue }
                changes.removedItems.append(old.id)
                taken[index].named = true
            } else {
                taken.append((visit.startMs, visit.endMs, visit.coordinate, named))
            }
            changes.items.append(item(for: visit))
        }
        // Day groups already there (the same days imported before) are left as they are.
        let groups = Self.dayGroups(data.visits)
        let existing = Set(try store.items(groups.map(\.id)).map(\.id))
        changes.items += groups.filter { !existing.contains($0.id) }
        try addListening(data, listens: listens, to: &changes, written: &written)
        try addMotion(data, to: &changes, written: &written)
        written.added = changes.items.count
        written.touched = try store.apply(changes)
        try writePeople(data, written: &written)
        return written
    }

    /// A LocationGroup for each day with two or more named places away from home and work ("the
    /// day's places", as a trip shows them), in the person's time zone. Its id comes from the day
    /// and its places, so importing the same days again replaces it.
    static func dayGroups(_ visits: [ImportedVisit], timeZone: TimeZone = .current) -> [LibraryItem] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let outings = visits.filter { $0.placeName != nil && $0.semantic == nil }
        let byDay = Dictionary(grouping: outings) { calendar.startOfDay(for: Date(timeIntervalSince1970: Double($0.startMs) / 1000)) }
        return byDay.keys.sorted().compactMap { day -> LibraryItem? in
            let visits = byDay[day]!.sorted { $0.startMs < $1.startMs }
            var seen = Set<String>()
            let distinct = visits.filter { seen.insert($0.placeID ?? $0.placeName!).inserted }
            guard distinct.count >= 2 else { return nil }
            let locations = distinct.map { visit in
                Location(place: visit.placeName!,
                         city: visit.address.flatMap { Gazetteer.shared.city(fromAddress: $0, latitude: visit.coordinate.latitude,
                                                                             longitude: visit.coordinate.longitude) }
                             ?? Gazetteer.shared.name(latitude: visit.coordinate.latitude, longitude: visit.coordinate.longitude)?.city.name ?? "",
                         location: GeoLocation(latitude: visit.coordinate.latitude, longitude: visit.coordinate.longitude),
                         date: Timestamp(unixMs: visit.startMs))
            }
            let key = distinct.map { $0.placeID ?? $0.placeName! }.joined(separator: "|")
            return LibraryItem(id: SuggestionBuilder.stableID("import|group|\(Int64(day.timeIntervalSince1970))|\(key)"),
                               asset: .locationGroup(LocationGroup(locations: locations)), startMs: visits[0].startMs,
                               endMs: visits.map(\.endMs).max()!, source: "import", coordinate: distinct[0].coordinate)
        }
    }

    /// The library items one workout becomes: the Workout with its route, and for runs, walks and
    /// hikes with a step count, their MotionActivity.
    static func items(for workout: ImportedWorkout) -> [LibraryItem] {
        let stride = max(1, (workout.route.count + Self.maximumRoutePoints - 1) / Self.maximumRoutePoints)
        let route = Swift.stride(from: 0, to: workout.route.count, by: stride).map { workout.route[$0] }.map { p in
            GeoLocation(latitude: p.latitude, longitude: p.longitude, altitudeM: p.elevation,
                        horizontalAccuracyM: p.accuracy, timestamp: p.timeMs.map { Timestamp(unixMs: $0) })
        }
        let details = WorkoutDetails(
            activityType: workout.activityType,
            activeEnergyBurned: workout.energyKilocalories.map { Quantity(value: $0, unit: "kcal") },
            distance: workout.distanceMeters.map { Quantity(value: $0, unit: "m") },
            averageHeartRate: workout.averageHeartRate.map { Quantity(value: $0, unit: "count/min") },
            date: PickerdWire.DateInterval(startUnixMs: workout.startMs, endUnixMs: workout.endMs),
            localizedName: workout.name ?? "")
        let id = Self.workoutID(workout, minuteOffset: 0)
        let first = workout.route.first.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        var items = [LibraryItem(id: id, asset: .workout(Workout(details: details, route: route)), startMs: workout.startMs, endMs: workout.endMs,
                                 source: "import", externalID: workout.format, utcOffsetSeconds: offset(at: first, workout.startMs), coordinate: first)]
        let movement: MovementType? = switch workout.activityType {
        case 37: .running
        case 52, 24: .walking
        default: nil
        }
        if let place = workoutPlace(workout, id: id) { items.append(place) }
        if let movement, let steps = workout.steps, steps > 0 {
            items.append(LibraryItem(id: SuggestionBuilder.stableID("import|motion|\(id.uuidString)"),
                                     asset: .motionActivity(MotionActivity(steps: Int64(steps), date: details.date, movementType: movement)),
                                     startMs: workout.startMs, endMs: workout.endMs, source: "import", externalID: workout.format))
        }
        return items
    }

    /// Where a workout went, as a Location item of its own (``SuggestionBuilder/workoutPlaceTag``):
    /// the route's point halfway through, named by the gazetteer ("Berlin", "near Buckow"), over the
    /// workout's time. It is what lets a title say where a run away from home was ("Lunch run in
    /// Berlin") while keeping the rule that only a kept place names one: the person can leave it
    /// out, and with Significant Locations off it is never shown. `nil` without a route or a name.
    static func workoutPlace(_ workout: ImportedWorkout, id: UUID) -> LibraryItem? {
        guard let (named, c) = routePlace(workout.route) else { return nil }
        let location = Location(place: named.place, city: named.city.name, location: GeoLocation(latitude: c.latitude, longitude: c.longitude),
                                date: Timestamp(unixMs: workout.startMs))
        return LibraryItem(id: workoutPlaceID(id), asset: .location(location), startMs: workout.startMs, endMs: workout.endMs,
                           source: "import", externalID: SuggestionBuilder.workoutPlaceTag, utcOffsetSeconds: offset(at: c, workout.startMs),
                           coordinate: c)
    }

    /// The place most of a route lies in, and its point there nearest the middle of that part:
    /// the route cut into at most ``routeSamples`` stretches, each named by the gazetteer at its
    /// middle and weighing as much as it is long (a pause, many points in one spot, weighs
    /// nothing; a stretch at most three times the median moving one, so a GPS glitch far away
    /// weighs little); the name with the most length wins. An out-and-back run along a river from home
    /// is named where most of it ran, not where it turned; a loop round a park, by the part of
    /// town most of the loop is in. `nil` for no route or no name.
    static func routePlace(_ route: [LocationPoint]) -> (PlaceName, Coordinate)? {
        guard let first = route.first else { return nil }
        let step = max(1, (route.count + routeSamples - 1) / routeSamples)
        var points = Swift.stride(from: 0, to: route.count, by: step).map { Coordinate(latitude: route[$0].latitude, longitude: route[$0].longitude) }
        if let last = route.last, route.count > 1, (route.count - 1) % step != 0 { points.append(Coordinate(latitude: last.latitude, longitude: last.longitude)) }
        guard points.count > 1 else {
            let c = Coordinate(latitude: first.latitude, longitude: first.longitude)
            return Gazetteer.shared.name(latitude: c.latitude, longitude: c.longitude).map { ($0, c) }
        }
        let stretches = zip(points, points.dropFirst()).map { a, b in (a, b, a.distance(to: b)) }
        // A stretch weighs at most three times the median moving one: a GPS fix hundreds of
        // kilometres off (a cold start, a bad point) makes two long stretches, which must not name
        // the run after where the glitch put it.
        let moving = stretches.map(\.2).filter { $0 > 0 }.sorted()
        let cap = moving.isEmpty ? 0 : 3 * moving[moving.count / 2]
        var parts: [String: (name: PlaceName, metres: Double, points: [Coordinate])] = [:]
        for (a, b, length) in stretches {
            // Halfway, the short way round (a stretch across the antimeridian).
            var east = b.longitude
            if east - a.longitude > 180 { east -= 360 } else if a.longitude - east > 180 { east += 360 }
            var longitude = (a.longitude + east) / 2
            if longitude < -180 { longitude += 360 } else if longitude >= 180 { longitude -= 360 }
            let middle = Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: longitude)
            guard let named = Gazetteer.shared.name(latitude: middle.latitude, longitude: middle.longitude) else { continue }
            parts[named.place, default: (named, 0, [])].metres += min(length, cap)
            parts[named.place, default: (named, 0, [])].points.append(middle)
        }
        // Most length; on a tie (a route standing still), the name first in order.
        guard let most = parts.max(by: { ($0.value.metres, $1.key) < ($1.value.metres, $0.key) })?.value else { return nil }
        let centre = Coordinate(latitude: most.points.map(\.latitude).reduce(0, +) / Double(most.points.count),
                                longitude: most.points.map(\.longitude).reduce(0, +) / Double(most.points.count))
        return (most.name, most.points.min { $0.distance(to: centre) < $1.distance(to: centre) }!)
    }

    /// How many stretches ``routePlace(_:)`` names a route by: enough for the parts of town a run
    /// passes through, few enough that naming a long import's thousands of tracks stays quick.
    static let routeSamples = 64

    /// The id of a workout's place item, from the workout's.
    static func workoutPlaceID(_ workout: UUID) -> UUID { SuggestionBuilder.stableID("import|workout-place|\(workout.uuidString)") }

    /// The Location item a visit becomes, named by the person's own data first: the export's name
    /// for the place, its label (Home, Work), and the city its address names; where the export gives
    /// none, by the offline gazetteer ("Porto", "near Arcos de Valdevez"), never by coordinates. Its
    /// local time is the place's time zone's.
    func item(for visit: ImportedVisit) -> LibraryItem {
        let c = visit.coordinate
        let named = Gazetteer.shared.name(latitude: c.latitude, longitude: c.longitude)
        let place = visit.placeName ?? visit.semantic.map { $0 == "home" ? "Home" : $0 == "work" ? "Work" : $0.capitalized }
            ?? named?.place ?? Self.coordinateName(c)
        let city = visit.address.flatMap { Gazetteer.shared.city(fromAddress: $0, latitude: c.latitude, longitude: c.longitude) }
            ?? named?.city.name ?? ""
        let location = Location(place: place, city: city, location: GeoLocation(latitude: c.latitude, longitude: c.longitude),
                                date: Timestamp(unixMs: visit.startMs), isWorkLocation: visit.semantic == "work" ? true : nil)
        let key = visit.placeID ?? Self.coordinateName(c)
        return LibraryItem(id: SuggestionBuilder.stableID("import|visit|\(visit.startMs / 300_000)|\(key)"), asset: .location(location),
                           startMs: visit.startMs, endMs: max(visit.startMs, visit.endMs), source: "import", externalID: visit.placeID ?? "",
                           utcOffsetSeconds: Self.offset(at: c, visit.startMs), coordinate: c)
    }

    /// The offset from UTC of local time at a place and moment, from the place's time zone (the
    /// gazetteer's): an export's times are UTC, and a trip abroad is lived in the local time.
    static func offset(at c: Coordinate?, _ timeMs: Int64) -> Int32? {
        guard let c, let zone = Gazetteer.shared.timeZone(latitude: c.latitude, longitude: c.longitude) else { return nil }
        return Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(timeMs) / 1000)))
    }

    /// "40.783° N, 73.965° W": a place with no name, to the nearest 100 m or so.
    public static func coordinateName(_ c: Coordinate) -> String {
        String(format: "%.3f° %@, %.3f° %@", abs(c.latitude), c.latitude >= 0 ? "N" : "S", abs(c.longitude), c.longitude >= 0 ? "E" : "W")
    }

    static func workoutID(_ w: ImportedWorkout, minuteOffset: Int64) -> UUID {
        SuggestionBuilder.stableID("import|workout|\(w.activityType)|\(w.startMs / 60_000 + minuteOffset)")
    }

    /// A workout item's name (`localizedName`), `nil` for another item.
    static func workoutName(_ item: LibraryItem) -> String? {
        if case .workout(let w) = item.asset { return w.details?.localizedName }
        return nil
    }

    /// A workout item's distance when it is the device's own: one stored from a TCX or FIT file or
    /// Apple Health's export (format `apple-health`), whose readers take the device's summary
    /// whenever the file has one; a GPX's is taken as measured along its points, as almost every
    /// GPX's is.
    static func devicesDistance(_ item: LibraryItem) -> Double? {
        guard ["tcx", "fit", "apple-health"].contains(item.externalID), case .workout(let w) = item.asset else { return nil }
        return w.details?.distance?.value
    }

    /// A workout item with another name or distance, everything else as it was.
    static func updated(_ item: LibraryItem, name: String?, distanceMeters: Double?) -> LibraryItem? {
        guard case .workout(var w) = item.asset, w.details != nil else { return nil }
        if let name { w.details?.localizedName = name }
        if let distanceMeters { w.details?.distance = Quantity(value: distanceMeters, unit: "m") }
        var updated = item
        updated.asset = .workout(w)
        return updated
    }

    static func routeCount(_ item: LibraryItem) -> Int {
        if case .workout(let w) = item.asset { return w.route.count }
        return 0
    }

    /// Whether a visit's place was named by the person's own data, not by the gazetteer or its
    /// coordinates (a visit found in raw points).
    static func isNamed(_ item: LibraryItem) -> Bool {
        guard case .location(let l) = item.asset else { return false }
        if l.place.hasSuffix("° W") || l.place.hasSuffix("° E") { return false }
        guard let c = item.coordinate else { return true }
        return l.place != Gazetteer.shared.name(latitude: c.latitude, longitude: c.longitude)?.place
    }

    static func sameVisit(_ start: Int64, _ end: Int64, _ coordinate: Coordinate, _ visit: ImportedVisit) -> Bool {
        let overlap = min(end, visit.endMs) - max(start, visit.startMs)
        let shorter = max(1, min(end - start, visit.endMs - visit.startMs))
        return overlap * 2 >= shorter && coordinate.distance(to: visit.coordinate) <= 200
    }

    private func knownVisits(around visits: [ImportedVisit]) throws(StoreError) -> [LibraryItem] {
        guard let first = visits.map(\.startMs).min(), let last = visits.map(\.endMs).max() else { return [] }
        return try store.items(startingFrom: first - 86_400_000, to: last)
            .filter { $0.kind == .location && $0.source == "import" && $0.coordinate != nil && $0.externalID != SuggestionBuilder.workoutPlaceTag }
    }
}
