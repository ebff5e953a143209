import Foundation
public import PickerdStore
public import PickerdWire
import PickerdPlaces

extension SuggestionBuilder {
    ///
    /// The title says nothing the items do not: places, cities, "home" and being away come only from
    /// `items`' own Location and LocationGroup items, people only from its Contact items. The kind
    /// of moment chooses the wording, never the facts: a trip whose places were all left out is
    /// titled by its days ("Friday to Sunday"), not "3 days away".
    /// - Parameters:
    ///   - kind: the kind of moment.
    ///   - items: what the person will see of it, or what they kept of it: only items of categories
    ///     their settings allow (``lists(suggestions:items:enabled:)`` and a release filter them first).
    /// - Returns: a short title, such as "Morning run in Riverside Park".
    public func title(_ kind: SuggestionKind, _ items: [LibraryItem]) -> String {
        guard var first = items.first else { return "" }
        // The part of the day is the moment's own: the workout's start, not the night's stay it
        // began from; the photos at home, not the stay's start.
        switch kind {
        case .workout: first = items.first { $0.kind == .workout } ?? first
        case .timeAtHome: first = items.first { HomeMoments.content.contains($0.kind) } ?? first
        // A mood that joined the moment (``JoinedMoods``) may come first in time: the day's.
        default: first = items.first { $0.kind != .stateOfMind } ?? first
        }
        let part = time.partOfDay(first)
        let located = items.lazy.compactMap { item -> Location? in
            if case .location(let l) = item.asset, !l.place.isEmpty { return l }
            return nil
        }.first
        let place = located.map { Self.located($0.place, city: $0.city) }
        let people = items.compactMap { item -> String? in
            if case .contact(let c) = item.asset { return c.name.split(separator: " ").first.map(String.init) }
            return nil
        }
        let weekday = time.weekdayName(first)
        switch kind {
        case .workout:
            // A workout the person named ("Tempelhofer Feld intervals") is called what they called it.
            if let own = items.lazy.compactMap({ item -> String? in
                if case .workout(let w) = item.asset, let name = w.details?.localizedName, Self.isOwnName(name) { return name }
                return nil
            }).first { return own }
            let details = items.lazy.compactMap { item -> WorkoutDetails? in
                if case .workout(let w) = item.asset { return w.details ?? WorkoutDetails() }
                return nil
            }.first
            let activity = Self.activityTitle(details, part: part)
            return place.map { "\(activity) \($0)" } ?? activity
        case .outing:
            let with = people.isEmpty ? "" : " with " + people.prefix(2).joined(separator: " and ")
            if let place { return "\(part)\(with) \(place)" }
            // Without the place, "out" would say what only the place said.
            return people.isEmpty ? "\(weekday) \(part.lowercased())" : "\(part)\(with)"
        case .timeAtHome:
            return place != nil ? "\(weekday) \(part.lowercased()) at home" : "A quiet \(weekday) \(part.lowercased())"
        case .trip:
            let days = Set(items.map { time.day(of: $0) }).count
            // Where its nights were, else the city most of its places are in: where the trip went.
            if let place = Self.tripPlace(items, time: time) {
                return "\(days) \(days == 1 ? "day" : "days") \(place.hasPrefix("near ") ? place : "in \(place)")"
            }
            // No place kept: being away is what the places said, so the title is just the days.
            return span(items)
        case .weeklySummary:
            // The week its items begin in (``WeeklySummaries`` takes them by their start; a day's
            // places often end the next morning, in the next week), or an app's workout group's.
            let monday = if let group = items.first(where: { $0.kind == .workoutGroup }) {
                week(of: group.endMs, group).monday
            } else {
                items.min { $0.startMs < $1.startMs }.map { week(of: $0.startMs, $0).monday }!
            }
            return "Your week from \(time.dayAndMonth(monday))"
        case .reflection:
            if case .reflection(let r) = first.asset { return r.prompt }
            return "A moment to reflect"
        case .stateOfMind:
            if case .stateOfMind(let s) = first.asset, let state = s.state {
                if state.kind == .dailyMood { return "How \(weekday) felt" }
                return state.labels.first.map { "Feeling \($0.description)" } ?? "A moment's feeling"
            }
            return "How you felt"
        case .contact:
            return people.first.map { "Catching up with \($0)" } ?? "Someone you know"
        case .motion:
            if case .motionActivity(let m) = first.asset {
                let noun = m.movementType == .running ? "run" : m.movementType == .runningWalking ? "walk and run" : "walk"
                return "\(part) \(noun): \(m.steps.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) steps"
            }
            return "\(part) on the move"
        case .media:
            switch first.asset {
            case .podcast(let p): return "Listening to \(p.show)"
            case .song(let s): return "Music by \(s.artist)"
            case .genericMedia(let g): return "Reading \(g.album)"
            default: return "Listening"
            }
        case .photos:
            return "\(weekday) \(part.lowercased()) in pictures"
        default:
            return "A moment"
        }
    }

