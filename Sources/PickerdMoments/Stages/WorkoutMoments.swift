import Foundation
import PickerdStore
import PickerdWire

/// Workouts with what happened during them: the workout's own time, the photos, music, motion and
/// mood within ``MomentTuning/workoutMargin`` of it, and the place it was at (a visit holding most
/// of it, never what follows). A walk the location history recorded is the same walk as a track
/// from a watch or an app over the same time: the track (its name, route and distance) stands for it.
/// Routine workouts (the commute, the gym most weeks) were taken before, by ``RoutineWorkouts``.
struct WorkoutMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let items = input.timeline.items
        let margin = input.tuning.workoutMargin.ms
        let tracked = items.filter { $0.kind == .workout && $0.externalID != SuggestionBuilder.locationHistoryFormat }
        let workouts = items.filter { workout in
            // A routine workout (``RoutineWorkouts``) is no moment of its own.
            guard workout.kind == .workout, !claims.holds(workout) else { return false }
            guard workout.externalID == SuggestionBuilder.locationHistoryFormat else { return true }
            return !tracked.contains { SuggestionBuilder.overlap(workout, $0) * 2 > min(workout.endMs - workout.startMs, $0.endMs - $0.startMs) }
        }
        for workout in workouts {
            let window = input.within(workout.startMs - margin, workout.endMs + margin,
                                      kinds: [.photo, .livePhoto, .video, .song, .podcast, .motionActivity, .stateOfMind])
                .filter { !$0.isDailyMood && !claims.holds($0) }
            // The place it was at: a visit holding most of it (a run that starts where the night's
            // stay ends is not "at home"), else where it went, unless that is near home and named
            // only by its city (a run from the door is "Morning run", not "in Berlin"; but it may
            // be "Morning run in Treptow", the neighbourhood it turned in).
            let visits = input.within(workout.startMs - input.tuning.workoutVisitLookback.ms, workout.endMs, kinds: [.location])
                .filter { SuggestionBuilder.overlap($0, workout) * 2 > max(1, workout.endMs - workout.startMs) }
                .filter { $0.externalID != SuggestionBuilder.workoutPlaceTag || SuggestionBuilder.namesNeighbourhood($0)
                    || SuggestionBuilder.position($0).map { !input.whereabouts.isNearHome($0, at: workout.startMs) } ?? false }
                .sorted { ($0.externalID == SuggestionBuilder.workoutPlaceTag ? 1 : 0) < ($1.externalID == SuggestionBuilder.workoutPlaceTag ? 1 : 0) }
            let at = visits.first.map(\.placeName) ?? ""
            found.append(Moment(kind: .workout, anchor: workout.startMs, place: at, items: [workout] + visits.prefix(1) + window))
            claims.take(window)
        }
    }
}

extension LibraryItem {
    /// A Location item's place name ("" for any other item).
    var placeName: String {
        if case .location(let l) = asset { return l.place }
        return ""
    }
}
