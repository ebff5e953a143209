import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A person upgrading pickerd keeps their store; what a newer moments engine makes of the same
/// library must reach them without any data changing.
@Suite("Moments built again when the engine changed")
struct EngineVersionTests {
    @Test("a store an older engine built gets its moments again at start, beside serving, and only once")
    func olderEngine() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-ev")
        let first = try RunningPickerd(seed: true, root: root)
        first.stop()
        let store = try Store(dataDirectory: first.data)
        let current = try #require(try store.suggestionsEngineVersion())
        #expect(current > 1, "the seeding recorded the engine's version")
        // As an older engine left it: one moment this engine would not make, and version 1.
        var suggestions = try store.suggestions()
        let kept = suggestions.count
        let stale = StoredSuggestion(id: UUID(), title: "Made by an older engine", kind: .outing, startMs: suggestions[0].startMs,
                                     endMs: suggestions[0].endMs, score: 1_000, itemIDs: suggestions[0].itemIDs)
        suggestions.append(stale)
        try store.replaceSuggestions(suggestions, engineVersion: 1)
        #expect(try store.suggestionsEngineVersion() == 1)

        let upgraded = try RunningPickerd(seed: false, root: root)
        #expect(upgraded.waitForLog("built the library's moments again: the engine changed"), "\(upgraded.logText)")
        // Built after serving began: the first start after an upgrade is not held up by it.
        let log = upgraded.logText
        let serving = try #require(log.range(of: "pickerd serving")), building = try #require(log.range(of: "building the library's moments again"))
        #expect(serving.lowerBound < building.lowerBound, "\(log)")
        #expect(upgraded.logText.contains("1 → \(current)"), "\(upgraded.logText)")
        let after = try store.suggestions()
        #expect(!after.contains { $0.id == stale.id }, "the older engine's moment is gone")
        #expect(after.count == kept, "the same moments as a fresh build: \(after.count) for \(kept)")
        #expect(try store.suggestionsEngineVersion() == current)
        upgraded.stop()

        // A tool's own suggestions (nil: no engine) keep the version; a start after that builds nothing.
        try store.replaceSuggestions(after)
        #expect(try store.suggestionsEngineVersion() == current)
        let again = try RunningPickerd(seed: false, root: root)
        #expect(!again.logText.contains("built the library's moments"), "\(again.logText)")
        again.stop()
    }
}
