import Foundation
import PickerdStore
import PickerdWire

/// Trips: runs of ``MomentTuning/minimumTripDays`` days or more spent away from home, with what
/// happened then. Anything more than ``MomentTuning/awayDistance`` from home makes a day away:
/// distance, not a city's name (an address's city is written many ways, "Berlin", "10999 Berlin", a
/// district's name, and a suburb is not a trip). A trip takes no item from another moment: it shows
/// what the days away held.
struct TripMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        found += trips(input)
    }

    func trips(_ input: StageInput) -> [Moment] {
        let items = input.timeline.items, places = input.whereabouts, time = input.time
        guard places.home(at: 0) != nil else { return [] }
        func isAway(_ item: LibraryItem) -> Bool {
            guard let there = SuggestionBuilder.position(item), let home = places.home(at: item.startMs) else { return false }
            return there.distance(to: home) > input.tuning.awayDistance
        }
        func isKnown(_ item: LibraryItem) -> Bool { places.isKnown(item) }
        var awayDays = Set<Int>()
        for item in items where isAway(item) { awayDays.insert(time.day(of: item)) }
        var runs: [[Int]] = []
        for day in awayDays.sorted() {
            if let last = runs.last?.last, last == day - 1 { runs[runs.count - 1].append(day) } else { runs.append([day]) }
        }
        let edge = input.tuning.tripEdge.ms
        return runs.filter { $0.count >= input.tuning.minimumTripDays }.compactMap { days in
            let span = Set(days)
            let inDays = items.filter {
                span.contains(time.day(of: $0)) || (span.contains(time.day($0.endMs, offset: $0.utcOffsetSeconds)) && $0.kind == .locationGroup)
            }
            // From leaving to coming back: from the end of the last stay at home, work or another
            // known place before the first thing far from home (the way to the station is the
            // trip's), to the start of the first stay at one after the last (the way back is too);
            // without such a stay within `tripEdge`, the first and last things far from home.
            // A day's places (a LocationGroup) run to the day's end: its visits, not it, say when.
            let edges = inDays.filter { $0.kind != .locationGroup }
            guard var start = edges.first(where: isAway)?.startMs, var end = edges.filter(isAway).map(\.endMs).max() else { return nil }
            if let left = items.last(where: { $0.kind == .location && $0.endMs <= start && isKnown($0) }), start - left.endMs <= edge {
                start = left.endMs
            }
            if let back = items.first(where: { $0.kind == .location && $0.startMs >= end && isKnown($0) }), back.startMs - end <= edge {
                end = back.startMs
            }
            var during = inDays.filter { $0.startMs >= start && $0.startMs <= end }
                .filter { [.locationGroup, .livePhoto, .photo, .video, .workout, .stateOfMind, .location].contains($0.kind) && !$0.isDailyMood }
            // Where it was: the days' places where the data groups them, and on other days the
            // day's longest stay away (the hotel, the day's sight), not every platform on the way.
            let grouped = Set(during.filter { $0.kind == .locationGroup }.map { time.day(of: $0) })
            var longestByDay: [Int: LibraryItem] = [:]
            for stay in during where stay.kind == .location && isAway(stay) && !grouped.contains(time.day(of: stay)) {
                let day = time.day(of: stay)
                if let current = longestByDay[day],
                   (current.endMs - current.startMs, stay.id.orderKey)
                    >= (stay.endMs - stay.startMs, current.id.orderKey) { continue }
                longestByDay[day] = stay
            }
            let longest = Set(longestByDay.values.map(\.id))
            during.removeAll { $0.kind == .location && !longest.contains($0.id) }
            guard let first = during.first else { return nil }
            // Its id's place: where its nights were, as its title says it
            // (``SuggestionBuilder/tripPlace(_:time:gazetteer:)``), from every place away, not only those kept.
            let city = SuggestionBuilder.tripPlace(during.filter { $0.kind != .location || isAway($0) }, time: time) ?? SuggestionBuilder.cell(first.coordinate)
            return Moment(kind: .trip, anchor: first.startMs, place: city, items: during, window: (start, end))
        }
    }
}
