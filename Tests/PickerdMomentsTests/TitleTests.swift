import Foundation
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Titles say no more than the items the person keeps and their settings allow: a place, a city, a
/// person, "home" or being away appear in a title only when a kept item of an enabled category says so.
@Suite("Titles are made only from what the person kept and allowed", .serialized)
struct TitleTests {
    var store: Store { Seeded.shared.store }
    let builder = SuggestionBuilder()
    static let everything = Set(PickerdWire.Category.settable)

    // MARK: Items for hand-made moments

    /// Noon of day `day` of the demo's calendar (New York time).
    static func noon(_ day: Int) -> Int64 { DemoLibrary.firstDayMs + Int64(day) * 86_400_000 + 12 * 3_600_000 }

    static func visit(_ place: String, _ city: String, day: Int) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .location(Location(place: place, city: city, location: GeoLocation(latitude: 42.3467, longitude: -71.0972))),
                    startMs: noon(day), endMs: noon(day) + 3_600_000)
    }

    static func photo(day: Int) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .photo(Photo(date: Timestamp(unixMs: noon(day)))), startMs: noon(day) + 600_000)
    }

    // MARK: Checking a title against what it was made from

    /// Lower-case words separated by single spaces, padded with one space each side.
    static func words(_ text: String) -> String {
        " " + text.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : " " }.joined()
            .split(separator: " ").joined(separator: " ") + " "
    }

    /// What the library could give away in a title: every place, city and person's first name, and
    /// the words that say where the person was.
    static func vocabulary(_ library: [LibraryItem]) -> (places: Set<String>, people: Set<String>) {
        var places: Set<String> = ["home", "away", "trip", "out"]
        var people = Set<String>()
        for item in library {
            switch item.asset {
            case .location(let l): places.formUnion([l.place, l.city])
            case .locationGroup(let g): for l in g.locations { places.formUnion([l.place, l.city]) }
            case .contact(let c): people.formUnion(c.name.split(separator: " ").prefix(1).map(String.init))
            default: break
            }
        }
        return (places.filter { !$0.isEmpty }, people)
    }

    /// The words of `vocabulary` that `title` says although none of `kept` holds them.
    static func unsupported(_ title: String, kept: [LibraryItem], vocabulary: (places: Set<String>, people: Set<String>)) -> [String] {
        var allowed = ""
        for item in kept {
            switch item.asset {
            case .location(let l):
                // A kept place allows its name and city, and says the person was there: at home, or out.
                allowed += " \(l.place) \(l.city) " + (l.place == "Home" ? "home" : "away trip out")
            case .locationGroup(let g): allowed += g.locations.map { " \($0.place) \($0.city) away trip out" }.joined()
            case .contact(let c): allowed += " \(c.name) "
            default: break
            }
        }
        let said = words(title), holds = words(allowed)
        return (vocabulary.places.union(vocabulary.people)).filter { said.contains(words($0)) && !holds.contains(words($0)) }.sorted()
    }

    // MARK: Tests

    @Test("a trip counts its days in the singular and the plural")
    func plural() {
        let oneDay = [Self.visit("Fenway Park", "Boston", day: 3), Self.photo(day: 3)]
        #expect(builder.title(.trip, oneDay) == "1 day in Boston")
        let twoDays = oneDay + [Self.visit("Boston Common", "Boston", day: 4)]
        #expect(builder.title(.trip, twoDays) == "2 days in Boston")
    }

    @Test("a trip with every place left out says nothing of being away, of a trip or of a city")
    func tripWithoutPlaces() throws {
        let made = builder.title(.trip, [Self.photo(day: 3), Self.photo(day: 4), Self.photo(day: 5)])
        #expect(!made.isEmpty)
        for word in ["away", "trip", "boston", "days in"] { #expect(!Self.words(made).contains(Self.words(word)), "\(made)") }

        let library = try store.items()
        let byID = Dictionary(uniqueKeysWithValues: library.map { ($0.id, $0) })
        let trip = try #require(try store.suggestions().first { $0.kind == .trip })
        let kept = trip.itemIDs.compactMap { byID[$0] }.filter { $0.kind.category != .significantLocations }
        #expect(!kept.isEmpty)
        #expect(kept.count < trip.itemIDs.count)
        let title = builder.title(.trip, kept)
        #expect(!title.isEmpty)
        #expect(Self.unsupported(title, kept: kept, vocabulary: Self.vocabulary(library)).isEmpty, "\(title)")
    }

    @Test("with Significant Locations off, no title in the picker names a place, a city, home or being away")
    func locationsOff() throws {
        let library = try store.items()
        let (places, _) = Self.vocabulary(library)
        let lists = builder.lists(suggestions: try store.suggestions(), items: library,
                                  enabled: Self.everything.subtracting([.significantLocations]))
        #expect(lists.recent.contains { $0.suggestion.kind == .trip }, "the trip is still there, without its places")
        for listed in lists.recent {
            let said = Self.words(listed.suggestion.title)
            let named = places.filter { said.contains(Self.words($0)) }
            #expect(named.isEmpty, "\(listed.suggestion.kind): \"\(listed.suggestion.title)\" says \(named.sorted())")
        }
    }

    @Test("every title names only places, cities, people and whereabouts that its kept, allowed items hold",
          arguments: [nil] + PickerdWire.Category.settable)
    func titlesFollowKeptItems(off category: PickerdWire.Category?) throws {
        let library = try store.items()
        let vocabulary = Self.vocabulary(library)
        let enabled = Self.everything.subtracting(category.map { [$0] } ?? [])
        let byID = Dictionary(uniqueKeysWithValues: library.map { ($0.id, $0) })
        // What the picker shows with this setting.
        for listed in builder.lists(suggestions: try store.suggestions(), items: library, enabled: enabled).recent {
            let bad = Self.unsupported(listed.suggestion.title, kept: listed.items, vocabulary: vocabulary)
            #expect(bad.isEmpty, "shown \(listed.suggestion.kind): \"\(listed.suggestion.title)\" says \(bad)")
        }
        // What a release titles after the person leaves out every item of one kind, or every place.
        for suggestion in try store.suggestions() {
            let shown = suggestion.itemIDs.compactMap { byID[$0] }.filter { enabled.contains($0.kind.category) }
            let subsets = Set(shown.map(\.kind)).map { kind in shown.filter { $0.kind != kind } }
                + [shown.filter { $0.kind.category != .significantLocations }]
            for kept in subsets where !kept.isEmpty {
                let title = builder.title(suggestion.kind, kept)
                let bad = Self.unsupported(title, kept: kept, vocabulary: vocabulary)
                #expect(bad.isEmpty, "\(suggestion.kind) kept \(kept.map(\.kind.rawValue)): \"\(title)\" says \(bad)")
            }
        }
    }
}
