public import Foundation
public import PickerdStore
public import PickerdWire
import PickerdPlaces

/// Groups library items into moments: a workout with its photos and music, an outing to a place,
/// an evening at home, a run of photos, a trip away from home, a week's summary, and standalone
/// reflections, moods, contacts and motion. Titles each, chooses at most 13 diverse items for each,
/// scores each for the Recommended list, and gives each a deterministic id (its kind, its start
/// and its place), so building the same days again never duplicates a moment.
///
/// The builder works on a window of days (``build(from:home:owning:)``): the ``MomentEngine`` hands
/// it the days new data touched, with a margin, and keeps only the moments that start in them.
///
/// Titles are made from the items alone, so ``lists(suggestions:items:enabled:)`` can title a
/// suggestion again from what remains after the person's category settings: a disabled category
/// never shows, not even in a title. Only a kept place says where the person was: without one, no
/// title names a place or a city, says "home", or says that the person was away or out. The one
/// other source of a title is a calendar event's summary, and only while an item shown or kept lies
/// within the event (SuggestionBuilder+Events.swift).
public struct SuggestionBuilder: Sendable {
    /// The most items a suggestion holds (as Apple's picker).
    public static let maxItems = 13
    /// How far from home a day counts as away (a trip's day), in metres: farther than a day's
    /// outing in town, as the stay-point literature's trips and Apple's "trip" suggestions are.
    static let awayDistance = 50_000.0
    /// How far before or after a workout its photos, music and mood may lie and still be part of it.
    static let workoutMargin: Int64 = 10 * 60_000
    /// The fewest photos and videos that make a run of them a moment of its own.
    static let minimumPhotoRun = 3

    /// The time zone days and parts of the day are reckoned in, for items whose data gives no
    /// offset of their own.
    public let timeZone: TimeZone

    /// Creates a builder.
    /// - Parameter timeZone: the person's time zone: by default the system's (`TZ`, `/etc/localtime`).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    // MARK: Building

    /// Builds every suggestion from a whole library (home found from it).
    /// - Parameter library: all items; those excluded from suggestions, and those that are not
    ///   memories (screenshots, scans, a burst's extra frames), are left out.
    /// - Returns: the suggestions, each with 1…13 items, a title and a score.
    public func build(from library: [LibraryItem]) -> [StoredSuggestion] {
        build(from: library, home: HomeBase.find(in: library), owning: Int64.min..<Int64.max)
    }

    /// Builds the moments that start in `owning` from `library`, a window of items that covers
    /// `owning` with a margin (so a trip or a run of photos that began before is seen whole, and is
    /// left to the window that owns its start).
    /// - Parameters:
    ///   - library: the items of the window, any order.
    ///   - home: where the person lives.
    ///   - owning: moments starting in this range (ms since 1970) are returned.
    ///   - events: the calendar events of the window (its summaries and times only), which join and
    ///     title moments (SuggestionBuilder+Events.swift).
    ///   - corrections: the person's word on where home and work are (``KnownPlaces/Correction``),
    ///     which wins over what the window's visits say: what is at home, what is routine, how far
    ///     away a trip is.
    /// - Returns: the suggestions, each with 1…13 items, a title, a score and a deterministic id.
    public func build(from library: [LibraryItem], home: HomeBase, owning: Range<Int64>, events: [EventSpan] = [],
                      corrections: [KnownPlaces.Correction] = []) -> [StoredSuggestion] {
        let items = library.filter { !$0.excludedFromSuggestions && $0.notAMemory == nil }
            .sorted { ($0.startMs, Self.orderKey($0.id)) < ($1.startMs, Self.orderKey($1.id)) }
        let starts = items.map(\.startMs)
        var moments: [Moment] = []
        var used = Set<UUID>()

        /// Items of `kinds` starting in [start, end], by binary search on the sorted starts.
        func within(_ start: Int64, _ end: Int64, kinds: Set<AssetKind>) -> [LibraryItem] {
            var low = 0, high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if starts[mid] < start { low = mid + 1 } else { high = mid }
            }
            var found: [LibraryItem] = []
            while low < items.count, starts[low] <= end {
                if kinds.contains(items[low].kind) { found.append(items[low]) }
                low += 1
            }
            return found
        }
        func place(_ item: LibraryItem) -> String {
            if case .location(let l) = item.asset { return l.place }
            return ""
        }
        // A walk the location history recorded is the same walk as a track from a watch or an app
        // over the same time: the track (its name, route and distance) stands for it.
        let tracked = items.filter { $0.kind == .workout && $0.externalID != Self.locationHistoryFormat }
        let places = Whereabouts(library, home: home, timeZone: timeZone, corrections: corrections)
        let workouts = items.filter { workout in
            guard workout.kind == .workout else { return false }
            guard workout.externalID == Self.locationHistoryFormat else { return true }
            return !tracked.contains { Self.overlap(workout, $0) * 2 > min(workout.endMs - workout.startMs, $0.endMs - $0.startMs) }
        }

