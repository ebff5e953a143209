import Foundation
import PickerdStore
import PickerdWire

/// What no moment took stands alone: a reflection prompt, a mood, a person (once a day: two photos
/// an hour apart that name her are one "catching up"; never one met in
/// ``MomentTuning/routinePersonWeeks`` weeks within ``MomentTuning/routineLookaround``: the colleague
/// at the weekly meeting is routine), a day's motion. A photo outside a run is not
/// a moment. Nothing is taken: no later stage wants these kinds.
struct StandaloneMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        var people = Set<String>()
        for item in input.timeline.items where !claims.holds(item) {
            if case .contact(let c) = item.asset {
                guard people.insert("\(c.name)|\(input.time.day(of: item))").inserted, !input.isRoutinePerson(item) else { continue }
            }
            let kind: SuggestionKind? = switch item.kind {
            case .reflection: .reflection
            case .stateOfMind: .stateOfMind
            case .contact: .contact
            case .motionActivity: .motion
            default: nil
            }
            if let kind { found.append(Moment(kind: kind, anchor: item.startMs, place: item.id.uuidString, items: [item])) }
        }
    }
}

/// Listening and reading no moment took. A book read in a week is one moment. A week's listening
/// of one artist or show is a moment only when it **stands out** (most listening is every day's, and
/// counts only in the week's summary, "what you listened to most", ``WeeklySummaries``):
/// - an **album played through**: ``MomentTuning/albumTracks`` of its tracks within
///   ``MomentTuning/albumSitting`` of each other;
/// - an artist or show **new to the person**: ``MomentTuning/newArtistPlays`` plays in the week and
///   none in the ``MomentTuning/newArtistLookback`` before it, while those days hold
///   ``MomentTuning/newArtistHistory`` plays of others, one in their first week;
/// - a **concert's artist**: a calendar event of the week names them.
/// Songs and episodes a workout, outing or time at home took are that moment's.
struct ListeningMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let items = input.timeline.items
        // Who each play is by (an artist, a show, a generic item's album), numbered as first met:
        // a window of a long history holds a few thousand of them and hundreds of thousands of plays.
        var numbers: [Who: Int] = [:]
        var names: [String] = []  // "song|Artist", "podcast|Show", "media|Album"
        // Every play of the window, claimed or not, by artist or show: the person's history.
        var history: [[Int64]] = []
        var allPlays: [Int64] = []
        // The plays no moment took, by week and who: positions in `items`.
        var media: [WeekOf: [Int]] = [:]
        var weeks = LocalTime.WeekStarts(input.time)
        for (index, item) in items.enumerated() {
            let who: Who
            switch item.asset {
            case .podcast(let p): who = Who(kind: .podcast, name: p.show)
            case .song(let s): who = Who(kind: .song, name: s.artist)
            case .genericMedia(let g): who = Who(kind: .media, name: g.album)
            default: continue
            }
            let number: Int
            if let known = numbers[who] {
                number = known
            } else {
                number = names.count
                numbers[who] = number
                names.append(who.key)
                history.append([])
            }
            if who.kind != .media {
                history[number].append(item.startMs)
                allPlays.append(item.startMs)
            }
            guard !claims.holds(item) else { continue }
            media[WeekOf(week: weeks.start(of: item.startMs, offset: item.utcOffsetSeconds), who: number), default: []].append(index)
        }
        // Those that stand out, in the order of their keys as text ("week|who"), as moments have
        // always been found (most weeks' plays of most artists do not: their items are not copied).
        var chosen: [(text: String, group: WeekOf)] = []
        for (group, plays) in media {
            let who = names[group.who]
            guard who.hasPrefix("media|") || standsOut(plays, of: items, who: who, week: group.week, history: history[group.who],
                                                       allPlays: allPlays, input)
            else { continue }
            chosen.append(("\(group.week)|\(who)", group))
        }
        for (_, group) in chosen.sorted(by: { $0.text < $1.text }) {
            found.append(Moment(kind: .media, anchor: group.week, place: "|" + names[group.who], items: media[group]!.map { items[$0] }))
        }
    }

    /// Who a play is by, as the stage groups them.
    private struct Who: Hashable {
        enum Kind: Hashable { case song, podcast, media }
        var kind: Kind
        /// The artist, the show or the album.
        var name: String
        /// As the stage's keys and moments name it: "song|Artist", "podcast|Show", "media|Album".
        var key: String {
            switch kind {
            case .song: "song|\(name)"
            case .podcast: "podcast|\(name)"
            case .media: "media|\(name)"
            }
        }
    }

    /// A week (its start) and who (their number).
    private struct WeekOf: Hashable {
        var week: Int64
        var who: Int
    }

    /// Whether a week's plays of one artist or show (their positions in `items`) stand out (see the
    /// type's rules).
    private func standsOut(_ plays: [Int], of items: [LibraryItem], who: String, week: Int64, history: [Int64], allPlays: [Int64],
                           _ input: StageInput) -> Bool {
        let tuning = input.tuning
        // An album played through.
        if plays.count >= tuning.albumTracks {
            var byAlbum: [String: [(startMs: Int64, title: String)]] = [:]
            for index in plays {
                if case .song(let s) = items[index].asset, !s.album.isEmpty { byAlbum[s.album, default: []].append((items[index].startMs, s.song)) }
            }
            for album in byAlbum.values where album.count >= tuning.albumTracks {
                var low = 0
                for high in album.indices {
                    while album[high].startMs - album[low].startMs > tuning.albumSitting.ms { low += 1 }
                    if Set(album[low...high].map(\.title)).count >= tuning.albumTracks { return true }
                }
            }
        }
        // An artist or show new to the person.
        let from = week - tuning.newArtistLookback.ms
        // The history must reach back the whole lookback (a play in its first week): in a library's
        // first weeks every artist is new.
        if plays.count >= tuning.newArtistPlays, !history.contains(where: { $0 >= from && $0 < week }),
           count(allPlays, from, week) >= tuning.newArtistHistory, count(allPlays, from, from + Duration.days(7).ms) > 0 {
            return true
        }
        // A concert's artist: an event of the week names them.
        guard !input.events.isEmpty else { return false }
        let name = String(who.drop { $0 != "|" }.dropFirst())
        let end = input.time.week(of: week).end
        return name.count >= 3 && input.events.contains {
            $0.startMs < end && $0.endMs >= week && $0.title.range(of: name, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }

    /// How many of `times` (in order) lie in [from, to).
    private func count(_ times: [Int64], _ from: Int64, _ to: Int64) -> Int {
        func index(_ t: Int64) -> Int {
            var low = 0, high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] < t { low = mid + 1 } else { high = mid }
            }
            return low
        }
        return index(to) - index(from)
    }
}
