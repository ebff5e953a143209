import Foundation
import PickerdStore
import PickerdWire

/// Outings: stays at places other than home and work. A routine place (one the window's visits
/// reach on several days: the usual café, the supermarket) is an outing only with something notable
/// there (photos, someone not met most weeks) during the stay itself; anywhere else a stay of
/// ``MomentTuning/outingAlone`` is one by itself. Music alone is every commute: it makes no stay
/// notable. A stay takes what happened there and within ``MomentTuning/stayMargin`` either side (a
/// photo on arriving, the invitation's time), but never during the stay before or after.
struct OutingMoments: MomentStage {
    /// What makes a stay notable.
    static let notable: Set<AssetKind> = [.photo, .livePhoto, .video, .contact]

    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let margin = input.tuning.stayMargin.ms
        let stays = input.timeline.stays
        for (index, visit) in stays.enumerated() {
            guard case .location(let l) = visit.asset, !input.whereabouts.isHome(visit), l.isWorkLocation != true else { continue }
            // A visit during a workout belongs to the workout's moment.
            if input.within(visit.startMs - input.tuning.visitWorkoutLookback.ms, visit.endMs, kinds: [.workout])
                .contains(where: { $0.endMs > visit.startMs && $0.startMs < visit.endMs }) {
                continue
            }
            let from = max(visit.startMs - margin, index > 0 ? stays[index - 1].endMs : .min)
            let to = min(visit.endMs + margin, index + 1 < stays.count ? stays[index + 1].startMs : .max)
            let window = input.within(from, to, kinds: [.photo, .livePhoto, .video, .contact, .song, .stateOfMind])
                .filter { !$0.isDailyMood && !claims.holds($0) }
            let isRoutine = input.whereabouts.isRoutine(visit)
            // A colleague met most weeks (``StageInput/isRoutinePerson(_:)``) makes no day at work notable.
            let hasNotable = window.contains {
                Self.notable.contains($0.kind) && (!isRoutine || ($0.startMs >= visit.startMs - margin && $0.startMs <= visit.endMs))
                    && !input.isRoutinePerson($0)
            }
            if isRoutine ? !hasNotable : !hasNotable && visit.endMs - visit.startMs < input.tuning.outingAlone.ms { continue }
            found.append(Moment(kind: .outing, anchor: visit.startMs, place: l.place, items: [visit] + window))
            claims.take(window)
        }
    }
}