        // Workouts with what happened during them: the workout's own time, photos and music a few
        // minutes around it, and the place it was at (a visit that overlaps it, never what follows).
        for workout in workouts {
            let window = within(workout.startMs - Self.workoutMargin, workout.endMs + Self.workoutMargin,
                                kinds: [.photo, .livePhoto, .video, .song, .podcast, .motionActivity, .stateOfMind])
                .filter { !isDailyMood($0) && !used.contains($0.id) }
            // The place it was at: a visit holding most of it (a run that starts where the night's
            // stay ends is not "at home"), else where it went, unless that is near home and named
            // only by its city (a run from the door is "Morning run", not "in Berlin"; but it may
            // be "Morning run in Treptow", the neighbourhood it turned in).
            let visits = within(workout.startMs - 12 * 3_600_000, workout.endMs, kinds: [.location])
                .filter { Self.overlap($0, workout) * 2 > max(1, workout.endMs - workout.startMs) }
                .filter { $0.externalID != Self.workoutPlaceTag || Self.namesNeighbourhood($0)
                    || Self.position($0).map { !places.isNearHome($0, at: workout.startMs) } ?? false }
                .sorted { ($0.externalID == Self.workoutPlaceTag ? 1 : 0) < ($1.externalID == Self.workoutPlaceTag ? 1 : 0) }
            let at = visits.first.map(place) ?? ""
            moments.append(Moment(kind: .workout, anchor: workout.startMs, place: at, items: [workout] + visits.prefix(1) + window))
            // Each item in one moment: what a workout took, no outing takes too.
            used.formUnion(window.map(\.id))
        }
        // Outings: stays at places other than home and work. A routine place (one the window's
        // visits reach on several days: the usual café, the supermarket) is an outing only with
        // something notable there (photos, someone); anywhere else a stay long enough is one.
        let notable: Set<AssetKind> = [.photo, .livePhoto, .video, .contact]
        let stays = items.filter { $0.kind == .location && $0.externalID != Self.workoutPlaceTag }
        for (index, visit) in stays.enumerated() {
            guard case .location(let l) = visit.asset, !places.isHome(visit), l.isWorkLocation != true else { continue }
            // A visit during a workout belongs to the workout's moment.
            if within(visit.startMs - 6 * 3_600_000, visit.endMs, kinds: [.workout]).contains(where: { $0.endMs > visit.startMs && $0.startMs < visit.endMs }) {
                continue
            }
            // What happened there, and a few minutes either side (a photo on arriving, the
            // invitation's time), but never during the stay before or after.
            let from = max(visit.startMs - Self.stayMargin, index > 0 ? stays[index - 1].endMs : .min)
            let to = min(visit.endMs + Self.stayMargin, index + 1 < stays.count ? stays[index + 1].startMs : .max)
            let window = within(from, to, kinds: [.photo, .livePhoto, .video, .contact, .song, .stateOfMind])
                .filter { !isDailyMood($0) && !used.contains($0.id) }
            let isRoutine = places.isRoutine(visit)
            // Music alone is every commute: it makes no stay notable. At a routine place, only what
            // happened during the stay itself does.
            let hasNotable = window.contains { notable.contains($0.kind) && (!isRoutine || ($0.startMs >= visit.startMs - Self.stayMargin && $0.startMs <= visit.endMs)) }
            if isRoutine ? !hasNotable : !hasNotable && visit.endMs - visit.startMs < Self.outingAlone { continue }
            moments.append(Moment(kind: .outing, anchor: visit.startMs, place: l.place, items: [visit] + window))
            used.formUnion(window.map(\.id))
        }
        // Time at home: a stay there with something to remember (photos, what was read), with its
        // music and mood; music or a mood alone is every evening.
        // A stay at home may last days (a long weekend): each run of its photos, videos and
        // reading (split where nothing happened for three hours: a cake in the oven is still the same
        // afternoon) is one moment, with the music and
        // moods of that time.
        for visit in stays {
            guard case .location(let l) = visit.asset, places.isHome(visit) else { continue }
            var runs: [[LibraryItem]] = []
            for item in within(visit.startMs, visit.endMs, kinds: Self.homeContent) where !used.contains(item.id) {
                if let last = runs.last?.last, item.startMs - last.endMs <= Self.homePause {
                    runs[runs.count - 1].append(item)
                } else {
                    runs.append([item])
                }
            }
            for run in runs {
                let from = run[0].startMs, to = run.map(\.endMs).max()!
                let with = within(from, to, kinds: [.song, .podcast, .stateOfMind]).filter { !used.contains($0.id) && !isDailyMood($0) }
                moments.append(Moment(kind: .timeAtHome, anchor: from, place: l.place, items: [visit] + run + with))
                used.formUnion((run + with).map(\.id))
            }
        }
        // Trips: two days or more away from home, with what happened then.
        moments += trips(items, places: places)
        // Weekly summaries, from whatever the week holds: its workouts (or a workout group an app
        // gave), its days out, its movement, a few photos, its moods; a week with only one kind of
        // thing is not summed up.
        var summarized = Set<Int64>()
        for group in items where group.kind == .workoutGroup {
            let (start, end, _) = week(of: group.endMs, group)
            summarized.insert(start)
            moments.append(Moment(kind: .weeklySummary, anchor: start, place: "", items: [group] + weekContents(start, end, within)))
        }
        for start in Set(items.map { week(of: $0.startMs, $0).start }).sorted() where !summarized.contains(start) {
            let contents = weekContents(start, start + 7 * 86_400_000, within)
            let kinds = Set(contents.map { [.photo, .livePhoto, .video].contains($0.kind) ? .photo : $0.kind })
            guard kinds.count >= 2, contents.contains(where: { $0.kind == .workout }) || contents.count >= 5 else { continue }
            moments.append(Moment(kind: .weeklySummary, anchor: start, place: "", items: contents))
        }
        // A week's summary references what its moments hold: its photos may still make a moment.
        for moment in moments where moment.kind != .weeklySummary { used.formUnion(moment.items.map(\.id)) }
        // Photos and videos no moment took: one time-ordered pass, split where the person paused
        // or moved on (a shorter pause at home than away), and a run of them is a moment.
        var runs = photoRuns(items.filter { [.photo, .livePhoto, .video].contains($0.kind) && !used.contains($0.id) }, places: places)
        // A calendar event joins what happened during it (the runs of photos that reach into it,
        // the people there) into one moment, or into the outing or evening at home it was part of.
        for event in events.filter(\.joinsMoments).sorted(by: { ($0.startMs, $0.id) < ($1.startMs, $1.id) }) {
            var group: [LibraryItem] = []
            runs.removeAll { run in
                guard run.contains(where: { event.holds($0.startMs) }) else { return false }
                group += run
                return true
            }
            group += within(event.startMs, event.endMs, kinds: [.contact]).filter { !used.contains($0.id) && event.holds($0.startMs) }
            guard !group.isEmpty else { continue }
            used.formUnion(group.map(\.id))
            if let host = moments.firstIndex(where: { moment in
                (moment.kind == .outing || moment.kind == .timeAtHome) && moment.items.contains { event.holds($0.startMs) }
            }) {
                moments[host].items += group
            } else {
                let media = group.contains { [.photo, .livePhoto, .video].contains($0.kind) }
                moments.append(Moment(kind: media ? .photos : .contact, anchor: event.startMs, place: "event|\(event.id)",
                                      items: group.sorted { ($0.startMs, Self.orderKey($0.id)) < ($1.startMs, Self.orderKey($1.id)) }))
            }
        }
        for run in runs where run.count >= Self.minimumPhotoRun {
            moments.append(Moment(kind: .photos, anchor: run[0].startMs, place: Self.cell(run[0].coordinate), items: run))
            used.formUnion(run.map(\.id))
        }

