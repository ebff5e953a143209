public import Foundation
public import PickerdStore
import PickerdWire

/// The person's hidden rules, ready to apply to a suggestion as it is listed (``SuggestionBuilder/listing(_:items:enabled:events:hidden:)``).
///
/// What each rule leaves out:
/// - a suggestion: the suggestion;
/// - a person: their Contact items, and a moment only about them: one whose title names them, or
///   where nothing but their items remains;
/// - a place: its visits and the photos and videos within ``StoredHiddenRule/placeRadius`` of it;
/// - days: every item on those local days (so they produce nothing).
///
/// Nothing is removed from the store: a suggestion left with nothing is not listed, and comes back
/// when the rule goes.
public struct HiddenRules: Sendable {
    /// No rules: everything shows.
    public static let none = HiddenRules([])

    /// The rules.
    public let rules: [StoredHiddenRule]
    let suggestions: Set<UUID>
    /// Hidden people, lowercased full names, with their first names (what titles say).
    let people: [(full: String, first: String)]
    let places: [Coordinate]
    let days: [ClosedRange<Int>]

    /// Prepares rules for matching.
    /// - Parameter rules: the person's rules (``PickerdStore/Store/hiddenRules()``).
    public init(_ rules: [StoredHiddenRule]) {
        self.rules = rules
        var suggestions = Set<UUID>(), people: [(String, String)] = [], places: [Coordinate] = [], days: [ClosedRange<Int>] = []
        for rule in rules {
            switch rule.target {
            case .suggestion(let id, _): suggestions.insert(id)
            case .person(let name):
                let full = name.lowercased()
                people.append((full, full.split(separator: " ").first.map(String.init) ?? full))
            case .place(_, let c): places.append(c)
            case .days(let from, let to): days.append(from...to)
            }
        }
        self.suggestions = suggestions
        self.people = people
        self.places = places
        self.days = days
    }

    /// Whether there is no rule at all.
    public var isEmpty: Bool { rules.isEmpty }

    /// Whether `id` is a hidden suggestion.
    public func hides(suggestion id: UUID) -> Bool { suggestions.contains(id) }

    /// Whether `item` is a hidden person's contact.
    func isHiddenPerson(_ item: LibraryItem) -> Bool {
        guard case .contact(let c) = item.asset else { return false }
        let name = c.name.lowercased()
        return people.contains { $0.full == name }
    }

    /// Whether a title names a hidden person (their full name, or their first name as a word, as
    /// titles say it: "Evening with Lena", "Catching up with Lena", "Lenas Geburtstag").
    func namesHiddenPerson(_ title: String) -> Bool {
        guard !people.isEmpty else { return false }
        let lower = title.lowercased()
        let words = lower.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        return people.contains { person in
            lower.contains(person.full) || words.contains { $0 == person.first || $0 == person.first + "s" || $0 == person.first + "'s" }
        }
    }
}

extension SuggestionBuilder {
    /// Whether a hidden rule leaves `item` out (a hidden person's contact, a visit or a photo at a
    /// hidden place, anything on hidden days).
    /// - Parameters:
    ///   - item: the item.
    ///   - hidden: the person's rules.
    public func hides(_ item: LibraryItem, _ hidden: HiddenRules) -> Bool {
        if hidden.isEmpty { return false }
        if hidden.isHiddenPerson(item) { return true }
        if !hidden.days.isEmpty {
            let first = time.day(item.startMs, offset: item.utcOffsetSeconds), last = time.day(item.endMs, offset: item.utcOffsetSeconds)
            if hidden.days.contains(where: { $0.overlaps(first...max(first, last)) }) { return true }
        }
        if !hidden.places.isEmpty {
            switch item.kind {
            case .location, .locationGroup, .photo, .livePhoto, .video:
                if let at = Self.position(item), hidden.places.contains(where: { $0.distance(to: at) <= StoredHiddenRule.placeRadius }) { return true }
            default:
                break
            }
        }
        return false
    }
}

extension SuggestionBuilder {
    /// The local days a listed suggestion's items cover (days since 1970; each item in its own
    /// offset, else the person's zone): what "Show fewer like this" hides as its days.
    /// - Parameter listed: the suggestion as shown.
    public func days(of listed: ListedSuggestion) -> ClosedRange<Int> {
        let days = listed.items.flatMap { [time.day($0.startMs, offset: $0.utcOffsetSeconds), time.day($0.endMs, offset: $0.utcOffsetSeconds)] }
        guard let first = days.min(), let last = days.max() else {
            let day = time.day(listed.suggestion.startMs)
            return day...day
        }
        return first...last
    }
}
