public import Foundation
import PickerdStore
import PickerdWire

extension SuggestionBuilder {
    /// The pipeline's last stage: the moments found become suggestions. Each moment's items are
    /// made unique (each item once, each person once) and capped at ``MomentTuning/maxItems``
    /// (what the moment is about first, spread over its time); it gets a deterministic id from its
    /// kind, start and place (``stableID(_:)``), its window (``span(_:_:)``), its title (or its
    /// calendar event's) and its score (``score(_:_:pool:)``). A moment whose chosen items or id
    /// another moment already has is the same moment found twice, and is left out.
    ///
    /// Every moment of the window was found, so what each took is known whichever window owns it;
    /// only those anchored in `owning` are this window's to return.
    func suggestions(from moments: [Moment], owning: Range<Int64>, events: [EventSpan]) -> [StoredSuggestion] {
        var seenItems = Set<[UUID]>()
        var seenIDs = Set<UUID>()
        var suggestions: [StoredSuggestion] = []
        for moment in moments where owning.contains(moment.anchor) {
            let chosen = cap(unique(moment.items), kind: moment.kind)
            let id = Self.stableID("\(moment.kind.rawValue)|\(moment.anchor)|\(moment.place)")
            guard !chosen.isEmpty, seenItems.insert(chosen.map(\.id)).inserted, seenIDs.insert(id).inserted else { continue }
            let (start, end) = moment.window ?? span(moment.kind, chosen)
            // A moment an event in the person's calendar names is one they marked as worth keeping.
            let event = titlingEvent(moment.kind, chosen, events: events)
            suggestions.append(StoredSuggestion(
                id: id, title: event.map { title(moment.kind, chosen, event: $0) } ?? title(moment.kind, chosen) + (moment.caption.map { ": \($0)" } ?? ""),
                kind: moment.kind,
                startMs: start, endMs: end,
                score: score(moment.kind, chosen, pool: moment.items.count) + (event == nil ? 0 : tuning.eventBonus), itemIDs: chosen.map(\.id),
                monthDay: time.monthDay(chosen[0]), anchorMs: moment.anchor))
        }
        return suggestions.sorted { $0.id.orderKey < $1.id.orderKey }
    }

    /// When a moment happened, from its items:
    /// - a workout is its own time (with the photos and music within its margin, not the steps
    ///   another device counted on the way), not the whole visit to the place it was at;
    /// - an outing is the stay at its place (the music on the way there and an invitation's time
    ///   do not stretch it);
    /// - time at home is when its photos, videos and reading were (the stay at home may last days);
    /// - a run of photos is when its photos and videos were;
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
            timed = items.filter { $0.kind != .location && $0.kind != .motionActivity && $0.kind != .stateOfMind }
        case .workout where stays.count < items.count: timed = items.filter { $0.kind != .location }
        // The day's mood joined it (``JoinedMoods``): it says how the day felt, not when this was.
        case .photos where items.contains(where: \.isPhotoOrVideo): timed = items.filter(\.isPhotoOrVideo)
        case .outing where !stays.isEmpty: timed = stays
        case .timeAtHome where items.contains(where: { HomeMoments.content.contains($0.kind) }):
            timed = items.filter { HomeMoments.content.contains($0.kind) }
        default: timed = items
        }
        return (timed.map(\.startMs).min()!, timed.map(\.endMs).max()!)
    }

    /// What makes time at home worth remembering: photos, videos, what was read.

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
        // What the week sounded like is one song and one episode at most: never crowded out.
        case .weeklySummary: [.workoutGroup, .locationGroup, .motionActivity, .livePhoto, .photo, .song, .podcast]
        case .workout: [.workout, .location, .photo, .livePhoto, .video, .stateOfMind, .motionActivity, .song, .podcast]
        // The place says where the moment was: it is never crowded out by photos.
        case .outing: [.location, .contact, .livePhoto, .video, .stateOfMind, .photo, .song]
        case .timeAtHome: [.location, .stateOfMind, .livePhoto, .video, .photo, .genericMedia, .podcast, .song]
        // A mood that joined the photos is never crowded out by them.
        case .photos: [.stateOfMind] + AssetKind.allCases.filter { $0 != .stateOfMind }
        default: AssetKind.allCases
        }
        func rank(_ item: LibraryItem) -> Int { priority.firstIndex(of: item.kind) ?? priority.count }
        var kept: [LibraryItem] = []
        for (_, group) in Dictionary(grouping: items, by: rank).sorted(by: { $0.key < $1.key }) {
            let room = tuning.maxItems - kept.count
            if room <= 0 { break }
            if group.count <= room {
                kept += group
            } else {
                kept += (0..<room).map { group[$0 * group.count / room] }
            }
        }
        return kept.sorted { ($0.startMs, rank($0), $0.id.orderKey) < ($1.startMs, rank($1), $1.id.orderKey) }
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

}
