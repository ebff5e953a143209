import Foundation
import PickerdStore
import PickerdWire

/// What no moment took stands alone: a reflection prompt, a mood, a person (once a day: two photos
/// an hour apart that name her are one "catching up"), a day's motion. A photo outside a run is not
/// a moment. Nothing is taken: no later stage wants these kinds.
struct StandaloneMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        var people = Set<String>()
        for item in input.timeline.items where !claims.holds(item) {
            if case .contact(let c) = item.asset, !people.insert("\(c.name)|\(input.time.day(of: item))").inserted { continue }
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

/// Listening and reading no moment took: one moment per show, artist or book, per week.
struct ListeningMoments: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        var media: [String: [LibraryItem]] = [:]
        for item in input.timeline.items where !claims.holds(item) {
            let week = input.time.week(of: item.startMs, offset: item.utcOffsetSeconds).start
            switch item.asset {
            case .podcast(let p): media["\(week)|podcast|\(p.show)", default: []].append(item)
            case .song(let s): media["\(week)|song|\(s.artist)", default: []].append(item)
            case .genericMedia(let g): media["\(week)|media|\(g.album)", default: []].append(item)
            default: break
            }
        }
        for key in media.keys.sorted() {
            let week = Int64(key.prefix { $0 != "|" })!
            found.append(Moment(kind: .media, anchor: week, place: String(key.drop { $0 != "|" }), items: media[key]!))
        }
    }
}
