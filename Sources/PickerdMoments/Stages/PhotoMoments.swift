import Foundation
import PickerdStore
import PickerdWire

/// Photos and videos no moment took, and calendar events. What the moments found so far hold is
/// theirs (a week's summary aside: its photos may still make a moment). The rest, in one
/// time-ordered pass, is split into runs where the person paused (longer away than near home:
/// ``MomentTuning/photoPauseNearHome``, ``MomentTuning/photoPauseAway``) or moved on
/// (``MomentTuning/photoRunMove``). A timed calendar event joins what happened during it (the runs
/// that reach into it, the people there) into one moment, or into the outing or time at home it was
/// part of; a run of ``MomentTuning/minimumPhotoRun`` or more is a moment of its own.
struct PhotoMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        for moment in found where moment.kind != .weeklySummary { claims.take(moment.items) }
        var runs = runs(input.timeline.items.filter { $0.isPhotoOrVideo && !claims.holds($0) }, input)
        for event in input.events.filter(\.joinsMoments).sorted(by: { ($0.startMs, $0.id) < ($1.startMs, $1.id) }) {
            var group: [LibraryItem] = []
            runs.removeAll { run in
                guard run.contains(where: { event.holds($0.startMs) }) else { return false }
                group += run
                return true
            }
            group += input.within(event.startMs, event.endMs, kinds: [.contact]).filter { !claims.holds($0) && event.holds($0.startMs) }
            guard !group.isEmpty else { continue }
            let host = found.firstIndex(where: { moment in
                (moment.kind == .outing || moment.kind == .timeAtHome) && moment.items.contains { event.holds($0) }
            })
            // The weekly meeting's colleagues, and nothing else: routine, as work is.
            if host == nil && group.allSatisfy(input.isRoutinePerson) { continue }
            claims.take(group)
            if let host {
                found[host].items += group
            } else {
                let media = group.contains(where: \.isPhotoOrVideo)
                found.append(Moment(kind: media ? .photos : .contact, anchor: event.startMs, place: "event|\(event.id)",
                                    items: group.sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }))
            }
        }
        for run in runs where run.count >= input.tuning.minimumPhotoRun {
            found.append(Moment(kind: .photos, anchor: run[0].startMs, place: SuggestionBuilder.cell(run[0].coordinate), items: run))
            claims.take(run)
        }
    }

    /// Photos and videos in time order, split where a pause is longer than the person's usual (near
    /// home or away) or where they moved farther than ``MomentTuning/photoRunMove``.
    func runs(_ media: [LibraryItem], _ input: StageInput) -> [[LibraryItem]] {
        let nearPause = input.tuning.photoPauseNearHome.ms, awayPause = input.tuning.photoPauseAway.ms
        var runs: [[LibraryItem]] = []
        var last: LibraryItem?
        var lastPlace: Coordinate?
        for item in media {
            if let previous = last {
                let nearHome = (item.coordinate ?? lastPlace).map { input.whereabouts.isNearHome($0, at: item.startMs) } ?? true
                let pause = item.startMs - previous.endMs
                let moved = item.coordinate.flatMap { here in lastPlace.map { here.distance(to: $0) } } ?? 0
                if pause > (nearHome ? nearPause : awayPause) || moved > input.tuning.photoRunMove {
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
}
