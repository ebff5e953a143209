public import Foundation
public import PickerdStore
import PickerdWire
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
    public static let maxItems = MomentTuning.standard.maxItems

    /// The time zone days and parts of the day are reckoned in, for items whose data gives no
    /// offset of their own.
    public let timeZone: TimeZone
    /// Local time in ``timeZone``: days, weeks and parts of the day, as the person lived them.
    public let time: LocalTime
    /// The thresholds and weights of the stages and the ranking.
    public let tuning: MomentTuning

    /// Creates a builder.
    /// - Parameters:
    ///   - timeZone: the person's time zone: by default the system's (`TZ`, `/etc/localtime`).
    ///   - tuning: the thresholds and weights; the engine's own by default.
    public init(timeZone: TimeZone = .current, tuning: MomentTuning = .standard) {
        self.timeZone = timeZone
        time = LocalTime(timeZone: timeZone)
        self.tuning = tuning
    }

    // MARK: Building

    /// The stages that find moments, in order. The order is the rule of who owns an item: each takes
    /// what the moments it finds hold (``Claims``), and the stages after it leave those items alone.
    static let stages: [any MomentStage] = [
        RoutineWorkouts(), WorkoutMoments(), OutingMoments(), HomeMoments(), TripMoments(), WeeklySummaries(), PhotoMoments(),
        JoinedMoods(), StandaloneMoments(), ListeningMoments(),
    ]

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
    ///
    /// The pipeline: the window's ``Timeline``; where the person was (``Whereabouts``: home over time
    /// and the routine places, from ``KnownPlaces``); the moments each stage of ``stages`` finds, in
    /// order, each item owned by one; then each moment chosen, titled and scored
    /// (``suggestions(from:owning:events:)``).
    /// - Parameters:
    ///   - library: the items of the window, any order.
    ///   - home: where the person lives.
    ///   - owning: moments starting in this range (ms since 1970) are returned.
    ///   - events: the calendar events of the window (its summaries and times only), which join and
    ///     title moments (SuggestionBuilder+Events.swift).
    ///   - corrections: the person's word on where home and work are (``KnownPlaces/Correction``),
    ///     which wins over what the window's visits say: what is at home, what is routine, how far
    ///     away a trip is; and their names for places, which win in titles.
    /// - Returns: the suggestions, each with 1…13 items, a title, a score and a deterministic id.
    public func build(from library: [LibraryItem], home: HomeBase, owning: Range<Int64>, events: [EventSpan] = [],
                      corrections: [KnownPlaces.Correction] = []) -> [StoredSuggestion] {
        // The person's names for places come first, over their data's and the gazetteer's (``PersonsNames``).
        let library = PersonsNames(corrections).applied(to: library)
        let input = StageInput(timeline: Timeline(library),
                               whereabouts: Whereabouts(library, home: home, timeZone: timeZone, corrections: corrections, radius: tuning.knownPlaceRadius),
                               time: time, events: events, tuning: tuning)
        var claims = Claims()
        var moments: [Moment] = []
        for stage in Self.stages { stage.run(input, claims: &claims, found: &moments) }
        return suggestions(from: moments, owning: owning, events: events)
    }

    // MARK: Items and places

    /// `externalID` of workouts the location history recorded (activity segments long enough).
    static let locationHistoryFormat = "takeout"

    /// `externalID` of the Location item an import adds for where a workout went (its route's
    /// midpoint, named by the gazetteer): it names a workout away from home, and is never a stay
    /// (no outing, no time at home, no known place).
    public static let workoutPlaceTag = "workout-place"

    /// Whether a place item is named by a neighbourhood of a large city (the gazetteer's "Kreuzberg"
    /// in Berlin), not by the city itself.
    static func namesNeighbourhood(_ item: LibraryItem) -> Bool {
        guard case .location(let l) = item.asset, !l.place.isEmpty, l.place != l.city else { return false }
        return Gazetteer.isArea(l.place)
    }

    /// How long two items overlap, in ms (0 when they do not).
    static func overlap(_ a: LibraryItem, _ b: LibraryItem) -> Int64 {
        max(0, min(a.endMs, b.endMs) - max(a.startMs, b.startMs))
    }

    /// Where an item was: its own coordinate, else its place's (a visit, a day's places). Where the
    /// person's names (``PersonsNames``) look for a place item, and where a picker's "Name this
    /// place" names.
    /// - Parameter item: an item.
    /// - Returns: the coordinate, or `nil` for an item with no place.
    public static func position(_ item: LibraryItem) -> Coordinate? {
        if let c = item.coordinate { return c }
        switch item.asset {
        case .location(let l): return l.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        case .locationGroup(let g): return g.locations.first?.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        default: return nil
        }
    }

    /// A coordinate as a cell of about a kilometre, for ids: the same place, the same cell.
    static func cell(_ c: Coordinate?) -> String {
        guard let c else { return "" }
        return "\((c.latitude * 100).rounded() / 100),\((c.longitude * 100).rounded() / 100)"
    }

    // MARK: Time, as the person lived it (``LocalTime``)

    /// The Monday-to-Sunday week holding `timeMs`, as [start, end) in ms, and its Monday's day
    /// index (``LocalTime/week(of:offset:)``).
    /// - Parameters:
    ///   - timeMs: a moment, ms since 1970.
    ///   - item: the item whose own offset from UTC applies, if any.
    public func week(of timeMs: Int64, _ item: LibraryItem? = nil) -> (start: Int64, end: Int64, monday: Int) {
        time.week(of: timeMs, offset: item?.utcOffsetSeconds)
    }
}
