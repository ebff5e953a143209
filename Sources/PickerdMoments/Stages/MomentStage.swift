import Foundation
import PickerdStore
import PickerdWire

/// A moment before its items are chosen: what it is, when it begins (for its id and its window),
/// where (for its id), and every item it could hold.
struct Moment {
    var kind: SuggestionKind
    var anchor: Int64
    var place: String
    var items: [LibraryItem]
    /// When it was, where its items do not say it (a trip: from leaving to coming back).
    var window: (start: Int64, end: Int64)? = nil
    /// What its title adds after a colon (a week's routine: "18 rides to work, 96 km").
    var caption: String? = nil
}

/// Which items a moment has taken: each item belongs to one moment (what a workout took, no outing
/// takes too), a week's summary and a trip aside, which show what other moments hold.
struct Claims {
    private(set) var taken = Set<UUID>()

    /// Whether a moment took `item`.
    func holds(_ item: LibraryItem) -> Bool { taken.contains(item.id) }

    /// Records that a moment took `items`.
    mutating func take(_ items: some Sequence<LibraryItem>) { taken.formUnion(items.lazy.map(\.id)) }

    /// The routine workouts ``RoutineWorkouts`` took, each with what it was ("ride to work"), for
    /// their week's summary to count (``WeeklySummaries``).
    private(set) var routine: [UUID: RoutineLabel] = [:]

    /// Records that `item` is a routine workout, `label` what it was.
    mutating func markRoutine(_ item: LibraryItem, as label: RoutineLabel) { routine[item.id] = label }
}

/// What a routine workout was, as a week's summary counts it: "ride to work", "rides to work".
struct RoutineLabel: Hashable {
    /// One of them ("ride to work").
    var one: String
    /// Several ("rides to work").
    var many: String
}

/// What every stage reads: the window's timeline, where the person was, their local time, the
/// window's calendar events and the tuning.
struct StageInput {
    let timeline: Timeline
    let whereabouts: SuggestionBuilder.Whereabouts
    let time: LocalTime
    let events: [EventSpan]
    let tuning: MomentTuning

    /// Items of `kinds` starting in [start, end] (``Timeline/within(_:_:kinds:)``).
    func within(_ start: Int64, _ end: Int64, kinds: Set<AssetKind>) -> [LibraryItem] { timeline.within(start, end, kinds: kinds) }

    /// Whether a contact item names a person met (any contact item of theirs, taken or not) in
    /// ``MomentTuning/routinePersonWeeks`` distinct weeks within ``MomentTuning/routineLookaround`` of
    /// it: the colleague at the weekly meeting, routine as work is. Within what the engine reads
    /// around a window, so the same whichever window builds it.
    func isRoutinePerson(_ item: LibraryItem) -> Bool {
        guard case .contact(let person) = item.asset else { return false }
        let reach = tuning.routineLookaround.ms
        let weeks = Set(within(item.startMs - reach, item.startMs + reach, kinds: [.contact]).compactMap { other -> Int64? in
            guard case .contact(let c) = other.asset, c.name == person.name else { return nil }
            return time.week(of: other.startMs, offset: other.utcOffsetSeconds).start
        })
        return weeks.count >= tuning.routinePersonWeeks
    }
}

/// One stage of finding moments: it reads the window (``StageInput``), adds the moments of its kind
/// to `found`, and takes the items they hold in `claims`, so a later stage leaves them alone. The
/// stages run in ``SuggestionBuilder/stages``'s order, and the order is the rule of who owns an item:
/// workouts first, then outings, time at home, trips, weeks, photos and events, what stands alone,
/// and listening.
protocol MomentStage: Sendable {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment])
}

extension LibraryItem {
    /// Whether this is the day's mood an app records once a day (it belongs to the day, not to a
    /// moment of it).
    // Not inlined: Swift 6.3.1's optimizer trips its own ownership verifier when this is inlined
    // into the stages' closures in release builds.
    @inline(never)
    var isDailyMood: Bool {
        guard case .stateOfMind(let s) = asset, let state = s.state else { return false }
        return state.kind == .dailyMood
    }

    /// Steps, for motion (0 for anything else).
    @inline(never)
    var steps: Int64 {
        if case .motionActivity(let m) = asset { return m.steps }
        return 0
    }

    /// Whether this is a photo, Live Photo or video.
    var isPhotoOrVideo: Bool { kind == .photo || kind == .livePhoto || kind == .video }
}
