import Foundation
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The Recommended list holds highlights (a trip, a week, a person, a prompt, or a moment
/// with items of two categories or more) and is chosen one suggestion at a time: the best score (rank, plus up to 2 for
/// recency against the newest moment), less 1.5 for each of the last three picks of the same kind,
/// ties to the smaller id; a title already chosen is passed over; at most 3 of a kind and 24 in all. `lists` does it one
/// candidate per kind per pick; this is the definition, one scan of the whole pool per pick.
func referenceRecommended(_ listed: [ListedSuggestion]) -> [UUID] {
    let newest = listed.map(\.suggestion.endMs).max() ?? 0
    func score(_ s: StoredSuggestion) -> Double { s.rank + 2 * exp(-Double(newest - s.endMs) / 86_400_000 / 7) }
    let always: Set<SuggestionKind> = [.trip, .weeklySummary, .contact, .reflection]
    let trips = listed.map(\.suggestion).filter { $0.kind == .trip && $0.endMs > $0.startMs }
    var pool = listed.filter { always.contains($0.suggestion.kind) || Set($0.items.map(\.kind.category)).count >= 2 }
        .filter { l in l.suggestion.kind == .trip || !trips.contains { $0.startMs <= l.suggestion.startMs && l.suggestion.endMs <= $0.endMs } }
    var chosen: [ListedSuggestion] = []
    var titles = Set<String>()
    while !pool.isEmpty && chosen.count < SuggestionBuilder.recommendedLimit {
        let recentKinds = chosen.suffix(3).map(\.suggestion.kind)
        let best = pool.indices.max { a, b in
            let pa = score(pool[a].suggestion) - 1.5 * Double(recentKinds.filter { $0 == pool[a].suggestion.kind }.count)
            let pb = score(pool[b].suggestion) - 1.5 * Double(recentKinds.filter { $0 == pool[b].suggestion.kind }.count)
            return (pa, pool[b].suggestion.id.uuidString) < (pb, pool[a].suggestion.id.uuidString)
        }!
        let next = pool.remove(at: best)
        if titles.insert(next.suggestion.title.lowercased()).inserted { chosen.append(next) }
        if chosen.count(where: { $0.suggestion.kind == next.suggestion.kind }) >= SuggestionBuilder.recommendedPerKind {
            pool.removeAll { $0.suggestion.kind == next.suggestion.kind }
        }
    }
    return chosen.map(\.suggestion.id)
}

@Suite("Recommended: the per-kind choice equals the definition")
struct RecommendedOrderTests {
    @Test("on the demo library: a short list, no title twice")
    func demo() throws {
        let store = Seeded.shared.store
        let builder = SuggestionBuilder()
        let lists = builder.lists(suggestions: try store.suggestions(), items: try store.items(), enabled: Set(PickerdWire.Category.allKnown))
        #expect((10...SuggestionBuilder.recommendedLimit).contains(lists.recommended.count), "\(lists.recommended.count)")
        #expect(Set(lists.recommended.map { $0.suggestion.title.lowercased() }).count == lists.recommended.count)
        #expect(lists.recommended.map(\.suggestion.id) == referenceRecommended(lists.recent))
    }

    @Test("on 2,000 made-up suggestions with many equal scores (ties go to the smaller id)")
    func ties() throws {
        var generator = SeededRandom(seed: 0x7155)
        let kinds: [SuggestionKind] = [.workout, .outing, .trip, .photos, .media, .reflection]
        var items: [LibraryItem] = []
        var suggestions: [StoredSuggestion] = []
        for index in 0..<2_000 {
            let item = LibraryItem(id: UUID(), asset: .reflection(Reflection(prompt: "p\(index)")), startMs: Int64(index % 40) * 86_400_000)
            // Every fifth holds one category only: no highlight (unless a trip or a prompt), never chosen.
            let place = LibraryItem(id: UUID(), asset: .location(Location(place: "Somewhere")), startMs: item.startMs)
            let held = index % 5 == 0 ? [item] : [item, place]
            items += held
            suggestions.append(StoredSuggestion(id: UUID(), title: "s\(index % 300)", kind: kinds[Int.random(in: 0..<kinds.count, using: &generator)],
                                                startMs: item.startMs, endMs: item.startMs, score: Double(Int.random(in: 0..<6, using: &generator)) / 2,
                                                itemIDs: held.map(\.id)))
        }
        let lists = SuggestionBuilder().lists(suggestions: suggestions, items: items, enabled: Set(PickerdWire.Category.allKnown))
        #expect(lists.recommended.count == kinds.count * SuggestionBuilder.recommendedPerKind)
        #expect(lists.recommended.map(\.suggestion.id) == referenceRecommended(lists.recent))
    }
}