        // What no moment took stands alone (a person once a day: two photos an hour apart that name
        // her are one "catching up").
        var people = Set<String>()
        for item in items where !used.contains(item.id) {
            if case .contact(let c) = item.asset, !people.insert("\(c.name)|\(dayIndex(item))").inserted { continue }
            let kind: SuggestionKind? = switch item.kind {
            case .reflection: .reflection
            case .stateOfMind: .stateOfMind
            case .contact: .contact
            case .motionActivity: .motion
            default: nil  // media is grouped below; a photo outside a run is not a moment
            }
            if let kind { moments.append(Moment(kind: kind, anchor: item.startMs, place: item.id.uuidString, items: [item])) }
        }
        // Listening and reading: one suggestion per show, artist or book, per week.
        var media: [String: [LibraryItem]] = [:]
        for item in items where !used.contains(item.id) {
            let week = week(of: item.startMs, item).start
            switch item.asset {
            case .podcast(let p): media["\(week)|podcast|\(p.show)", default: []].append(item)
            case .song(let s): media["\(week)|song|\(s.artist)", default: []].append(item)
            case .genericMedia(let g): media["\(week)|media|\(g.album)", default: []].append(item)
            default: break
            }
        }
        for key in media.keys.sorted() {
            let week = Int64(key.prefix { $0 != "|" })!
            moments.append(Moment(kind: .media, anchor: week, place: String(key.drop { $0 != "|" }), items: media[key]!))
        }

