import Foundation
import PickerdStore
import PickerdWire

extension SuggestionBuilder {
    /// The most suggestions Recommended holds (``MomentTuning/recommendedLimit``).
    public static let recommendedLimit = MomentTuning.standard.recommendedLimit
    /// The most suggestions of one kind Recommended holds (``MomentTuning/recommendedPerKind``).
    public static let recommendedPerKind = MomentTuning.standard.recommendedPerKind

    /// How meaningful a moment is, before recency (the lists add that against the library's
    /// newest moment) and rotation (the store lowers what was shown and released): its kind's score
    /// (``MomentTuning/kindScores``) and what each kind of item in it adds (``MomentTuning/varietyPerKind``).
    /// - Parameters:
    ///   - kind: the kind of moment.
    ///   - items: its chosen items.
    ///   - pool: how many items it could have held (a run of photos scores more the longer it is).
    func score(_ kind: SuggestionKind, _ items: [LibraryItem], pool: Int) -> Double {
        let scores = tuning.kindScores
        let base: Double = switch kind {
        case .trip: scores.trip
        case .weeklySummary: scores.weeklySummary
        case .outing: items.contains { $0.kind == .contact } ? scores.outingWithSomeone : scores.outing
        case .workout: items.contains(where: \.isPhotoOrVideo) ? scores.workoutWithPhotos : scores.workout
        case .photos: scores.photos + min(scores.photosForMore, log10(Double(pool)) / 2)
        case .timeAtHome: scores.timeAtHome
        case .reflection: scores.reflection
        case .contact: scores.contact
        case .media: scores.media
        case .stateOfMind: scores.stateOfMind
        default: scores.other
        }
        let variety = Double(Set(items.map(\.kind)).count) * tuning.varietyPerKind
        return base + variety
    }

    /// The kinds of moment that are highlights whatever they hold: a trip, a week's summary, a
    /// person, a reflection prompt. Not a mood standing alone: a mood joins the moment of its day
    /// when there is one (``JoinedMoods``), which it makes a highlight of two categories; one left
    /// alone is one of a daily mood app's many days, in Recent, and in the week's summary.
    static let highlightKinds: Set<SuggestionKind> = [.trip, .weeklySummary, .contact, .reflection]

    /// Whether a suggestion may be in Recommended, which holds highlights: a kind in
    /// ``highlightKinds``, or a moment with items of two categories or more (a workout and where it
    /// went, an outing and its photos or the people there; an event joins people and photos), as
    /// `categoryMask` says of what the person may see. Never a single song or a week of one
    /// artist's songs, a day's steps alone, nor a run of photos alone.
    static func isHighlight(_ suggestion: StoredSuggestion) -> Bool {
        highlightKinds.contains(suggestion.kind) || suggestion.categoryMask.nonzeroBitCount >= 2
    }

    /// Recommended, chosen from `candidates` (highlights only, ``isHighlight(_:)``, and none that lies
    /// within a trip among them): the best score first, where recency adds up to
    /// ``MomentTuning/recencyWeight`` (halving in about five days before the library's newest moment)
    /// and a kind among the last ``MomentTuning/repeatWindow`` picks costs ``MomentTuning/repeatPenalty``
    /// each, so kinds mix; a title already chosen is passed over; at most
    /// ``recommendedPerKind`` of a kind and ``recommendedLimit`` in all. Ties go to the smaller id.
    /// One candidate per kind per pick.
    /// - Parameters:
    ///   - candidates: suggestions (their rank already lowered by rotation).
    ///   - newest: the library's newest moment's end, ms since 1970.
    ///   - bonus: extra score for some (an "on this day" moment), by id.
    func recommended(_ candidates: [StoredSuggestion], newest: Int64, bonus: [UUID: Double] = [:]) -> [StoredSuggestion] {
        typealias Entry = (suggestion: StoredSuggestion, score: Double, id: UUIDOrderKey)
        var queues: [SuggestionKind: ArraySlice<Entry>] = [:]
        var pool = candidates
        if tuning.recommendHighlightsOnly {
            // A trip stands for what happened during it: its sights are in Recent, inside the trip.
            let trips = candidates.filter { $0.kind == .trip && $0.endMs > $0.startMs }
            pool = candidates.filter { s in
                Self.isHighlight(s) && (s.kind == .trip || !trips.contains { $0.startMs <= s.startMs && s.endMs <= $0.endMs })
            }
        }
        for (kind, members) in Dictionary(grouping: pool, by: \.kind) {
            queues[kind] = members.map { s -> Entry in
                let age = Double(max(0, newest - s.endMs)) / Double(LocalTime.dayMs)
                return (s, s.rank + tuning.recencyWeight * exp(-age / tuning.recencyDays) + (bonus[s.id] ?? 0), s.id.orderKey)
            }.sorted { ($0.score, $1.id) > ($1.score, $0.id) }[...]
        }
        var chosen: [StoredSuggestion] = []
        var titles = Set<String>()
        while chosen.count < tuning.recommendedLimit {
            let recentKinds = chosen.suffix(tuning.repeatWindow).map(\.kind)
            var best: (kind: SuggestionKind, score: Double, id: UUIDOrderKey)?
            for (kind, queue) in queues {
                guard let head = queue.first else { continue }
                let score = head.score - tuning.repeatPenalty * Double(recentKinds.filter { $0 == kind }.count)
                if let current = best, (score, current.id) <= (current.score, head.id) { continue }
                best = (kind, score, head.id)
            }
            guard let kind = best?.kind else { break }
            let next = queues[kind]!.removeFirst().suggestion
            if titles.insert(next.title.lowercased()).inserted { chosen.append(next) }
            // A kind has its say a few times, then leaves room for the others.
            if chosen.count(where: { $0.kind == kind }) >= tuning.recommendedPerKind { queues[kind] = nil }
        }
        return chosen
    }
}
