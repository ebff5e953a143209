import Foundation
import PickerdStore
import PickerdWire

/// Moods join the moment of their day they belong to, as Apple bundles a State of Mind into the
/// outing, activity or time at home it belongs to: a mood no moment took (the day's mood an app asks
/// for in the evening, a feeling logged between moments) joins the last workout, outing, time at
/// home, run of photos or trip of its local day that began before it, else the first of that day.
/// It is shown with that moment and never stretches its window (``SuggestionBuilder/span(_:_:)``
/// leaves moods out). Only a mood on a day no such moment marks stands alone
/// (``StandaloneMoments``). Weekly summaries show the week's moods as they did.
struct JoinedMoods: MomentStage {
    /// The moments a mood may join.
    static let joins: Set<SuggestionKind> = [.workout, .outing, .timeAtHome, .photos, .trip]

    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let time = input.time
        // Each candidate moment's first day and its start, by index into `found`.
        var byDay: [Int: [(start: Int64, index: Int)]] = [:]
        for (index, moment) in found.enumerated() where Self.joins.contains(moment.kind) {
            let timed = moment.items.filter { $0.kind != .stateOfMind }
            guard let first = timed.min(by: { $0.startMs < $1.startMs }) else { continue }
            let start = moment.window?.start ?? first.startMs
            let last = moment.window?.end ?? timed.map(\.endMs).max()!
            // A trip (or a long day out) marks every day it spans.
            for day in time.day(start, offset: first.utcOffsetSeconds)...max(time.day(start, offset: first.utcOffsetSeconds),
                                                                              time.day(last, offset: first.utcOffsetSeconds)) {
                byDay[day, default: []].append((start, index))
            }
        }
        var joined: [LibraryItem] = []
        for mood in input.timeline.items where mood.kind == .stateOfMind && !claims.holds(mood) {
            guard let candidates = byDay[time.day(of: mood)]?.sorted(by: { ($0.start, $0.index) < ($1.start, $1.index) }),
                  let target = candidates.last(where: { $0.start <= mood.startMs }) ?? candidates.first else { continue }
            found[target.index].items.append(mood)
            joined.append(mood)
        }
        claims.take(joined)
    }
}
