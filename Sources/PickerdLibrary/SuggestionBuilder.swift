public import Foundation
public import PickerdStore
public import PickerdWire

/// Groups library items into suggestions: moments by time and place (a workout with its photos and
/// music, an outing, time at home with a mood), multi-day trips, weekly summaries, and standalone
/// reflections, moods, media, contacts and motion. Titles each, caps each at 13 items, scores each
/// for the Recommended list.
///
/// Titles are made from the items alone, so ``lists(suggestions:items:enabled:)`` can title a
/// suggestion again from what remains after the person's category settings: a disabled category
/// never shows, not even in a title. Only a kept place says where the person was: without one, no
/// title names a place or a city, says "home", or says that the person was away or out.
public struct SuggestionBuilder: Sendable {
    /// The most items a suggestion holds (as Apple's picker).
    public static let maxItems = 13

    /// The time zone days and parts of the day are reckoned in.
    public let timeZone: TimeZone

    /// Creates a builder.
    /// - Parameter timeZone: the person's time zone (the demo library lives in New York, UTC−5).
    public init(timeZone: TimeZone = TimeZone(secondsFromGMT: -5 * 3600)!) {
        self.timeZone = timeZone
    }

    private var calendar: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        return c
    }

    // MARK: Building

    /// Builds every suggestion from the library.
    /// - Parameter library: all items; those excluded from suggestions are left out.
    /// - Returns: the suggestions, each with 1…13 items, a title and a score.
    public func build(from library: [LibraryItem]) -> [StoredSuggestion] {
        let items = library.filter { !$0.excludedFromSuggestions }
            .sorted { ($0.startMs, Self.orderKey($0.id)) < ($1.startMs, Self.orderKey($1.id)) }
        var used = Set<UUID>()
        var moments: [(SuggestionKind, [LibraryItem])] = []

        func within(_ start: Int64, _ end: Int64, kinds: Set<AssetKind>) -> [LibraryItem] {
            items.filter { kinds.contains($0.kind) && $0.startMs >= start && $0.startMs <= end }
        }
        let homeName = homePlace(items)

        // Workouts with what happened during them.
        for workout in items where workout.kind == .workout {
            let window = within(workout.startMs - 15 * 60_000, workout.endMs + 30 * 60_000,
                                kinds: [.photo, .livePhoto, .video, .song, .podcast, .motionActivity, .location, .stateOfMind])
                .filter { !isDailyMood($0) }
            moments.append((.workout, [workout] + window))
        }
        // Outings: visits to places other than home and work.
        for visit in items where visit.kind == .location {
            guard case .location(let l) = visit.asset, l.place != homeName, l.isWorkLocation != true else { continue }
            // A visit during a workout belongs to the workout's moment.
            if items.contains(where: { $0.kind == .workout && $0.startMs < visit.endMs && visit.startMs < $0.endMs }) { continue }
            let window = within(visit.startMs - 30 * 60_000, visit.endMs + 30 * 60_000,
                                kinds: [.photo, .livePhoto, .video, .contact, .song, .stateOfMind])
                .filter { !isDailyMood($0) }
            // A place alone is not a moment.
            if window.isEmpty { continue }
            moments.append((.outing, [visit] + window))
        }
        // Time at home: an evening there, with its music, reading and the day's mood.
        for visit in items where visit.kind == .location {
            guard case .location(let l) = visit.asset, l.place == homeName else { continue }
            let window = within(visit.startMs, visit.endMs, kinds: [.song, .podcast, .genericMedia, .photo, .stateOfMind])
            if !window.isEmpty { moments.append((.timeAtHome, [visit] + window)) }
        }
        // Trips: consecutive days spent in another city.
        for trip in trips(items, homeName: homeName) {
            moments.append((.trip, trip))
        }
        // Weekly summaries: the week's workout group, its movement and a few photos.
        for group in items where group.kind == .workoutGroup {
            let (start, end) = week(of: group.endMs)
            let motion = within(start, end, kinds: [.motionActivity]).sorted { steps($0) > steps($1) }.prefix(3)
            let photos = within(start, end, kinds: [.photo, .livePhoto]).prefix(4)
            let places = within(start, end, kinds: [.locationGroup])
            moments.append((.weeklySummary, [group] + places + Array(motion) + Array(photos)))
        }
        for moment in moments { used.formUnion(moment.1.map(\.id)) }

        // What no moment took stands alone.
        for item in items where !used.contains(item.id) {
            switch item.kind {
            case .reflection: moments.append((.reflection, [item]))
            case .stateOfMind: moments.append((.stateOfMind, [item]))
            case .contact: moments.append((.contact, [item]))
            case .motionActivity: moments.append((.motion, [item]))
            case .photo, .livePhoto, .video: moments.append((.photos, [item]))
            case .song, .podcast, .genericMedia: break  // grouped below
            case .workout, .workoutGroup, .location, .locationGroup: break
            }
        }
        // Listening and reading: one suggestion per show, artist or book, per week.
        var media: [String: [LibraryItem]] = [:]
        for item in items where !used.contains(item.id) {
            let week = week(of: item.startMs).start
            switch item.asset {
            case .podcast(let p): media["\(week)|podcast|\(p.show)", default: []].append(item)
            case .song(let s): media["\(week)|song|\(s.artist)", default: []].append(item)
            case .genericMedia(let g): media["\(week)|media|\(g.album)", default: []].append(item)
            default: break
            }
        }
        for key in media.keys.sorted() { moments.append((.media, media[key]!)) }

        let newest = items.map(\.endMs).max() ?? 0
        var seen = Set<[UUID]>()
        var suggestions: [StoredSuggestion] = []
        for (kind, members) in moments {
            let chosen = cap(unique(members), kind: kind)
            guard !chosen.isEmpty, seen.insert(chosen.map(\.id)).inserted else { continue }
            let start = chosen.map(\.startMs).min()!, end = chosen.map(\.endMs).max()!
            suggestions.append(StoredSuggestion(
                id: stableID(kind, chosen), title: title(kind, chosen), kind: kind, startMs: start, endMs: end,
                score: score(kind, chosen, end: end, newest: newest), itemIDs: chosen.map(\.id)))
        }
        return suggestions.sorted { Self.orderKey($0.id) < Self.orderKey($1.id) }
    }

    // Not inlined: Swift 6.3.1's optimizer trips its own ownership verifier when this is inlined
    // into build(from:)'s closures in release builds.
    @inline(never)
    private func isDailyMood(_ item: LibraryItem) -> Bool {
        guard case .stateOfMind(let s) = item.asset, let state = s.state else { return false }
        return state.kind == .dailyMood
    }

    @inline(never)
    private func steps(_ item: LibraryItem) -> Int64 {
        if case .motionActivity(let m) = item.asset { return m.steps }
        return 0
    }

    /// The place the person spends most time at, work aside.
    private func homePlace(_ items: [LibraryItem]) -> String? {
        var dwell: [String: Int64] = [:]
        for item in items {
            if case .location(let l) = item.asset, l.isWorkLocation != true { dwell[l.place, default: 0] += item.endMs - item.startMs }
        }
        return dwell.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    private func homeCity(_ items: [LibraryItem], homeName: String?) -> String? {
        for item in items { if case .location(let l) = item.asset, l.place == homeName { return l.city } }
        return nil
    }

    /// Runs of days with visits in another city than home's, with everything that happened then.
    private func trips(_ items: [LibraryItem], homeName: String?) -> [[LibraryItem]] {
        let home = homeCity(items, homeName: homeName)
        var awayDays = Set<Int>()
        for item in items {
            if case .location(let l) = item.asset, l.city != home { awayDays.insert(dayIndex(item.startMs)) }
        }
        var runs: [[Int]] = []
        for day in awayDays.sorted() {
            if let last = runs.last?.last, last == day - 1 { runs[runs.count - 1].append(day) } else { runs.append([day]) }
        }
        return runs.filter { $0.count >= 2 }.map { days in
            let span = Set(days)
            let during = items.filter { span.contains(dayIndex($0.startMs)) || (span.contains(dayIndex($0.endMs)) && $0.kind == .locationGroup) }
            return during.filter { [.locationGroup, .livePhoto, .photo, .video, .workout, .stateOfMind, .location].contains($0.kind) && !isDailyMood($0) }
        }
    }

    private func unique(_ items: [LibraryItem]) -> [LibraryItem] {
        var seen = Set<UUID>()
        return items.filter { seen.insert($0.id).inserted }
    }

    /// At most 13, keeping what the moment is about first, then in time order.
    private func cap(_ items: [LibraryItem], kind: SuggestionKind) -> [LibraryItem] {
        let priority: [AssetKind] = switch kind {
        case .trip: [.locationGroup, .workout, .livePhoto, .video, .stateOfMind, .photo, .location]
        case .weeklySummary: [.workoutGroup, .locationGroup, .motionActivity, .livePhoto, .photo]
        case .workout: [.workout, .location, .photo, .livePhoto, .video, .stateOfMind, .motionActivity, .song, .podcast]
        default: AssetKind.allCases
        }
        func rank(_ item: LibraryItem) -> Int { priority.firstIndex(of: item.kind) ?? priority.count }
        let kept = items.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .prefix(Self.maxItems).map(\.element)
        return kept.sorted { ($0.startMs, rank($0)) < ($1.startMs, rank($1)) }
    }

    private func score(_ kind: SuggestionKind, _ items: [LibraryItem], end: Int64, newest: Int64) -> Double {
        let base: Double = switch kind {
        case .trip: 5
        case .weeklySummary: 3.5
        case .outing: items.contains { $0.kind == .contact } ? 4 : 3
        case .workout: items.contains { [.photo, .livePhoto, .video].contains($0.kind) } ? 3 : 2.5
        case .timeAtHome: 1.8
        case .reflection: 1.6
        case .contact: 1.4
        case .media: 1.2
        case .stateOfMind: 1.0
        case .photos: 1.3
        default: 0.8
        }
        let variety = Double(Set(items.map(\.kind)).count) * 0.25
        let ageDays = Double(newest - end) / 86_400_000
        return base + variety + 2 * exp(-ageDays / 7)
    }

    /// A stable identifier: the same items in the same kind of moment give the same id.
    private func stableID(_ kind: SuggestionKind, _ items: [LibraryItem]) -> UUID {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var hash2: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in Array("\(kind.rawValue)|".utf8) + items.flatMap({ Array($0.id.uuidString.utf8) }) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            hash2 = (hash2 ^ UInt64(byte)) &* 0x100_0000_01B3 &+ 1
        }
        var b = withUnsafeBytes(of: hash.bigEndian, Array.init) + withUnsafeBytes(of: hash2.bigEndian, Array.init)
        b[6] = b[6] & 0x0F | 0x50
        b[8] = b[8] & 0x3F | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    // MARK: Titles

    /// A title for a moment made only from `items`.
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
        guard let first = items.first else { return "" }
        let part = partOfDay(first.startMs)
        let place = items.lazy.compactMap { item -> String? in
            if case .location(let l) = item.asset, !l.place.isEmpty { return l.place }
            return nil
        }.first
        let people = items.compactMap { item -> String? in
            if case .contact(let c) = item.asset { return c.name.split(separator: " ").first.map(String.init) }
            return nil
        }
        let weekday = format(first.startMs, "EEEE")
        switch kind {
        case .workout:
            let noun = items.lazy.compactMap { item -> String? in
                if case .workout(let w) = item.asset { return Self.activityNoun(w.details) }
                return nil
            }.first
            let activity = noun.map { "\(part) \($0)" } ?? "\(part) activity"
            return place.map { $0 == Self.homePlaceName ? "\(activity) at home" : "\(activity) in \($0)" } ?? activity
        case .outing:
            let with = people.isEmpty ? "" : " with " + people.prefix(2).joined(separator: " and ")
            if let place { return "\(part)\(with) \(Self.at(place))" }
            // Without the place, "out" would say what only the place said.
            return people.isEmpty ? "\(weekday) \(part.lowercased())" : "\(part)\(with)"
        case .timeAtHome:
            return place != nil ? "\(part) at home" : "A quiet \(part.lowercased())"
        case .trip:
            let cities = items.flatMap { item -> [String] in
                switch item.asset {
                case .location(let l): [l.city]
                case .locationGroup(let g): g.locations.map(\.city)
                default: []
                }
            }.filter { !$0.isEmpty }
            let days = Set(items.map { dayIndex($0.startMs) }).count
            if let city = cities.first { return "\(days) \(days == 1 ? "day" : "days") in \(city)" }
            // No place kept: being away is what the places said, so the title is just the days.
            return span(items)
        case .weeklySummary:
            return "Your week from \(format(week(of: items.map(\.endMs).max()!).start, "d MMMM"))"
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
        let first = items.map(\.startMs).min()!, last = items.map(\.startMs).max()!
        switch dayIndex(last) - dayIndex(first) {
        case 0: return "\(format(first, "EEEE")) \(partOfDay(first).lowercased())"
        case 1..<7: return "\(format(first, "EEEE")) to \(format(last, "EEEE"))"
        default: return "\(format(first, "d MMMM")) to \(format(last, "d MMMM"))"
        }
    }

    static func activityNoun(_ details: WorkoutDetails?) -> String? {
        guard let details else { return nil }
        return switch details.activityType {
        case 37: "run"
        case 52: "walk"
        case 24: "hike"
        case 57: "yoga"
        case 13: "ride"
        case 46: "swim"
        default: details.localizedName.isEmpty ? nil : details.localizedName.lowercased()
        }
    }

    /// What the person calls the place they live (the demo's, and any library's "Home").
    static let homePlaceName = "Home"

    static func at(_ place: String) -> String { place == homePlaceName ? "at home" : "at \(place)" }

    /// The Monday-to-Sunday week holding `timeMs`, as [start, end) in ms. Reckoned by hand:
    /// Foundation's week arithmetic on Linux does not agree with itself across versions.
    func week(of timeMs: Int64) -> (start: Int64, end: Int64) {
        let day = Int64(dayIndex(timeMs))
        let monday = day - (day + 3) % 7  // 1 January 1970 was a Thursday
        let offset = Int64(timeZone.secondsFromGMT(for: date(timeMs))) * 1000
        return (monday * 86_400_000 - offset, (monday + 7) * 86_400_000 - offset)
    }

    private func format(_ timeMs: Int64, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = pattern
        return formatter.string(from: date(timeMs))
    }

    private func partOfDay(_ timeMs: Int64) -> String {
        switch calendar.component(.hour, from: date(timeMs)) {
        case 5..<12: "Morning"
        case 12..<17: "Afternoon"
        case 17..<22: "Evening"
        default: "Night"
        }
    }

    private func date(_ timeMs: Int64) -> Date { Date(unixMs: timeMs) }
    private func dayIndex(_ timeMs: Int64) -> Int {
        Int((timeMs + Int64(timeZone.secondsFromGMT(for: date(timeMs))) * 1000).floorDivided(by: 86_400_000))
    }

    // MARK: Lists

    /// The two lists the picker shows, after the person's settings: items of disabled categories
    /// and excluded items are removed, suggestions left empty are dropped, and every title is made
    /// again from what remains.
    /// - Parameters:
    ///   - suggestions: the stored suggestions.
    ///   - items: the library (at least every item the suggestions name).
    ///   - enabled: the categories the person has on.
    /// - Returns: Recommended (meaningful first, kinds mixed, newer favoured) and Recent (newest first).
    public func lists(suggestions: [StoredSuggestion], items: [LibraryItem], enabled: Set<PickerdWire.Category>) -> SuggestionLists {
        let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        var visible: [ListedSuggestion] = []
        for s in suggestions {
            let kept = s.itemIDs.compactMap { byID[$0] }.filter { enabled.contains($0.kind.category) && !$0.excludedFromSuggestions }
            guard !kept.isEmpty else { continue }
            var listed = s
            listed.itemIDs = kept.map(\.id)
            listed.title = kept.count == s.itemIDs.count ? s.title : title(s.kind, kept)
            listed.startMs = kept.map(\.startMs).min()!
            listed.endMs = kept.map(\.endMs).max()!
            visible.append(ListedSuggestion(suggestion: listed, items: kept))
        }
        // Ties are broken by id, compared as its bytes (the order of its uuidString, without
        // formatting a string per comparison).
        let keyed = visible.map { (listed: $0, id: Self.orderKey($0.suggestion.id)) }
        let recent = keyed.sorted { ($0.listed.suggestion.endMs, $0.id) > ($1.listed.suggestion.endMs, $1.id) }.map(\.listed)
        // Recommended: best score first, but a kind just shown is held back, so kinds mix. The
        // penalty depends only on a suggestion's kind, so the best remaining of each kind is its
        // best: each pick compares one candidate per kind, not the whole pool.
        var queues: [SuggestionKind: ArraySlice<(listed: ListedSuggestion, id: OrderKey)>] = [:]
        for (kind, members) in Dictionary(grouping: keyed, by: { $0.listed.suggestion.kind }) {
            queues[kind] = members.sorted { ($0.listed.suggestion.score, $1.id) > ($1.listed.suggestion.score, $0.id) }[...]
        }
        var recommended: [ListedSuggestion] = []
        recommended.reserveCapacity(visible.count)
        while true {
            let recentKinds = recommended.suffix(3).map(\.suggestion.kind)
            var best: (kind: SuggestionKind, score: Double, id: OrderKey)?
            for (kind, queue) in queues {
                guard let head = queue.first else { continue }
                let score = head.listed.suggestion.score - 1.5 * Double(recentKinds.filter { $0 == kind }.count)
                if let current = best, (score, current.id) <= (current.score, head.id) { continue }
                best = (kind, score, head.id)
            }
            guard let kind = best?.kind else { break }
            recommended.append(queues[kind]!.removeFirst().listed)
        }
        return SuggestionLists(recommended: recommended, recent: recent)
    }
}