    /// The days `items` span, named without saying where: "Saturday afternoon", "Friday to Sunday",
    /// "13 November to 2 December".
    private func span(_ items: [LibraryItem]) -> String {
        let first = items.min { $0.startMs < $1.startMs }!, last = items.max { $0.startMs < $1.startMs }!
        switch time.day(of: last) - time.day(of: first) {
        case 0: return "\(time.weekdayName(first)) \(time.partOfDay(first).lowercased())"
        case 1..<7: return "\(time.weekdayName(first)) to \(time.weekdayName(last))"
        default: return "\(time.dayAndMonth(time.day(of: first))) to \(time.dayAndMonth(time.day(of: last)))"
        }
    }

    /// Where a trip went, as its title and id say it: where its nights were (the stays that cover
    /// 01:00–05:00 local time), by the city most of them name; a city the gazetteer places farther
    /// from the nights than the nights are from each other (beyond its own disc) is not where they
    /// were (a weekend in Katoomba was "3 days in Liverpool", 60 km away, when the gazetteer lacked
    /// small towns), and the gazetteer names the nights' middle instead: the town it lies in, else
    /// "near <town>", else, with no populated place within 60 km, the region ("New South Wales").
    /// A name the gazetteer does not know (the person's data: "Blue Mtns") is theirs and stands.
    /// Without a night among `items` that names a city, the city most of its places are in
    /// (``mostCommonCity(_:)``): a place with no city says nothing of one.
    /// The id says it from every place away, the title from the places the person kept.
    /// - Parameters:
    ///   - items: the trip's items.
    ///   - time: the person's clock, for the nights.
    ///   - gazetteer: the places a city's name is checked against (tests give their own).
    /// - Returns: "Katoomba", "near Katoomba" or "New South Wales"; `nil` when no item names a place.
    static func tripPlace(_ items: [LibraryItem], time: LocalTime, gazetteer: Gazetteer = .shared) -> String? {
        let cities = items.flatMap { item -> [String] in
            switch item.asset {
            case .location(let l): [l.city]
            case .locationGroup(let g): g.locations.map(\.city)
            default: []
            }
        }.filter { !$0.isEmpty }
        let nights = items.compactMap { item -> (city: String, at: Coordinate)? in
            guard item.kind == .location, case .location(let l) = item.asset, let at = position(item) else { return nil }
            let first = time.day(item.startMs, offset: item.utcOffsetSeconds), last = time.day(max(item.startMs, item.endMs - 1), offset: item.utcOffsetSeconds)
            let covers = (first...min(last, first + 31)).contains { day in
                time.ms(day: day, hour: 1, offset: item.utcOffsetSeconds) < item.endMs && time.ms(day: day, hour: 5, offset: item.utcOffsetSeconds) > item.startMs
            }
            return covers ? (l.city.trimmingCharacters(in: .whitespaces), at) : nil
        }
        // A place with no city of its own says nothing of one: the title says no more than the items.
        guard let city = mostCommonCity(nights.map(\.city).filter { !$0.isEmpty }) else { return mostCommonCity(cities) }
        let middle = Coordinate(latitude: nights.map(\.at.latitude).reduce(0, +) / Double(nights.count),
                                longitude: nights.map(\.at.longitude).reduce(0, +) / Double(nights.count))
        let spread = nights.map { Gazetteer.distance(middle.latitude, middle.longitude, $0.at.latitude, $0.at.longitude) }.max() ?? 0
        let known = gazetteer.cities(near: middle.latitude, middle.longitude, within: 400_000)
            .filter { $0.name.compare(city, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        if known.isEmpty || known.contains(where: {
            Gazetteer.distance(middle.latitude, middle.longitude, $0.latitude, $0.longitude) <= max(spread, $0.radiusM)
        }) { return city }
        guard let named = gazetteer.name(latitude: middle.latitude, longitude: middle.longitude) else { return city }
        return named.isInCity ? named.city.name : named.place
    }

    /// The city most of a trip's places are in, the first of equals (the one reached first).
    static func mostCommonCity(_ cities: [String]) -> String? {
        let counts = Dictionary(cities.map { ($0, 1) }, uniquingKeysWith: +)
        guard let most = counts.values.max() else { return nil }
        return cities.first { counts[$0] == most }
    }

    /// Whether a workout's name is one the person gave it, not what an app calls every workout
    /// ("Morning Run", "Lunch Ride", "Outdoor Run", "Running", "Afternoon Walk").
    static func isOwnName(_ name: String) -> Bool {
        let words = name.lowercased().split(separator: " ").map(String.init)
        guard !words.isEmpty else { return false }
        let generic: Set = ["morning", "afternoon", "evening", "night", "lunch", "outdoor", "indoor", "run", "running", "ride", "cycling",
                            "walk", "walking", "hike", "hiking", "swim", "swimming", "workout", "activity", "yoga", "treadmill", "easy", "long"]
        return !words.allSatisfy { generic.contains($0) }
    }

    /// A workout as people say it: "Morning run", "Evening ride", "Climbing", "Ski day". Runs, walks,
    /// rides, hikes, swims, rows and yoga take the part of the day; every other HealthKit activity
    /// type is its own words (``activityWords``), never "activity". A type pickerd does not know (or
    /// other) is what its data calls it ("Morning kayaking"), else a "workout".
    /// - Parameters:
    ///   - details: the workout's details (`nil`: none given).
    ///   - part: the part of the day it started in ("Morning").
    static func activityTitle(_ details: WorkoutDetails?, part: String) -> String {
        let type = details?.activityType ?? HealthKitActivityType.other
        if let (words, withPart) = activityWords[type] { return withPart ? "\(part) \(words)" : words }
        // An app's own name often holds a part of the day already ("Morning Run" from a GPX with no
        // type): the part of the day is said once, from when it started.
        let dayWords: Set = ["morning", "afternoon", "evening", "night", "lunch"]
        let own = (details?.localizedName ?? "").lowercased().split(separator: " ")
            .filter { !dayWords.contains(String($0)) }.joined(separator: " ")
        let generic: Set = ["", "other", "activity", "workout", "unknown", "generic", "sport"]
        return generic.contains(own) ? "\(part) workout" : "\(part) \(own)"
    }

    /// HealthKit's `HKWorkoutActivityType` raw values.
    enum HealthKitActivityType {
        /// `.other`.
        static let other: UInt32 = 3000
    }

    /// Each HealthKit activity type (`HKWorkoutActivityType`'s raw values) as people say it, and
    /// whether the part of the day comes before it ("Morning run") or the words stand alone ("Ski
    /// day", "Climbing"). Paddle sports are "Paddling": HealthKit's one type holds kayaks, canoes and
    /// stand-up boards alike.
    static let activityWords: [UInt32: (String, Bool)] = [
        37: ("run", true), 52: ("walk", true), 24: ("hike", true), 13: ("ride", true), 46: ("swim", true),
        35: ("row", true), 57: ("yoga", true), 70: ("wheelchair walk", true), 71: ("wheelchair run", true),
        1: ("American football", false), 2: ("Archery", false), 3: ("Australian football", false), 4: ("Badminton", false),
        5: ("Baseball", false), 6: ("Basketball", false), 7: ("Bowling", false), 8: ("Boxing", false), 9: ("Climbing", false),
        10: ("Cricket", false), 11: ("Cross training", false), 12: ("Curling", false), 14: ("Dancing", false),
        15: ("Dance workout", false), 16: ("Elliptical", false), 17: ("Horse riding", false), 18: ("Fencing", false),
        19: ("Fishing", false), 20: ("Strength training", false), 21: ("Golf", false), 22: ("Gymnastics", false),
        23: ("Handball", false), 25: ("Hockey", false), 26: ("Hunting", false), 27: ("Lacrosse", false),
        28: ("Martial arts", false), 29: ("Mind and body", false), 30: ("Cardio", false), 31: ("Paddling", false),
        32: ("Play", false), 33: ("Recovery", false), 34: ("Racquetball", false), 36: ("Rugby", false), 38: ("Sailing", false),
        39: ("Skating", false), 40: ("Snow sports", false), 41: ("Football", false), 42: ("Softball", false),
        43: ("Squash", false), 44: ("Stair climbing", false), 45: ("Surfing", false), 47: ("Table tennis", false),
        48: ("Tennis", false), 49: ("Athletics", false), 50: ("Weight training", false), 51: ("Volleyball", false),
        53: ("Water fitness", false), 54: ("Water polo", false), 55: ("Water sports", false), 56: ("Wrestling", false),
        58: ("Barre", false), 59: ("Core training", false), 60: ("Cross-country skiing", false), 61: ("Ski day", false),
        62: ("Stretching", false), 63: ("HIIT", false), 64: ("Jump rope", false), 65: ("Kickboxing", false),
        66: ("Pilates", false), 67: ("Snowboarding", false), 68: ("Stairs", false), 69: ("Step training", false),
        72: ("Tai chi", false), 73: ("Cardio", false), 74: ("Handcycling", false), 75: ("Disc sports", false),
        76: ("Fitness gaming", false), 77: ("Cardio dance", false), 78: ("Dancing", false), 79: ("Pickleball", false),
        80: ("Cool-down", false), 82: ("Triathlon", false), 83: ("Transition", false), 84: ("Diving", false),
    ]

    /// What the person calls the place they live (the demo's, and any library's "Home").
    static let homePlaceName = "Home"

    /// A place as a title says it: "at home", "in Riverside Park", "on Mount Beacon Trail", "on the
    /// High Line", "at Via Carota", "in Porto" (a city), "in Kreuzberg" (a neighbourhood), "near
    /// Buckow" (as the gazetteer names the countryside).
    /// - Parameters:
    ///   - place: the place's name.
    ///   - city: its city, when known: a place that is its city is "in" it.
    static func located(_ place: String, city: String = "") -> String {
        if place == homePlaceName { return "at home" }
        if place.hasPrefix("near ") { return place }
        if !city.isEmpty && place == city || Gazetteer.isArea(place) { return "in \(place)" }
        let name = place.hasPrefix("The ") ? "the " + place.dropFirst(4) : place
        let words = place.lowercased().split(whereSeparator: { $0 == " " || $0 == "," })
        let last = words.last.map(String.init) ?? "", first = words.first.map(String.init) ?? ""
        let along: Set = ["trail", "path", "line", "street", "avenue", "boulevard", "promenade", "boardwalk", "loop", "ridge", "road", "way"]
        let inside: Set = ["park", "garden", "gardens", "woods", "forest", "village", "quarter", "square", "hills", "valley", "district", "ramble"]
        if along.contains(last) || first == "mount" || first == "mt" { return "on \(name)" }
        if inside.contains(last) { return "in \(name)" }
        return "at \(name)"
    }

    // MARK: Time, as the person lived it

    /// The offset from UTC of `item`'s local time, in ms: its own when the data gives one (a
}
