import Foundation
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

@Suite("The demo library and the suggestion builder", .serialized)
struct DemoLibraryTests {
    var store: Store { Seeded.shared.store }

    func lists(enabled: Set<PickerdWire.Category>? = nil) throws -> SuggestionLists {
        SuggestionBuilder().lists(suggestions: try store.suggestions(), items: try store.items(),
                                  enabled: try enabled ?? store.enabledCategories())
    }

    @Test("seeding is deterministic: two seeds give the same items, media bytes and suggestions")
    func deterministic() throws {
        let other = try TemporaryStore()
        try DemoLibrary.seed(into: other.store)
        #expect(try other.store.items() == store.items())
        #expect(try other.store.suggestions().sorted { $0.id.uuidString < $1.id.uuidString }
                == store.suggestions().sorted { $0.id.uuidString < $1.id.uuidString })
        for item in try store.items() {
            for media in item.media {
                let a = FileManager.default.contents(atPath: store.path(of: media))
                let b = FileManager.default.contents(atPath: other.store.path(of: media))
                #expect(a != nil, "media \(media.relativePath) differs")
                #expect(a == b, "media \(media.relativePath) differs")
            }
        }
    }

    @Test("at least 30 suggestions, every asset type in several of them")
    func coverage() throws {
        let all = try lists()
        #expect(all.recent.count >= 30)
        var suggestionsPerKind: [AssetKind: Int] = [:]
        for listed in all.recent {
            for kind in Set(listed.items.map(\.kind)) { suggestionsPerKind[kind, default: 0] += 1 }
        }
        for kind in AssetKind.allCases {
            #expect((suggestionsPerKind[kind] ?? 0) >= 2, "\(kind) appears in \(suggestionsPerKind[kind] ?? 0) suggestions")
        }
        // The special ones are there.
        let kinds = Set(all.recent.map(\.suggestion.kind))
        for kind in [SuggestionKind.trip, .weeklySummary, .workout, .outing, .timeAtHome, .reflection, .stateOfMind] {
            #expect(kinds.contains(kind), "no \(kind) suggestion")
        }
        #expect(all.recent.contains { $0.suggestion.kind == .workout && $0.suggestion.title == "Morning run in Riverside Park" })
        #expect(all.recent.contains { $0.suggestion.kind == .trip && $0.suggestion.title == "3 days in Beacon" })
    }

    @Test("no suggestion holds more than 13 items, or none")
    func capped() throws {
        let stored = try store.suggestions()
        #expect(stored.allSatisfy { (1...13).contains($0.itemIDs.count) })
        #expect(stored.contains { $0.itemIDs.count == 13 }, "the trip fills its 13")
    }

    @Test("Recent is newest first; Recommended is a short, varied choice from it: the trip first, kinds mixed, no title twice")
    func ordering() throws {
        let all = try lists()
        let ends = all.recent.map(\.suggestion.endMs)
        #expect(ends == ends.sorted(by: >))
        #expect(Set(all.recommended.map(\.suggestion.id)).isSubset(of: Set(all.recent.map(\.suggestion.id))))
        #expect(all.recommended.count <= SuggestionBuilder.recommendedLimit)
        #expect(all.recommended.count < all.recent.count)
        let titles = all.recommended.map(\.suggestion.title)
        #expect(Set(titles).count == titles.count, "no title twice: \(titles)")
        print("demo Recommended (\(titles.count) of \(all.recent.count)): \(titles)")
        #expect(all.recommended.first?.suggestion.kind == .trip)
        let firstSix = all.recommended.prefix(6).map(\.suggestion.kind)
        #expect(Set(firstSix).count >= 4, "the top of Recommended mixes kinds: \(firstSix)")
    }

    @Test("an item its app excluded never appears in a suggestion")
    func excluded() throws {
        let excluded = try store.items().filter(\.excludedFromSuggestions)
        #expect(excluded.count == 1)
        let used = Set(try store.suggestions().flatMap(\.itemIDs))
        #expect(excluded.allSatisfy { !used.contains($0.id) })
    }

    @Test("each category turned off removes exactly its kinds", arguments: PickerdWire.Category.allKnown.filter { $0 != .unspecified })
    func categoryToggle(category: PickerdWire.Category) throws {
        let everything = Set(PickerdWire.Category.allKnown.filter { $0 != .unspecified })
        let before = try lists(enabled: everything)
        let after = try lists(enabled: everything.subtracting([category]))
        let itemsBefore = Set(before.recent.flatMap(\.items))
        let itemsAfter = Set(after.recent.flatMap(\.items))
        #expect(!itemsBefore.filter { $0.kind.category == category }.isEmpty, "the demo has \(category) items")
        #expect(itemsAfter.allSatisfy { $0.kind.category != category }, "\(category) items remain")
        #expect(itemsAfter == itemsBefore.filter { $0.kind.category != category }, "other kinds changed")
        // Titles are made from what remains: no place name when locations are off, no names when contacts are.
        if category == .significantLocations {
            #expect(!after.recent.contains { $0.suggestion.title.contains("Riverside Park") || $0.suggestion.title.contains("Beacon") })
        }
        if category == .contacts {
            #expect(!after.recent.contains { $0.suggestion.title.contains("Maya") })
        }
    }

    @Test("the store's settings drive the lists and survive reopening")
    func settingsPersist() throws {
        let temporary = try TemporaryStore()
        try temporary.store.setCategories([CategorySetting(category: .photos, enabled: false)])
        let reopened = try Store(dataDirectory: temporary.store.dataDirectory)
        let settings = try reopened.categorySettings()
        #expect(settings.count == 7)
        #expect(settings.first { $0.category == .photos }?.enabled == false)
        #expect(settings.filter(\.enabled).count == 6)
    }

    @Test("seeding a store that holds items needs replace; with it, the library is made anew")
    func seedTwice() throws {
        let temporary = try TemporaryStore()
        var stages: [DemoLibrary.Progress] = []
        let first = try DemoLibrary.seed(into: temporary.store) { stages.append($0) }
        #expect(stages.count >= 17)
        #expect(stages.last?.done == first.items)
        let error = #expect(throws: StoreError.self) { try DemoLibrary.seed(into: temporary.store) }
        #expect(error?.code == .invalid)
        let second = try DemoLibrary.seed(into: temporary.store, replace: true)
        #expect(second == first)
        #expect(try temporary.store.personsItems().count == first.items)
    }
}
