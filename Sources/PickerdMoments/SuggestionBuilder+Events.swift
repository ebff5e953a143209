import Foundation
import PickerdPlaces
public import PickerdStore
public import PickerdWire

/// Calendar events in moments. An event is never an item and never reaches an app: it joins what
/// happened during it into one moment, and lends that moment its summary as a title while at least
/// one of the moment's items (shown, or kept by the person) lies within its time.
///
/// - A timed event of a day or less (a dinner, a party) joins the runs of photos that reach into it
///   and the Contact items within it into one moment (or into the outing or evening at home already
///   there during it), and titles moments of photos, contacts, outings and time at home.
/// - An all-day or longer event of two days or more (a holiday) may title a trip.
/// - Among the events that could title a moment, the one holding the most of its items wins; then
///   the shorter; then the earlier; then the smaller id.
extension SuggestionBuilder {
    /// The kinds of moment an event may title.
    static let eventTitledKinds: Set<SuggestionKind> = [.photos, .contact, .outing, .timeAtHome, .trip]

    /// The event that titles a moment of `kind` made of `items`, if one does: see the rules above.
    /// - Parameters:
    ///   - kind: the kind of moment.
    ///   - items: what the person sees of it, or kept of it.
    ///   - events: the events around it.
    public func titlingEvent(_ kind: SuggestionKind, _ items: [LibraryItem], events: [EventSpan]) -> EventSpan? {
        guard Self.eventTitledKinds.contains(kind), !events.isEmpty else { return nil }
        var best: (event: EventSpan, held: Int)?
        for event in events where kind == .trip ? event.titlesTrips : event.joinsMoments {
            // Music plays through every event of a day: it ties none to a moment.
            let held = items.count { event.holds($0) && $0.kind != .song && $0.kind != .podcast }
            guard held > 0, !event.title.isEmpty else { continue }
            if let current = best {
                let a = (held, -(event.endMs - event.startMs), -event.startMs)
                let b = (current.held, -(current.event.endMs - current.event.startMs), -current.event.startMs)
                if a < b || (a == b && event.id >= current.event.id) { continue }
            }
            best = (event, held)
        }
        return best?.event
    }

    /// A title for a moment made only from `items`, unless an event titles it (``titlingEvent(_:_:events:)``):
    /// then the event's summary. An event no item lies within lends no name.
    /// - Parameters:
    ///   - kind: the kind of moment.
    ///   - items: what the person sees of it, or kept of it.
    ///   - events: the events around it.
    /// - Returns: a short title.
    public func title(_ kind: SuggestionKind, _ items: [LibraryItem], events: [EventSpan]) -> String {
        titlingEvent(kind, items, events: events).map { title(kind, items, event: $0) } ?? title(kind, items)
    }

    /// An event's summary as a moment's title: for an outing, with where it was when a kept place
    /// says so and the summary does not already ("Lena's birthday at Trattoria Lucca"). Where the
    /// place has only the gazetteer's name (its city or neighbourhood, "near …"), the event's own `LOCATION` names
    /// it: the first part of it, when that is a name and not a street address.
    func title(_ kind: SuggestionKind, _ items: [LibraryItem], event: EventSpan) -> String {
        guard kind == .outing, var place = items.lazy.compactMap({ item -> Location? in
            if case .location(let l) = item.asset, !l.place.isEmpty, l.place != Self.homePlaceName { return l }
            return nil
        }).first else { return event.title }
        let onlyTheGazetteers = place.place == place.city || place.place.hasPrefix("near ") || Gazetteer.isArea(place.place)
        if onlyTheGazetteers, let own = Self.placeName(inEventLocation: event.location) { place.place = own }
        func folded(_ text: String) -> String { text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        if folded(event.title).contains(folded(place.place)) { return event.title }
        return "\(event.title) \(Self.located(place.place, city: place.city))"
    }

    /// The place a calendar `LOCATION` names: its first comma-separated part, unless that is a
    /// street address (it starts with a number) or empty.
    static func placeName(inEventLocation location: String) -> String? {
        let first = location.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !first.isEmpty, first.count <= 60, !(first.first?.isNumber ?? true) else { return nil }
        return first
    }

    /// The title of what the person kept of a listed suggestion: its own title when they kept it
    /// all, else made again from what they kept (and the events it was shown with), so a title never
    /// names an event, a person or a place whose items were all left out.
    /// - Parameters:
    ///   - listed: the suggestion as the picker showed it.
    ///   - kept: the items the person kept.
    /// - Returns: the title the app receives (unless the person edited it).
    public func title(of listed: ListedSuggestion, kept: [LibraryItem]) -> String {
        kept.count == listed.items.count ? listed.suggestion.title : title(listed.suggestion.kind, kept, events: listed.events)
    }

    /// The events that may title these suggestions, by suggestion: read through the store's index
    /// for the kinds events title, and only when the store holds any event.
    func eventsByID(_ store: Store, _ suggestions: [StoredSuggestion]) throws(StoreError) -> [UUID: [EventSpan]] {
        let titled = suggestions.filter { Self.eventTitledKinds.contains($0.kind) }
        guard !titled.isEmpty, try store.hasEvents() else { return [:] }
        var found: [UUID: [EventSpan]] = [:]
        for s in titled where found[s.id] == nil {
            found[s.id] = try store.eventSpans(overlapping: s.startMs..<(s.endMs + 1))
        }
        return found
    }
}

extension EventSpan {
    /// A timed event of a day or less: it joins and titles moments.
    var joinsMoments: Bool { !allDay && endMs - startMs <= LocalTime.dayMs }
    /// An all-day or longer event of two days or more (a clock change aside): it may title a trip.
    var titlesTrips: Bool { (allDay || endMs - startMs > LocalTime.dayMs) && endMs - startMs >= Duration.days(2).ms - Duration.hour.ms }

    /// Whether `item` lies within the event. Something of a moment (a photo, a contact, a mood) does
    /// when the event holds its start; something that lasts (a stay, a workout) does when the two share
    /// at least half the length of the shorter: the dinner's stay that begins a few minutes after the
    /// dinner does, the weekend at home that begins as the Saturday's hike ends does not (its Sunday
    /// afternoon was titled by the hike).
    func holds(_ item: LibraryItem) -> Bool {
        guard item.endMs > item.startMs, endMs > startMs else { return holds(item.startMs) }
        let shared = min(endMs, item.endMs) - max(startMs, item.startMs)
        return shared * 2 >= min(endMs - startMs, item.endMs - item.startMs)
    }
}