        var seenItems = Set<[UUID]>()
        var seenIDs = Set<UUID>()
        var suggestions: [StoredSuggestion] = []
        // Every moment of the window was found, so what each took is known whichever window owns
        // it; only those anchored in `owning` are this window's to return.
        for moment in moments where owning.contains(moment.anchor) {
            let chosen = cap(unique(moment.items), kind: moment.kind)
            let id = Self.stableID("\(moment.kind.rawValue)|\(moment.anchor)|\(moment.place)")
            guard !chosen.isEmpty, seenItems.insert(chosen.map(\.id)).inserted, seenIDs.insert(id).inserted else { continue }
            let (start, end) = moment.window ?? span(moment.kind, chosen)
            // A moment an event in the person's calendar names is one they marked as worth keeping.
            let event = titlingEvent(moment.kind, chosen, events: events)
            suggestions.append(StoredSuggestion(
                id: id, title: event.map { title(moment.kind, chosen, event: $0) } ?? title(moment.kind, chosen), kind: moment.kind,
                startMs: start, endMs: end,
                score: score(moment.kind, chosen, pool: moment.items.count) + (event == nil ? 0 : 1), itemIDs: chosen.map(\.id),
                monthDay: monthDay(chosen[0]), anchorMs: moment.anchor))
        }
        return suggestions.sorted { Self.orderKey($0.id) < Self.orderKey($1.id) }
    }

    /// When a moment happened, from its items:
    /// - a workout is its own time (with the photos and music within its margin, not the steps
    ///   another device counted on the way), not the whole visit to the place it was at;
    /// - an outing is the stay at its place (the music on the way there and an invitation's time
    ///   do not stretch it);
    /// - time at home is when its photos, videos and reading were (the stay at home may last days);
    /// - a week's summary is its week, Monday to Sunday;
    /// - anything else spans all its items.
    func span(_ kind: SuggestionKind, _ items: [LibraryItem]) -> (start: Int64, end: Int64) {
        let stays = items.filter { $0.kind == .location && $0.externalID != Self.workoutPlaceTag }
        let timed: [LibraryItem]
        switch kind {
        case .weeklySummary:
            let week = week(of: items.map(\.startMs).min()!)
            return (week.start, week.end - 1)
        // Steps another device counted around it (a phone in a pocket on a watch's hike) are not
        // the workout's time: they may begin on the way to the start.
        case .workout where items.contains(where: { $0.kind == .workout }):
            timed = items.filter { $0.kind != .location && $0.kind != .motionActivity }
        case .workout where stays.count < items.count: timed = items.filter { $0.kind != .location }
        case .outing where !stays.isEmpty: timed = stays
        case .timeAtHome where items.contains(where: { Self.homeContent.contains($0.kind) }):
            timed = items.filter { Self.homeContent.contains($0.kind) }
        default: timed = items
        }
        return (timed.map(\.startMs).min()!, timed.map(\.endMs).max()!)
    }

    /// What makes time at home worth remembering: photos, videos, what was read.
    static let homeContent: Set<AssetKind> = [.photo, .livePhoto, .video, .genericMedia]

    /// `externalID` of workouts the location history recorded (activity segments long enough).
    static let locationHistoryFormat = "takeout"
    /// Whether a place item is named by a neighbourhood of a large city (the gazetteer's "Kreuzberg"
    /// in Berlin), not by the city itself.
    static func namesNeighbourhood(_ item: LibraryItem) -> Bool {
        guard case .location(let l) = item.asset, !l.place.isEmpty, l.place != l.city else { return false }
        return Gazetteer.isArea(l.place)
    }

    /// `externalID` of the Location item an import adds for where a workout went (its route's
    /// midpoint, named by the gazetteer): it names a workout away from home, and is never a stay
    /// (no outing, no time at home, no known place).
    public static let workoutPlaceTag = "workout-place"

    /// How long two items overlap, in ms (0 when they do not).
    static func overlap(_ a: LibraryItem, _ b: LibraryItem) -> Int64 {
        max(0, min(a.endMs, b.endMs) - max(a.startMs, b.startMs))
    }

    /// Where an item was: its own coordinate, else its place's (a visit, a day's places).
    static func position(_ item: LibraryItem) -> Coordinate? {
        if let c = item.coordinate { return c }
        switch item.asset {
        case .location(let l): return l.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        case .locationGroup(let g): return g.locations.first?.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        default: return nil
        }
    }

    /// How far before or after a stay its photos, people and music may lie (outside any other stay).
    static let stayMargin: Int64 = 15 * 60_000

    /// How long nothing happens at home before what follows is another moment.
    static let homePause: Int64 = 3 * 3_600_000

    /// How long before the first thing far from home, or after the last, the stay at a known
    /// place it left from or came back to may end or begin and still bound a trip.
    static let tripEdge: Int64 = 6 * 3_600_000

    /// How long a stay at a place that is not routine makes an outing by itself (an evening at a
    /// bar with no photo is still one).
    static let outingAlone: Int64 = 45 * 60_000
    /// What a week's summary shows, from `start` to `end`: its workouts, days out, the most steps,
    /// a few photos, its moments' moods and what it listened to most.
    private func weekContents(_ start: Int64, _ end: Int64, _ within: (Int64, Int64, Set<AssetKind>) -> [LibraryItem]) -> [LibraryItem] {
        let workouts = within(start, end - 1, [.workout])
        let places = within(start, end - 1, [.locationGroup])
        let motion = within(start, end - 1, [.motionActivity]).sorted { steps($0) > steps($1) }.prefix(3)
        let photos = within(start, end - 1, [.photo, .livePhoto, .video])
        let spread = photos.count <= 4 ? photos : (0..<4).map { photos[$0 * photos.count / 4] }
        let moods = within(start, end - 1, [.stateOfMind]).prefix(2)
        // What the week sounded like: the artist or show played most, once.
        var plays: [String: [LibraryItem]] = [:]
        for item in within(start, end - 1, [.song, .podcast]) {
            switch item.asset {
            case .song(let song): plays["song|\(song.artist)", default: []].append(item)
            case .podcast(let podcast): plays["podcast|\(podcast.show)", default: []].append(item)
            default: break
            }
        }
        let listening = plays.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }?.value.first
        return workouts + places + Array(motion) + spread + Array(moods) + (listening.map { [$0] } ?? [])
    }

    /// A moment before its items are chosen: what it is, when it begins (for its id and its
    /// window), where (for its id), and every item it could hold.
    struct Moment {
        var kind: SuggestionKind
        var anchor: Int64
        var place: String
        var items: [LibraryItem]
        /// When it was, where its items do not say it (a trip: from leaving to coming back).
        var window: (start: Int64, end: Int64)? = nil
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

    /// A coordinate as a cell of about a kilometre, for ids: the same place, the same cell.
    static func cell(_ c: Coordinate?) -> String {
        guard let c else { return "" }
        return "\((c.latitude * 100).rounded() / 100),\((c.longitude * 100).rounded() / 100)"
    }

    /// Photos and videos in time order, split where a pause is longer than the person's usual
    /// (an hour near home, three away) or where they moved more than two kilometres.
    private func photoRuns(_ media: [LibraryItem], places: Whereabouts) -> [[LibraryItem]] {
        var runs: [[LibraryItem]] = []
        var last: LibraryItem?
        var lastPlace: Coordinate?
        for item in media {
            if let previous = last {
                let nearHome = (item.coordinate ?? lastPlace).map { places.isNearHome($0, at: item.startMs) } ?? true
                let pause = item.startMs - previous.endMs
                let moved = item.coordinate.flatMap { here in lastPlace.map { here.distance(to: $0) } } ?? 0
                if pause > (nearHome ? 3_600_000 : 3 * 3_600_000) || moved > 2_000 {
                    runs.append([item])
                } else {
                    runs[runs.count - 1].append(item)
                }
            } else {
                runs.append([item])
            }
            last = item
            if let c = item.coordinate { lastPlace = c }
        }
        return runs
    }

    /// Runs of two days or more spent away from home: anything more than ``awayDistance`` from home
    /// makes a day away. Distance, not a city's name: an address's city is written many ways ("Berlin",
    /// "10999 Berlin", a district's name), and a suburb is not a trip.
    private func trips(_ items: [LibraryItem], places: Whereabouts) -> [Moment] {
        var awayDays = Set<Int>()
        guard places.home(at: 0) != nil else { return [] }
        func isAway(_ item: LibraryItem) -> Bool {
            guard let there = Self.position(item), let home = places.home(at: item.startMs) else { return false }
            return there.distance(to: home) > Self.awayDistance
        }
        func isKnown(_ item: LibraryItem) -> Bool { places.isKnown(item) }
        for item in items where isAway(item) { awayDays.insert(dayIndex(item)) }
        var runs: [[Int]] = []
        for day in awayDays.sorted() {
            if let last = runs.last?.last, last == day - 1 { runs[runs.count - 1].append(day) } else { runs.append([day]) }
        }
        return runs.filter { $0.count >= 2 }.compactMap { days in
            let span = Set(days)
            let inDays = items.filter { span.contains(dayIndex($0)) || (span.contains(dayIndex($0.endMs, $0)) && $0.kind == .locationGroup) }
            // From leaving to coming back: from the end of the last stay at home, work or another
            // known place before the first thing far from home (the way to the station is the
            // trip's), to the start of the first stay at one after the last (the way back is too);
            // without such a stay within six hours, the first and last things far from home.
            // A day's places (a LocationGroup) run to the day's end: its visits, not it, say when.
            let edges = inDays.filter { $0.kind != .locationGroup }
            guard var start = edges.first(where: isAway)?.startMs, var end = edges.filter(isAway).map(\.endMs).max() else { return nil }
            if let left = items.last(where: { $0.kind == .location && $0.endMs <= start && isKnown($0) }), start - left.endMs <= Self.tripEdge {
                start = left.endMs
            }
            if let back = items.first(where: { $0.kind == .location && $0.startMs >= end && isKnown($0) }), back.startMs - end <= Self.tripEdge {
                end = back.startMs
            }
            var during = inDays.filter { $0.startMs >= start && $0.startMs <= end }
                .filter { [.locationGroup, .livePhoto, .photo, .video, .workout, .stateOfMind, .location].contains($0.kind) && !isDailyMood($0) }
            // Where it was: the days' places where the data groups them, and on other days the
            // day's longest stay away (the hotel, the day's sight), not every platform on the way.
            let grouped = Set(during.filter { $0.kind == .locationGroup }.map { dayIndex($0) })
            var longestByDay: [Int: LibraryItem] = [:]
            for stay in during where stay.kind == .location && isAway(stay) && !grouped.contains(dayIndex(stay)) {
                let day = dayIndex(stay)
                if let current = longestByDay[day],
                   (current.endMs - current.startMs, Self.orderKey(stay.id)) >= (stay.endMs - stay.startMs, Self.orderKey(current.id)) { continue }
                longestByDay[day] = stay
            }
            let longest = Set(longestByDay.values.map(\.id))
            during.removeAll { $0.kind == .location && !longest.contains($0.id) }
            guard let first = during.first else { return nil }
            // Where it went: the city most of its places are in.
            var counts: [String: Int] = [:]
            for item in during { if case .location(let l) = item.asset, !l.city.isEmpty, isAway(item) { counts[l.city, default: 0] += 1 } }
            let city = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? Self.cell(first.coordinate)
            return Moment(kind: .trip, anchor: first.startMs, place: city, items: during, window: (start, end))
        }
    }

    /// Each item once, and each person once (a photo and the evening's invitation both name her).
    private func unique(_ items: [LibraryItem]) -> [LibraryItem] {
        var seen = Set<UUID>()
        var people = Set<String>()
        return items.filter { item in
            guard seen.insert(item.id).inserted else { return false }
            if case .contact(let c) = item.asset { return people.insert(c.name).inserted }
            return true
        }
    }

    /// At most 13: what the moment is about first; where a kind has more than the places left,
    /// spread over the moment's time rather than its first minutes; then in time order.
    private func cap(_ items: [LibraryItem], kind: SuggestionKind) -> [LibraryItem] {
        let priority: [AssetKind] = switch kind {
        case .trip: [.locationGroup, .location, .workout, .livePhoto, .video, .stateOfMind, .photo]
        case .weeklySummary: [.workoutGroup, .locationGroup, .motionActivity, .livePhoto, .photo]
        case .workout: [.workout, .location, .photo, .livePhoto, .video, .stateOfMind, .motionActivity, .song, .podcast]
        // The place says where the moment was: it is never crowded out by photos.
        case .outing: [.location, .contact, .livePhoto, .video, .stateOfMind, .photo, .song]
        case .timeAtHome: [.location, .stateOfMind, .livePhoto, .video, .photo, .genericMedia, .podcast, .song]
        default: AssetKind.allCases
        }
        func rank(_ item: LibraryItem) -> Int { priority.firstIndex(of: item.kind) ?? priority.count }
        var kept: [LibraryItem] = []
        for (_, group) in Dictionary(grouping: items, by: rank).sorted(by: { $0.key < $1.key }) {
            let room = Self.maxItems - kept.count
            if room <= 0 { break }
            if group.count <= room {
                kept += group
            } else {
                kept += (0..<room).map { group[$0 * group.count / room] }
            }
        }
        return kept.sorted { ($0.startMs, rank($0), Self.orderKey($0.id)) < ($1.startMs, rank($1), Self.orderKey($1.id)) }
    }

    /// How meaningful a moment is, before recency (the lists add that against the library's
    /// newest moment) and rotation (the store lowers what was shown and released).
    private func score(_ kind: SuggestionKind, _ items: [LibraryItem], pool: Int) -> Double {
        let base: Double = switch kind {
        case .trip: 5
        case .weeklySummary: 3.5
        case .outing: items.contains { $0.kind == .contact } ? 4 : 3
        case .workout: items.contains { [.photo, .livePhoto, .video].contains($0.kind) } ? 3 : 2.5
        case .photos: 2 + min(1, log10(Double(pool)) / 2)
        case .timeAtHome: 1.8
        case .reflection: 1.6
        case .contact: 1.4
        case .media: 1.2
        case .stateOfMind: 1.0
        default: 0.8
        }
        let variety = Double(Set(items.map(\.kind)).count) * 0.25
        return base + variety
    }

    /// A deterministic identifier from a moment's kind, start and place: building the same days
    /// again gives the same id (a reminder's link stays valid), and never a second moment.
    public static func stableID(_ key: String) -> UUID {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var hash2: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in key.utf8 {
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
        guard var first = items.first else { return "" }
        // The part of the day is the moment's own: the workout's start, not the night's stay it
        // began from; the photos at home, not the stay's start.
        switch kind {
        case .workout: first = items.first { $0.kind == .workout } ?? first
        case .timeAtHome: first = items.first { Self.homeContent.contains($0.kind) } ?? first
        default: break
        }
        let part = partOfDay(first)
        let located = items.lazy.compactMap { item -> Location? in
            if case .location(let l) = item.asset, !l.place.isEmpty { return l }
            return nil
        }.first
        let place = located.map { Self.located($0.place, city: $0.city) }
        let people = items.compactMap { item -> String? in
            if case .contact(let c) = item.asset { return c.name.split(separator: " ").first.map(String.init) }
            return nil
        }
        let weekday = weekdayName(first)
        switch kind {
        case .workout:
            // A workout the person named ("Tempelhofer Feld intervals") is called what they called it.
            if let own = items.lazy.compactMap({ item -> String? in
                if case .workout(let w) = item.asset, let name = w.details?.localizedName, Self.isOwnName(name) { return name }
                return nil
            }).first { return own }
            let noun = items.lazy.compactMap { item -> String? in
                if case .workout(let w) = item.asset { return Self.activityNoun(w.details) }
                return nil
            }.first
            let activity = noun.map { "\(part) \($0)" } ?? "\(part) activity"
            return place.map { "\(activity) \($0)" } ?? activity
        case .outing:
            let with = people.isEmpty ? "" : " with " + people.prefix(2).joined(separator: " and ")
            if let place { return "\(part)\(with) \(place)" }
            // Without the place, "out" would say what only the place said.
            return people.isEmpty ? "\(weekday) \(part.lowercased())" : "\(part)\(with)"
        case .timeAtHome:
            return place != nil ? "\(weekday) \(part.lowercased()) at home" : "A quiet \(weekday) \(part.lowercased())"
        case .trip:
            let cities = items.flatMap { item -> [String] in
                switch item.asset {
                case .location(let l): [l.city]
                case .locationGroup(let g): g.locations.map(\.city)
                default: []
                }
            }.filter { !$0.isEmpty }
            let days = Set(items.map { dayIndex($0) }).count
            // The city most of its places are in (the first of equals): where the trip went.
            let counts = Dictionary(cities.map { ($0, 1) }, uniquingKeysWith: +)
            if let city = cities.first(where: { counts[$0] == counts.values.max() }) { return "\(days) \(days == 1 ? "day" : "days") in \(city)" }
            // No place kept: being away is what the places said, so the title is just the days.
            return span(items)
        case .weeklySummary:
            let last = items.max { $0.endMs < $1.endMs }!
            return "Your week from \(dayAndMonth(week(of: last.endMs, last).monday))"
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
        switch dayIndex(last) - dayIndex(first) {
        case 0: return "\(weekdayName(first)) \(partOfDay(first).lowercased())"
        case 1..<7: return "\(weekdayName(first)) to \(weekdayName(last))"
        default: return "\(dayAndMonth(dayIndex(first))) to \(dayAndMonth(dayIndex(last)))"
        }
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
    /// photo's EXIF offset, a trip abroad), else the person's time zone's at that moment.
    private func offsetMs(_ timeMs: Int64, _ item: LibraryItem?) -> Int64 {
        if let own = item?.utcOffsetSeconds { return Int64(own) * 1000 }
        return Int64(timeZone.secondsFromGMT(for: Date(unixMs: timeMs))) * 1000
    }

    /// The local day (days since 1970-01-01) `item` starts on.
    func dayIndex(_ item: LibraryItem) -> Int { dayIndex(item.startMs, item) }

    /// The local day of `timeMs`, reckoned in `item`'s time (or the person's).
    func dayIndex(_ timeMs: Int64, _ item: LibraryItem? = nil) -> Int {
        Int(Civil.floorDiv(timeMs + offsetMs(timeMs, item), 86_400_000))
    }

    /// The Monday-to-Sunday week holding `timeMs`, as [start, end) in ms, and its Monday's day
    /// index. Reckoned by hand: Foundation's week arithmetic on Linux does not agree with itself
    /// across versions, and a DateFormatter per title is slow at 100,000 moments.
    /// - Parameters:
    ///   - timeMs: a moment, ms since 1970.
    ///   - item: the item whose own offset from UTC applies, if any.
    public func week(of timeMs: Int64, _ item: LibraryItem? = nil) -> (start: Int64, end: Int64, monday: Int) {
        let day = dayIndex(timeMs, item)
        let monday = day - (Civil.weekday(day) + 6) % 7
        // Each edge at its own local midnight: a week that holds a clock change is 167 or 169 hours
        // long, and one week ends where the next begins (with the offset at `timeMs` for both, the
        // week of a change ended an hour early or late, and left an hour to no week or two).
        return (midnight(monday, item), midnight(monday + 7, item), monday)
    }

    /// The instant a local day begins: in `item`'s own offset from UTC when it gives one (a photo
    /// abroad), else in the person's time zone as it is at that midnight.
    private func midnight(_ day: Int, _ item: LibraryItem?) -> Int64 {
        if let own = item?.utcOffsetSeconds { return Int64(day) * 86_400_000 - Int64(own) * 1000 }
        return KnownPlaces.LocalClock(timeZone: timeZone).ms(day: day, hour: 0)
    }

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                 "October", "November", "December"]

    private func weekdayName(_ item: LibraryItem) -> String { Self.weekdays[Civil.weekday(dayIndex(item))] }

    /// "13 November".
    private func dayAndMonth(_ day: Int) -> String {
        let (_, month, dayOfMonth) = Civil.date(day)
        return "\(dayOfMonth) \(Self.months[month - 1])"
    }

    /// Month × 100 + day of the month `item` starts on, in its local time ("on this day").
    func monthDay(_ item: LibraryItem) -> Int {
        let (_, month, day) = Civil.date(dayIndex(item))
        return month * 100 + day
    }

    /// The year `item` starts in, in its local time.
    func year(_ item: LibraryItem) -> Int { Civil.date(dayIndex(item)).year }

    private func partOfDay(_ item: LibraryItem) -> String {
        let hour = Civil.floorMod(item.startMs + offsetMs(item.startMs, item), 86_400_000) / 3_600_000
        switch hour {
        case 5..<12: return "Morning"
        case 12..<17: return "Afternoon"
        case 17..<22: return "Evening"
        default: return "Night"
        }
    }

    // MARK: Lists

    /// The most suggestions Recommended holds: a short list a person scrolls, not the library.
    public static let recommendedLimit = 24
    /// The most suggestions of one kind Recommended holds.
    public static let recommendedPerKind = 3
    /// How many candidates of each kind Recommended considers (best by rank, and newest).
    static let candidatesPerKind = 12
    /// Every kind of moment the builder makes.
    static let kinds: [SuggestionKind] = [.outing, .workout, .trip, .weeklySummary, .timeAtHome, .reflection, .stateOfMind,
                                          .media, .contact, .photos, .motion]

    /// A stored suggestion as the person may see it, after their settings: items of disabled
    /// categories, excluded items and items that are not memories are removed, and the title is
    /// made again from what remains. `nil` when nothing remains.
    /// - Parameters:
    ///   - suggestion: the stored suggestion.
    ///   - items: its items, by id (others may be there too).
    ///   - enabled: the categories the person has on.
    ///   - events: the calendar events around it: a title made again keeps an event's summary only
    ///     while a remaining item lies within the event.
    ///   - hidden: the person's hidden rules (SuggestionBuilder+Hidden.swift): a hidden suggestion,
    ///     or one only about a hidden person (titled by them, no one else's contact left), is `nil`;
    ///     hidden people's contacts, hidden places' visits and photos and hidden days' items are left out.
    public func listing(_ suggestion: StoredSuggestion, items: [UUID: LibraryItem], enabled: Set<PickerdWire.Category>,
                        events: [EventSpan] = [], hidden: HiddenRules = .none) -> ListedSuggestion? {
        if hidden.hides(suggestion: suggestion.id) { return nil }
        let kept = suggestion.itemIDs.compactMap { items[$0] }
            .filter { enabled.contains($0.kind.category) && !$0.excludedFromSuggestions && $0.notAMemory == nil && !hides($0, hidden) }
        guard !kept.isEmpty else { return nil }
        var listed = suggestion
        listed.itemIDs = kept.map(\.id)
        listed.title = kept.count == suggestion.itemIDs.count ? suggestion.title : title(suggestion.kind, kept, events: events)
        // A moment about a hidden person: named by them, with no one else left (an evening with them).
        if hidden.namesHiddenPerson(listed.title)
            || (hidden.namesHiddenPerson(suggestion.title) && !kept.contains { $0.kind == .contact }) { return nil }
        // The stored window, unless items were left out: then only what remains says when.
        if kept.count != suggestion.itemIDs.count { (listed.startMs, listed.endMs) = span(suggestion.kind, kept) }
        return ListedSuggestion(suggestion: listed, items: kept, events: events)
    }

    /// The two lists the picker shows, from suggestions and items held in memory (tools and
    /// tests; pickerd reads them a page at a time with ``firstPage(from:enabled:now:pageSize:)``).
    /// - Parameters:
    ///   - suggestions: the stored suggestions.
    ///   - items: the library (at least every item the suggestions name).
    ///   - enabled: the categories the person has on.
    ///   - events: the library's calendar events.
    ///   - hidden: the person's hidden rules.
    /// - Returns: Recommended (a short list: meaningful first, kinds mixed, newer favoured, no
    ///   title twice) and Recent (every visible suggestion, newest first).
    public func lists(suggestions: [StoredSuggestion], items: [LibraryItem], enabled: Set<PickerdWire.Category>,
                      events: [EventSpan] = [], hidden: HiddenRules = .none) -> SuggestionLists {
        let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        let visible = suggestions.compactMap { s in
            listing(s, items: byID, enabled: enabled, events: events.filter { $0.startMs <= s.endMs && $0.endMs >= s.startMs }, hidden: hidden)
        }
        let recent = visible.map { (listed: $0, id: Self.orderKey($0.suggestion.id)) }
            .sorted { ($0.listed.suggestion.endMs, $0.id) > ($1.listed.suggestion.endMs, $1.id) }.map(\.listed)
        let newest = visible.map(\.suggestion.endMs).max() ?? 0
        let byListed = Dictionary(visible.map { ($0.suggestion.id, $0) }, uniquingKeysWith: { a, _ in a })
        return SuggestionLists(recommended: recommended(visible.map(\.suggestion), newest: newest).compactMap { byListed[$0.id] },
                               recent: recent)
    }

    /// Recommended, chosen from `candidates`: the best score first, where recency adds up to 2
    /// (halving in about five days before the library's newest moment) and a kind among the last
    /// three picks costs 1.5 each, so kinds mix; a title already chosen is passed over; at most
    /// ``recommendedPerKind`` of a kind and ``recommendedLimit`` in all. Ties go to the smaller id.
    /// One candidate per kind per pick.
    /// - Parameters:
    ///   - candidates: suggestions (their rank already lowered by rotation).
    ///   - newest: the library's newest moment's end, ms since 1970.
    ///   - bonus: extra score for some (an "on this day" moment), by id.
    func recommended(_ candidates: [StoredSuggestion], newest: Int64, bonus: [UUID: Double] = [:]) -> [StoredSuggestion] {
        typealias Entry = (suggestion: StoredSuggestion, score: Double, id: OrderKey)
        var queues: [SuggestionKind: ArraySlice<Entry>] = [:]
        for (kind, members) in Dictionary(grouping: candidates, by: \.kind) {
            queues[kind] = members.map { s -> Entry in
                let age = Double(max(0, newest - s.endMs)) / 86_400_000
                return (s, s.rank + 2 * exp(-age / 7) + (bonus[s.id] ?? 0), Self.orderKey(s.id))
            }.sorted { ($0.score, $1.id) > ($1.score, $0.id) }[...]
        }
        var chosen: [StoredSuggestion] = []
        var titles = Set<String>()
        while chosen.count < Self.recommendedLimit {
            let recentKinds = chosen.suffix(3).map(\.kind)
            var best: (kind: SuggestionKind, score: Double, id: OrderKey)?
            for (kind, queue) in queues {
                guard let head = queue.first else { continue }
                let score = head.score - 1.5 * Double(recentKinds.filter { $0 == kind }.count)
                if let current = best, (score, current.id) <= (current.score, head.id) { continue }
                best = (kind, score, head.id)
            }
            guard let kind = best?.kind else { break }
            let next = queues[kind]!.removeFirst().suggestion
            if titles.insert(next.title.lowercased()).inserted { chosen.append(next) }
            // A kind has its say a few times, then leaves room for the others.
            if chosen.count(where: { $0.kind == kind }) >= Self.recommendedPerKind { queues[kind] = nil }
        }
        return chosen
    }

    /// What a presentation shows first, read through the store's indexes: Recommended whole (it
    /// is short), the first page of Recent, and how long Recent is. Nothing here reads a whole table.
    /// - Parameters:
    ///   - store: the store.
    ///   - enabled: the categories the person has on.
    ///   - now: the present, ms since 1970 (for "on this day").
    ///   - pageSize: how many of Recent to send first.
    /// - Returns: the lists as far as they are read.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func firstPage(from store: Store, enabled: Set<PickerdWire.Category>, now: Int64, pageSize: Int) throws(StoreError) -> FirstPage {
        let mask = Store.mask(enabled)
        let hidden = HiddenRules(try store.hiddenRules())
        let stored = try store.candidates(kinds: Self.kinds, enabled: mask, limit: Self.candidatesPerKind)
        // On this day, in earlier years: worth a look again, and titled so.
        let today = Civil.date(dayIndex(now))
        let earlier = try store.suggestions(onMonthDay: today.month * 100 + today.day, endingBefore: now - 300 * 86_400_000,
                                            enabled: mask, limit: 3)
        let recentStored = try store.recentSuggestions(enabled: mask, offset: 0, limit: pageSize)
        // Chosen from the stored moments (the mask already says each has a visible item); only the
        // chosen and the first page of Recent are read with their items.
        var bonus: [UUID: Double] = [:]
        // Ranked only among what the person may see: a hidden suggestion takes no place in Recommended.
        var candidates = stored.filter { !hidden.hides(suggestion: $0.id) }
        for s in earlier where bonus[s.id] == nil && !hidden.hides(suggestion: s.id) {
            candidates.removeAll { $0.id == s.id }
            candidates.append(s)
            bonus[s.id] = 2.5
        }
        let newest = try store.newestSuggestionEnd() ?? now
        var chosen = recommended(candidates, newest: newest, bonus: bonus)
        var items = try itemsByID(store, chosen + recentStored)
        if !hidden.isEmpty {
            // Ranked again without what the person's rules leave with nothing to show.
            items = try itemsByID(store, candidates + recentStored)
            let events = try eventsByID(store, candidates)
            candidates.removeAll { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) == nil }
            chosen = recommended(candidates, newest: newest, bonus: bonus)
        }
        let events = try eventsByID(store, chosen + recentStored)
        let picked = chosen.compactMap { s -> ListedSuggestion? in
            guard var listed = listing(s, items: items, enabled: enabled, events: events[s.id] ?? [], hidden: hidden) else { return nil }
            if bonus[s.id] != nil {
                // On this day, in an earlier year: titled so.
                let years = today.year - year(listed.items[0])
                listed.suggestion.title = "\(years == 1 ? "A year" : "\(years) years") ago today: \(listed.suggestion.title)"
            }
            return listed
        }
        return FirstPage(recommended: picked,
                         recent: recentStored.compactMap { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) },
                         recentTotal: try store.visibleSuggestionCount(enabled: mask))
    }

    /// A page of Recent, newest first, through the store's index.
    /// - Parameters:
    ///   - store: the store.
    ///   - enabled: the categories the person has on.
    ///   - offset: how many to skip.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func recentPage(from store: Store, enabled: Set<PickerdWire.Category>, offset: Int, limit: Int) throws(StoreError) -> [ListedSuggestion] {
        let hidden = HiddenRules(try store.hiddenRules())
        let stored = try store.recentSuggestions(enabled: Store.mask(enabled), offset: offset, limit: limit)
        let items = try itemsByID(store, stored)
        let events = try eventsByID(store, stored)
        return stored.compactMap { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) }
    }

    /// One suggestion as the person may see it (an app's token preloads it), or `nil`.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func listed(id: UUID, from store: Store, enabled: Set<PickerdWire.Category>) throws(StoreError) -> ListedSuggestion? {
        guard let stored = try store.suggestion(id: id) else { return nil }
        return listing(stored, items: try itemsByID(store, [stored]), enabled: enabled, events: try eventsByID(store, [stored])[stored.id] ?? [],
                       hidden: HiddenRules(try store.hiddenRules()))
    }

    private func itemsByID(_ store: Store, _ suggestions: [StoredSuggestion]) throws(StoreError) -> [UUID: LibraryItem] {
        Dictionary(try store.items(suggestions.flatMap(\.itemIDs)).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// What a presentation shows first (``SuggestionBuilder/firstPage(from:enabled:now:pageSize:)``).
public struct FirstPage: Sendable {
    /// Recommended, whole.
    public var recommended: [ListedSuggestion]
    /// Recent's first page.
    public var recent: [ListedSuggestion]
    /// How many suggestions Recent holds in all.
    public var recentTotal: Int
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
    /// The calendar events around it (summaries and times only, never sent): what a title made
    /// again from the items the person kept may be named by (``SuggestionBuilder/title(of:kept:)``).
    public var events: [EventSpan] = []

    /// The wire form a picker gets: media described but not attached, and the local time's offset
    /// where the moment happened (``localUTCOffsetSeconds``). Never an app's outcome.
    public var wire: Suggestion {
        Suggestion(id: suggestion.id.uuidString, title: suggestion.title,
                   date: PickerdWire.DateInterval(startUnixMs: suggestion.startMs, endUnixMs: suggestion.endMs),
                   items: items.map(\.wireItem), kind: suggestion.kind, localUtcOffsetS: localUTCOffsetSeconds.map(Int64.init))
    }

    /// The offset from UTC of the local time where the moment happened: the one most of its items
    /// give of their own (a photo's EXIF offset, a place's time zone; ties to the earliest), or
    /// `nil` when none does (then it is the person's).
    public var localUTCOffsetSeconds: Int32? {
        var counts: [Int32: (count: Int, first: Int)] = [:]
        for (index, item) in items.enumerated() {
            guard let offset = item.utcOffsetSeconds else { continue }
            counts[offset, default: (0, index)].count += 1
        }
        return counts.max { ($0.value.count, -$0.value.first) < ($1.value.count, -$1.value.first) }?.key
    }
}

/// The picker's two lists.
public struct SuggestionLists: Sendable, Hashable {
    /// Ranked: meaningful first, kinds mixed, newer favoured.
    public var recommended: [ListedSuggestion]
    /// Newest first.
    public var recent: [ListedSuggestion]
}
