import Foundation
import PickerdStore
import PickerdWire

/// Time at home: a stay there with something to remember (photos, videos, what was read), with its
/// music and mood; music or a mood alone is every evening. A stay at home may last days (a long
/// weekend): each run of what it holds, split where nothing happened for
/// ``MomentTuning/homePause``, is one moment, with the music and moods of that time.
struct HomeMoments: MomentStage {
    /// What makes time at home worth remembering: photos, videos, what was read.
    static let content: Set<AssetKind> = [.photo, .livePhoto, .video, .genericMedia]

    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let pause = input.tuning.homePause.ms
        for visit in input.timeline.stays {
            guard case .location(let l) = visit.asset, input.whereabouts.isHome(visit) else { continue }
            var runs: [[LibraryItem]] = []
            for item in input.within(visit.startMs, visit.endMs, kinds: Self.content) where !claims.holds(item) {
                if let last = runs.last?.last, item.startMs - last.endMs <= pause {
                    runs[runs.count - 1].append(item)
                } else {
                    runs.append([item])
                }
            }
            for run in runs {
                let from = run[0].startMs, to = run.map(\.endMs).max()!
                let with = input.within(from, to, kinds: [.song, .podcast, .stateOfMind]).filter { !claims.holds($0) && !$0.isDailyMood }
                found.append(Moment(kind: .timeAtHome, anchor: from, place: l.place, items: [visit] + run + with))
                claims.take(run + with)
            }
        }
    }
}
