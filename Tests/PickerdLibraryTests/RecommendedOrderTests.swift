import Foundation
import PickerdLibrary
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The Recommended list is chosen one suggestion at a time: the best score, less 1.5 for each of the
/// last three picks of the same kind, ties to the smaller id. `lists` does it one candidate per kind
/// per pick; this is the definition, one scan of the whole pool per pick, to check it against.
func referenceRecommended(_ listed: [ListedSuggestion]) -> [UUID] {
    var pool = listed
    var chosen: [ListedSuggestion] = []
    while !pool.isEmpty {
        let recentKinds = chosen.suffix(3).map(\.suggestion.kind)
        let best = pool.indices.max { a, b in
            let pa = pool[a].suggestion.score - 1.5 * Double(recentKinds.filter { $0 == pool[a].suggestion.kind }.count)
            let pb = pool[b].suggestion.score - 1.5 * Double(recentKinds.filter { $0 == pool[b].suggestion.kind }.count)
            return (pa, pool[b].suggestion.id.uuidString) < (pb, pool[a].suggestion.id.uuidString)
        }!
        chosen.append(pool.remove(at: best))
    }
    return chosen.map(\.suggestion.id)
}

@Suite("Recommended: the per-kind choice equals the definition")
struct RecommendedOrderTests {
    @Test("on the demo library")
    func demo() throws {
        let store = Seeded.shared.store
        let builder = SuggestionBuilder()
        let lists = builder.lists(suggestions: try store.suggestions(), items: try store.items(), enabled: Set(PickerdWire.Category.allKnown))
        #expect(lists.recommended.count > 30)
        #expect(lists.recommended.map(\.suggestion.id) == referenceRecommended(lists.recent))
    }

    @Test("on 2,000 made-up suggestions with many equal scores (ties go to the smaller id)")
    func ties() throws {
        var generator = SystemRandomNumberGenerator()
        let kinds: [SuggestionKind] = [.workout, .outing, .trip, .photos, .media, .reflection]
        var items: [LibraryItem] = []
        var suggestions: [StoredSuggestion] = []
        for index in 0..<2_000 {
            let item = LibraryItem(id: UUID(), asset: .reflection(Reflection(prompt: "p\(index)")), startMs: Int64(index) * 1000)
            items.append(item)
            suggestions.append(StoredSuggestion(id: UUID(), title: "s\(index)", kind: kinds[Int.random(in: 0..<kinds.count, using: &generator)],
                                                startMs: item.startMs, endMs: item.startMs, score: Double(Int.random(in: 0..<6, using: &generator)) / 2,
                                                itemIDs: [item.id]))
        }
        let lists = SuggestionBuilder().lists(suggestions: suggestions, items: items, enabled: Set(PickerdWire.Category.allKnown))
        #expect(lists.recommended.count == 2_000)
        #expect(lists.recommended.map(\.suggestion.id) == referenceRecommended(lists.recent))
    }
}
