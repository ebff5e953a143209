import Foundation
import PickerdStore
import PickerdWire

/// Routine workouts, before any workout becomes a moment: they are the person's routine, as visits
/// to work and the usual café are, and make no moment one by one. Each still counts in its week's
/// summary, which shows every workout of the week (``WeeklySummaries``). This stage takes them
/// (``Claims``), so ``WorkoutMoments`` passes them over; it finds no moment.
///
/// A workout is routine when it is one of these, repeated:
/// - a **route between two known places** (home, work, a frequent place: its route starts within
///   ``MomentTuning/routeEndRadius`` of one and ends within it of another): the same activity
///   between the same two places, either way, on ``MomentTuning/routineRouteDays`` distinct days
///   within ``MomentTuning/routineLookaround`` of it (the rides to work);
/// - a **session at a frequent place or work** (a visit there holds most of it: the gym, the climbing
///   wall): the same activity there on ``MomentTuning/routineSessionDays`` days in
///   ``MomentTuning/routineSessionWeeks`` weeks within the same reach.
///
/// A repeat is notable again, and left to ``WorkoutMoments``, when it was on a Saturday or Sunday
/// morning with photos or videos during it, or ``MomentTuning/routineLonger`` times as long as the
/// route's usual (the long way home).
///
/// Whatever the repeats, a walk a location history recorded (Google's segments, whichever export
/// holds them) from one known place to another is never a workout: it is the way to work or the
/// shops, which a phone records every day.
struct RoutineWorkouts: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let tuning = input.tuning, time = input.time
        var groups: [String: [LibraryItem]] = [:]
        var routine: [LibraryItem] = []
        for workout in input.timeline.items where workout.kind == .workout && !claims.holds(workout) {
            guard case .workout(let w) = workout.asset else { continue }
            let activity = w.details?.activityType ?? 0
            if let ends = ends(w, workout, input) {
                if workout.externalID == SuggestionBuilder.locationHistoryFormat && activity == 52 {
                    routine.append(workout)
                    claims.markRoutine(workout, as: Self.label(activity, route: ends, input))
                } else if ends.0 != ends.1 {
                    groups["route|\(activity)|\(min(ends.0, ends.1))|\(max(ends.0, ends.1))", default: []].append(workout)
                }
            } else if let place = sessionPlace(workout, input) {
                groups["session|\(activity)|\(place)", default: []].append(workout)
            }
        }
        let reach = tuning.routineLookaround.ms
        for (key, members) in groups.sorted(by: { $0.key < $1.key }) {
            let isSession = key.hasPrefix("session|")
            for workout in members {
                let near = members.filter { abs($0.startMs - workout.startMs) <= reach }
                let days = Set(near.map { time.day(of: $0) })
                if isSession {
                    let weeks = Set(near.map { time.week(of: $0.startMs, offset: $0.utcOffsetSeconds).start })
                    guard days.count >= tuning.routineSessionDays, weeks.count >= tuning.routineSessionWeeks else { continue }
                } else {
                    guard days.count >= tuning.routineRouteDays else { continue }
                }
                if isNotable(workout, usual: near, input) { continue }
                routine.append(workout)
                let activity: UInt32 = if case .workout(let w) = workout.asset { w.details?.activityType ?? 0 } else { 0 }
                claims.markRoutine(workout, as: Self.label(activity, route: isSession ? nil : ends(workout, input), input))
            }
        }
        claims.take(routine)
    }

    /// What a routine workout was, as its week's summary counts it: a route's activity and where it
    /// led ("rides to work" when either end is work, else "walks to <the other end's name>", else
    /// "rides"); a session is its activity's ("climbing sessions").
    static func label(_ activity: UInt32, route: (String, String)?, _ input: StageInput) -> RoutineLabel {
        let (words, withPart) = SuggestionBuilder.activityWords[activity] ?? ("workout", true)
        let session = "\(words.lowercased()) session"
        guard let route else { return RoutineLabel(one: session, many: session + "s") }
        let noun = withPart ? words : session
        let places = [route.1, route.0].compactMap(input.whereabouts.placeWords)
        let to = places.contains("work") ? "work" : places.first { $0 != "home" }
        return to.map { RoutineLabel(one: "\(noun) to \($0)", many: "\(noun)s to \($0)") } ?? RoutineLabel(one: noun, many: noun + "s")
    }

    /// The known places a workout's route ends at (as ``ends(_:_:_:)``), or `nil`.
    private func ends(_ workout: LibraryItem, _ input: StageInput) -> (String, String)? {
        guard case .workout(let w) = workout.asset else { return nil }
        return ends(w, workout, input)
    }

    /// The known places a workout's route starts and ends at, or `nil` when either end is at none (or
    /// it has no route).
    private func ends(_ w: Workout, _ workout: LibraryItem, _ input: StageInput) -> (String, String)? {
        guard let first = w.route.first, let last = w.route.last, w.route.count >= 2 else { return nil }
        let radius = input.tuning.routeEndRadius
        guard let from = input.whereabouts.knownPlace(at: Coordinate(latitude: first.latitude, longitude: first.longitude),
                                                      time: workout.startMs, within: radius),
              let to = input.whereabouts.knownPlace(at: Coordinate(latitude: last.latitude, longitude: last.longitude),
                                                    time: workout.endMs, within: radius) else { return nil }
        return (from, to)
    }

    /// The frequent place (or work) a session was at: a stay there that holds most of it.
    private func sessionPlace(_ workout: LibraryItem, _ input: StageInput) -> String? {
        let duration = max(1, workout.endMs - workout.startMs)
        let stays = input.within(workout.startMs - input.tuning.workoutVisitLookback.ms, workout.endMs, kinds: [.location])
            .filter { $0.externalID != SuggestionBuilder.workoutPlaceTag && SuggestionBuilder.overlap($0, workout) * 2 > duration }
        for stay in stays where !input.whereabouts.isHome(stay) && input.whereabouts.isRoutine(stay) {
            guard let there = SuggestionBuilder.position(stay),
                  let place = input.whereabouts.knownPlace(at: there, time: stay.startMs, within: input.tuning.knownPlaceRadius),
                  place != "home" else { continue }
            return place
        }
        return nil
    }

    /// Whether a repeat stands out: a weekend morning with photos, or much longer than the usual.
    private func isNotable(_ workout: LibraryItem, usual: [LibraryItem], _ input: StageInput) -> Bool {
        let time = input.time
        let weekday = Civil.weekday(time.day(of: workout))
        let margin = input.tuning.workoutMargin.ms
        if weekday == 0 || weekday == 6, time.hour(workout.startMs, offset: workout.utcOffsetSeconds) < 12,
           input.within(workout.startMs - margin, workout.endMs + margin, kinds: [.photo, .livePhoto, .video]).contains(where: { _ in true }) {
            return true
        }
        let distances = usual.compactMap(\.workoutDistance)
        if let own = workout.workoutDistance, distances.count == usual.count {
            return own >= input.tuning.routineLonger * median(distances)
        }
        let durations = usual.map { Double($0.endMs - $0.startMs) }
        return Double(workout.endMs - workout.startMs) >= input.tuning.routineLonger * median(durations)
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

extension LibraryItem {
    /// A workout's distance as its data gives it (any unit: only compared with the same route's
    /// others), `nil` when none.
    var workoutDistance: Double? {
        guard case .workout(let w) = asset, let d = w.details?.distance, d.value > 0 else { return nil }
        return d.value
    }
}
