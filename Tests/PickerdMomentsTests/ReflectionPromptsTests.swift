import Foundation
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The project's own reflection prompts: every library gets a few a week, not only the demo's.
@Suite("Reflection prompts for every library", .serialized)
struct ReflectionPromptsTests {
    @Test("the set: at least 48 prompts, different, on the six themes, each with its colour")
    func theSet() {
        let all = ReflectionPrompts.all
        #expect(all.count >= 48, "\(all.count)")
        #expect(Set(all.map(\.prompt)).count == all.count, "no prompt twice")
        #expect(Set(all.map(\.theme)) == Set(ReflectionPrompts.Theme.allCases))
        for theme in ReflectionPrompts.Theme.allCases {
            #expect(all.filter { $0.theme == theme }.count >= 6, "\(theme)")
        }
    }

    @Test("rotation: a week's prompts are its own and come back only after 24 weeks; the same week always gets the same")
    func rotation() {
        let spacing = ReflectionPrompts.all.count / ReflectionPrompts.perWeek
        #expect(spacing >= 24)
        var lastSeen: [Int: Int64] = [:]
        for week in Int64(2_800)..<Int64(2_900) {
            let indices = ReflectionPrompts.indices(week: week)
            #expect(indices.count == ReflectionPrompts.perWeek && Set(indices).count == indices.count)
            #expect(indices == ReflectionPrompts.indices(week: week))
            for index in indices {
                if let seen = lastSeen[index] { #expect(week - seen >= Int64(spacing), "prompt \(index) back after \(week - seen) weeks") }
                lastSeen[index] = week
            }
        }
    }

    @Test("a person's library (no prompts of its own) gets two a week, from the set and nothing else, in Recommended; none with the setting off")
    func personsLibrary() throws {
        let temporary = try TemporaryStore()
        // Three weeks of photos, and a trip (PhotoStaysTests' life): nothing from the demo library.
        let library = PhotoStaysTests.library()
        try temporary.store.insert(library)
        let builder = SuggestionBuilder(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let engine = MomentEngine(store: temporary.store, builder: builder)
        try engine.rebuildAll()
        // The prompts (and the stays from photos) are the engine's: the person's library is what they brought.
        #expect(try temporary.store.itemCounts().values.reduce(0, +) == library.count)
        #expect(try temporary.store.personsItems().count == library.count)
        let prompts = try temporary.store.items().filter { $0.source == ReflectionPrompts.source }
        #expect(prompts.count == 3 * ReflectionPrompts.perWeek, "\(prompts.count)")
        // No leaking: a prompt's text is the project's, whatever the person's week held.
        let texts = Set(ReflectionPrompts.all.map(\.prompt))
        for prompt in prompts {
            guard case .reflection(let r) = prompt.asset else { Issue.record("not a reflection: \(prompt.kind)"); continue }
            #expect(texts.contains(r.prompt), "\(r.prompt)")
            #expect(r.color != nil)
        }
        let suggestions = try temporary.store.suggestions().filter { $0.kind == .reflection }
        #expect(suggestions.count == prompts.count, "\(suggestions.map(\.title))")
        // "Another prompt" cycles through the library's prompts: these are among them.
        #expect(Set(try temporary.store.reflectionPromptIDs()) == Set(prompts.map(\.id)))
        // Building again gives the same prompts, the same ids: nothing is written.
        #expect(try !temporary.store.replaceDerivedItems(source: ReflectionPrompts.source, startingIn: Int64.min..<Int64.max, with: prompts))

        let now = PhotoStaysTests.monday + 22 * 86_400_000
        let on = try builder.firstPage(from: temporary.store, enabled: Set(PickerdWire.Category.settable), now: now, pageSize: 50)
        let recommendedPrompts = on.recommended.filter { $0.suggestion.kind == .reflection }
        #expect((2...3).contains(recommendedPrompts.count), "\(on.recommended.map(\.suggestion.title))")
        let off = try builder.firstPage(from: temporary.store, enabled: Set(PickerdWire.Category.settable).subtracting([.reflectionPrompts]),
                                        now: now, pageSize: 50)
        #expect(!off.recommended.contains { $0.suggestion.kind == .reflection }, "\(off.recommended.map(\.suggestion.title))")
        #expect(!off.recent.contains { $0.suggestion.kind == .reflection }, "\(off.recent.map(\.suggestion.title))")
    }

    @Test("a library with prompts of its own (an app's, the demo's) keeps them: that week gets none of the set")
    func ownPromptsWin() throws {
        let temporary = try TemporaryStore()
        var items = PhotoStaysTests.library()
        items.append(LibraryItem(id: UUID(), asset: .reflection(Reflection(prompt: "What did the sea sound like?")),
                                 startMs: PhotoStaysTests.monday + 2 * 86_400_000 + 12 * 3_600_000, source: "file"))
        try temporary.store.insert(items)
        try MomentEngine(store: temporary.store).rebuildAll()
        let prompts = try temporary.store.items().filter { $0.source == ReflectionPrompts.source }
        #expect(prompts.count == 2 * ReflectionPrompts.perWeek, "\(prompts.count)")
        #expect(!prompts.contains { $0.startMs < PhotoStaysTests.monday + 7 * 86_400_000 })
    }
}