extension SuggestionBuilder {
    /// A UUID's bytes as two big-endian words: ordered as its `uuidString` is, without formatting it.
    struct OrderKey: Comparable, Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        static func < (a: OrderKey, b: OrderKey) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }

    static func orderKey(_ id: UUID) -> OrderKey {
        withUnsafeBytes(of: id.uuid) { bytes in
            OrderKey(high: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                     low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
        }
    }
}

/// A suggestion as the picker shows it, with its items.
public struct ListedSuggestion: Sendable, Hashable {
    /// The suggestion, its items and title already filtered by the person's settings.
    public var suggestion: StoredSuggestion
    /// Its items, in order.
    public var items: [LibraryItem]

    /// The wire form: media described but not attached.
    public var wire: Suggestion {
        Suggestion(id: suggestion.id.uuidString, title: suggestion.title,
                   date: PickerdWire.DateInterval(startUnixMs: suggestion.startMs, endUnixMs: suggestion.endMs),
                   items: items.map(\.wireItem), kind: suggestion.kind)
    }
}

/// The picker's two lists.
public struct SuggestionLists: Sendable, Hashable {
    /// Ranked: meaningful first, kinds mixed, newer favoured.
    public var recommended: [ListedSuggestion]
    /// Newest first.
    public var recent: [ListedSuggestion]
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
