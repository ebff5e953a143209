import Foundation
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Hidden rules: what the person hid is never listed or ranked, nothing is deleted, and removing a
/// rule brings it back.
@Suite("Hidden rules", .serialized)
struct HiddenRulesTests {
    let builder = SuggestionBuilder()
    let enabled = Set(PickerdWire.Category.allKnown.filter { $0 != .unspecified })

    /// Everything a presentation could show: Recommended and all of Recent.
    func everything(_ store: Store) throws -> (recommended: [ListedSuggestion], recent: [ListedSuggestion], total: Int) {
        let first = try builder.firstPage(from: store, enabled: enabled, now: DemoLibrary.firstDayMs + 60 * 86_400_000, pageSize: 50)
        var recent = first.recent
        var offset = 50
        while offset < first.recentTotal {
            recent += try builder.recentPage(from: store, enabled: enabled, offset: offset, limit: 50)
            offset += 50
        }
        return (first.recommended, recent, first.recentTotal)
    }

    /// An item's local day, as the builder reckons it (its own offset, else the person's zone).
    func day(_ item: LibraryItem) -> Int {
        let offset = Int64(item.utcOffsetSeconds ?? Int32(TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(item.startMs) / 1000))))
        return Int(Civil.floorDiv(item.startMs + offset * 1000, 86_400_000))
    }

    func seeded() throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        try DemoLibrary.seed(into: temporary.store)
        return temporary
    }

    @Test("a hidden suggestion is in neither list, nor preloaded by its token; removing the rule brings it back")
    func hideSuggestion() throws {
        let temporary = try seeded()
        let store = temporary.store
        let before = try everything(store)
        let target = try #require(before.recommended.first).suggestion
        let rule = try store.addHiddenRule(StoredHiddenRule(target: .suggestion(target.id, title: target.title), createdMs: 1))
        #expect(try store.hiddenRules() == [rule])

        let after = try everything(store)
        #expect(!(after.recommended + after.recent).contains { $0.suggestion.id == target.id })
        #expect(after.total == before.total - 1)
        #expect(try builder.listed(id: target.id, from: store, enabled: enabled) == nil)
        #expect(try store.suggestion(id: target.id) != nil, "nothing is deleted")

        try store.removeHiddenRule(id: rule.id)
        #expect(try store.hiddenRules().isEmpty)
        let back = try everything(store)
        #expect(back.recent.contains { $0.suggestion.id == target.id })
        #expect(back.total == before.total)
        #expect(try builder.listed(id: target.id, from: store, enabled: enabled) != nil)
    }

    @Test("a hidden person: their contact is in no listed suggestion, no title names them, a moment with only them goes; others stay")
    func hidePerson() throws {
        let temporary = try seeded()
        let store = temporary.store
        let before = try everything(store)
        func contacts(_ listed: ListedSuggestion) -> [String] {
            listed.items.compactMap { if case .contact(let c) = $0.asset { c.name } else { nil } }
        }
        let name = try #require(before.recent.flatMap(contacts).first)
        let first = try #require(name.split(separator: " ").first.map(String.init))
        let theirs = before.recent.filter { contacts($0).contains(name) }
        try store.addHiddenRule(StoredHiddenRule(target: .person(name.uppercased()), createdMs: 1))

        let after = try everything(store)
        for listed in after.recommended + after.recent {
            #expect(!contacts(listed).contains(name), "\(listed.suggestion.title)")
            #expect(!listed.suggestion.title.split(separator: " ").contains { $0 == first }, "\(listed.suggestion.title)")
        }
        // Each moment that held them is gone or listed without them.
        #expect(after.recent.count < before.recent.count)
        #expect(after.recent.count > before.recent.count - theirs.count - 1, "only moments about them went")
        // Nothing deleted; removing the rule brings all back.
        try store.removeHiddenRule(id: try #require(try store.hiddenRules().first).id)
        #expect(try everything(store).recent.map(\.suggestion) == before.recent.map(\.suggestion))
    }

    @Test("a hidden place: its visits and the photos within 150 m are in no listed suggestion")
    func hidePlace() throws {
        let temporary = try seeded()
        let store = temporary.store
        let before = try everything(store)
        let visit = try #require(before.recent.flatMap(\.items).first { item in
            if case .location(let l) = item.asset { return l.location != nil && !l.place.isEmpty }
            return false
        })
        guard case .location(let l) = visit.asset, let at = l.location else { return }
        let centre = Coordinate(latitude: at.latitude, longitude: at.longitude)
        try store.addHiddenRule(StoredHiddenRule(target: .place(name: l.place, coordinate: centre), createdMs: 1))
        let after = try everything(store)
        for item in (after.recommended + after.recent).flatMap(\.items) where [.location, .photo, .livePhoto, .video].contains(item.kind) {
            let position: Coordinate? = item.coordinate ?? {
                if case .location(let v) = item.asset, let g = v.location { return Coordinate(latitude: g.latitude, longitude: g.longitude) }
                return nil
            }()
            if let position { #expect(position.distance(to: centre) > StoredHiddenRule.placeRadius) }
        }
        #expect(!(after.recommended + after.recent).contains { $0.items.contains { $0.id == visit.id } })
        #expect(!(after.recommended + after.recent).contains { $0.suggestion.title.contains(l.place) })
    }

    @Test("hidden days produce nothing: no listed item lies on them")
    func hideDays() throws {
        let temporary = try seeded()
        let store = temporary.store
        let before = try everything(store)
        let day = day(try #require(before.recent.first?.items.first))
        try store.addHiddenRule(StoredHiddenRule(target: .days(from: day - 1, to: day + 1), createdMs: 1))
        let after = try everything(store)
        #expect(after.recent.count < before.recent.count)
        for item in (after.recommended + after.recent).flatMap(\.items) {
            #expect(!(day - 1...day + 1).contains(self.day(item)))
        }
    }

    @Test("the same rule is stored once; bad rules are refused; an unknown number is not found")
    func storing() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let a = try store.addHiddenRule(StoredHiddenRule(target: .person("Lena Fischer"), createdMs: 1))
        let b = try store.addHiddenRule(StoredHiddenRule(target: .person("Lena Fischer"), createdMs: 2))
        let count = try store.hiddenRules().count
        #expect(a == b)
        #expect(count == 1)
        #expect(throws: StoreError.self) { try store.addHiddenRule(StoredHiddenRule(target: .person("  "), createdMs: 1)) }
        #expect(throws: StoreError.self) { try store.addHiddenRule(StoredHiddenRule(target: .days(from: 5, to: 4), createdMs: 1)) }
        #expect(throws: StoreError.self) {
            try store.addHiddenRule(StoredHiddenRule(target: .place(name: "", coordinate: Coordinate(latitude: 91, longitude: 0)), createdMs: 1))
        }
        do {
            try store.removeHiddenRule(id: 99)
            Issue.record("removed an unknown rule")
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test("a stored rule that cannot be read is a typed error, and is kept: the other rules are not lost")
    func corruptRule() throws {
        let temporary = try TemporaryStore()
        let kept = try temporary.store.addHiddenRule(StoredHiddenRule(target: .person("Lena Fischer"), createdMs: 1))
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [temporary.store.databasePath, "INSERT INTO hidden_rule (kind, created_ms) VALUES ('mystery', 2)"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)

        let reopened = try Store(dataDirectory: temporary.store.dataDirectory)
        do {
            _ = try reopened.hiddenRules()
            Issue.record("an unreadable rule was read")
        } catch {
            #expect(error.code == .corrupt, "\(error)")
            #expect(error.message.contains("hidden rule 2"), "\(error)")
        }
        // Removing the unreadable one by its number leaves the others as they were.
        try reopened.removeHiddenRule(id: 2)
        #expect(try reopened.hiddenRules() == [kept])
    }
}
