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
        var media: [String: [LibraryItem]] = [:]
        // Every play of the window, claimed or not, by artist or show: the person's history.
        var history: [String: [Int64]] = [:]
        var allPlays: [Int64] = []
        for item in input.timeline.items {
            let who: String? = switch item.asset {
            case .podcast(let p): "podcast|\(p.show)"
            case .song(let s): "song|\(s.artist)"
            default: nil
            }
            if let who {
                history[who, default: []].append(item.startMs)
                allPlays.append(item.startMs)
            }
            guard !claims.holds(item) else { continue }
            let week = input.time.week(of: item.startMs, offset: item.utcOffsetSeconds).start
            if let who {
                media["\(week)|\(who)", default: []].append(item)
            } else if case .genericMedia(let g) = item.asset {
                media["\(week)|media|\(g.album)", default: []].append(item)
            }
        }
        for key in media.keys.sorted() {
            let week = Int64(key.prefix { $0 != "|" })!
            let who = String(key.drop { $0 != "|" }.dropFirst())
            let items = media[key]!
            guard who.hasPrefix("media|") || standsOut(items, who: who, week: week, history: history[who] ?? [], allPlays: allPlays, input)
            else { continue }
            found.append(Moment(kind: .media, anchor: week, place: "|" + who, items: items))
        }
    }

    /// Whether a week's plays of one artist or show stand out (see the type's rules).
    private func standsOut(_ items: [LibraryItem], who: String, week: Int64, history: [Int64], allPlays: [Int64], _ input: StageInput) -> Bool {
        let tuning = input.tuning
        // An album played through.
        var byAlbum: [String: [LibraryItem]] = [:]
        for item in items {
            if case .song(let s) = item.asset, !s.album.isEmpty { byAlbum[s.album, default: []].append(item) }
        }
        for plays in byAlbum.values where plays.count >= tuning.albumTracks {
            var low = 0
            for high in plays.indices {
                while plays[high].startMs - plays[low].startMs > tuning.albumSitting.ms { low += 1 }
                let titles = Set(plays[low...high].compactMap { item -> String? in
                    if case .song(let s) = item.asset { return s.song }
                    return nil
                })
                if titles.count >= tuning.albumTracks { return true }
            }
        }
        // An artist or show new to the person.
        let from = week - tuning.newArtistLookback.ms
        // The history must reach back the whole lookback (a play in its first week): in a library's
        // first weeks every artist is new.
        if items.count >= tuning.newArtistPlays, !history.contains(where: { $0 >= from && $0 < week }),
           count(allPlays, from, week) >= tuning.newArtistHistory, count(allPlays, from, from + Duration.days(7).ms) > 0 {
            return true
        }
        // A concert's artist: an event of the week names them.
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
