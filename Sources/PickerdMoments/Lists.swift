public import Foundation
public import PickerdStore
public import PickerdWire

/// The picker's two lists, from the stored suggestions: each as the person may see it after their
/// settings and hidden rules (``SuggestionBuilder/listing(_:items:enabled:events:hidden:)``), Recommended
/// ranked (Ranking.swift) with "on this day" from earlier years, and Recent newest first, a page at a time.
extension SuggestionBuilder {
    /// Every kind of moment the builder makes.
    static let kinds: [SuggestionKind] = [.outing, .workout, .trip, .weeklySummary, .timeAtHome, .reflection, .stateOfMind,
                                          .media, .contact, .photos, .motion]

    /// A stored suggestion as the person may see it, after their settings: items of disabled
    /// categories, excluded items and items that are not memories are removed, and the title is
    /// made again from what remains. `nil` when nothing remains.
    /// - Parameters:
    ///   - suggestion: the stored suggestion.
    ///   - items: its items, by id (others may be there too).
    ///   - enabled: the categories the person has on.
    ///   - events: the calendar events around it: a title made again keeps an event's summary only
    ///     while a remaining item lies within the event.
    ///   - hidden: the person's hidden rules (SuggestionBuilder+Hidden.swift): a hidden suggestion,
    ///     or one only about a hidden person (titled by them, no one else's contact left), is `nil`;
    ///     hidden people's contacts, hidden places' visits and photos and hidden days' items are left out.
    public func listing(_ suggestion: StoredSuggestion, items: [UUID: LibraryItem], enabled: Set<PickerdWire.Category>,
                        events: [EventSpan] = [], hidden: HiddenRules = .none) -> ListedSuggestion? {
        if hidden.hides(suggestion: suggestion.id) { return nil }
        let kept = suggestion.itemIDs.compactMap { items[$0] }
            .filter { enabled.contains($0.kind.category) && !$0.excludedFromSuggestions && $0.notAMemory == nil && !hides($0, hidden) }
        guard !kept.isEmpty else { return nil }
        var listed = suggestion
        listed.itemIDs = kept.map(\.id)
        listed.title = kept.count == suggestion.itemIDs.count ? suggestion.title : title(suggestion.kind, kept, events: events)
        // A moment about a hidden person: named by them, with no one else left (an evening with them).
        if hidden.namesHiddenPerson(listed.title)
            || (hidden.namesHiddenPerson(suggestion.title) && !kept.contains { $0.kind == .contact }) { return nil }
        // The stored window, unless items were left out: then only what remains says when.
        if kept.count != suggestion.itemIDs.count { (listed.startMs, listed.endMs) = span(suggestion.kind, kept) }
        return ListedSuggestion(suggestion: listed, items: kept, events: events)
    }

    /// The two lists the picker shows, from suggestions and items held in memory (tools and
    /// tests; pickerd reads them a page at a time with ``firstPage(from:enabled:now:pageSize:)``).
    /// - Parameters:
    ///   - suggestions: the stored suggestions.
    ///   - items: the library (at least every item the suggestions name).
    ///   - enabled: the categories the person has on.
    ///   - events: the library's calendar events.
    ///   - hidden: the person's hidden rules.
    /// - Returns: Recommended (a short list: meaningful first, kinds mixed, newer favoured, no
    ///   title twice) and Recent (every visible suggestion, newest first).
    public func lists(suggestions: [StoredSuggestion], items: [LibraryItem], enabled: Set<PickerdWire.Category>,
                      events: [EventSpan] = [], hidden: HiddenRules = .none) -> SuggestionLists {
        let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        let visible = suggestions.compactMap { s in
            listing(s, items: byID, enabled: enabled, events: events.filter { $0.startMs <= s.endMs && $0.endMs >= s.startMs }, hidden: hidden)
        }
        let recent = visible.map { (listed: $0, id: $0.suggestion.id.orderKey) }
            .sorted { ($0.listed.suggestion.endMs, $0.id) > ($1.listed.suggestion.endMs, $1.id) }.map(\.listed)
        let newest = visible.map(\.suggestion.endMs).max() ?? 0
        let byListed = Dictionary(visible.map { ($0.suggestion.id, $0) }, uniquingKeysWith: { a, _ in a })
        // Which categories each holds, of what the person may see (a highlight has two or more).
        let candidates = visible.map { listed in
            var s = listed.suggestion
            s.categoryMask = Store.mask(Set(listed.items.map(\.kind.category)))
            return s
        }
        return SuggestionLists(recommended: recommended(candidates, newest: newest).compactMap { byListed[$0.id] },
                               recent: recent)
    }

    /// What a presentation shows first, read through the store's indexes: Recommended whole (it
    /// is short), the first page of Recent, and how long Recent is. Nothing here reads a whole table.
    /// - Parameters:
    ///   - store: the store.
    ///   - enabled: the categories the person has on.
    ///   - now: the present, ms since 1970 (for "on this day").
    ///   - pageSize: how many of Recent to send first.
    /// - Returns: the lists as far as they are read.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func firstPage(from store: Store, enabled: Set<PickerdWire.Category>, now: Int64, pageSize: Int) throws(StoreError) -> FirstPage {
        let mask = Store.mask(enabled)
        let hidden = HiddenRules(try store.hiddenRules())
        // Each with the categories the person may see of it (a highlight has two or more).
        let stored = try store.candidates(kinds: Self.kinds, enabled: mask, limit: tuning.candidatesPerKind).map { s in
            var s = s
            s.categoryMask &= mask
            return s
        }
        // On this day, in earlier years: worth a look again, and titled so.
        let today = Civil.date(time.day(now))
        let earlier = try store.suggestions(onMonthDay: today.month * 100 + today.day, endingBefore: now - tuning.onThisDayAge.ms,
                                            enabled: mask, limit: tuning.onThisDayLimit)
        let recentStored = try store.recentSuggestions(enabled: mask, offset: 0, limit: pageSize)
        // Chosen from the stored moments (the mask already says each has a visible item); only the
        // chosen and the first page of Recent are read with their items.
        var bonus: [UUID: Double] = [:]
        // Ranked only among what the person may see: a hidden suggestion takes no place in Recommended.
        var candidates = stored.filter { !hidden.hides(suggestion: $0.id) }
        for var s in earlier where bonus[s.id] == nil && !hidden.hides(suggestion: s.id) {
            s.categoryMask &= mask
            candidates.removeAll { $0.id == s.id }
            candidates.append(s)
            bonus[s.id] = tuning.onThisDayBonus
        }
        let newest = try store.newestSuggestionEnd() ?? now
        var chosen = recommended(candidates, newest: newest, bonus: bonus)
        var items = try itemsByID(store, chosen + recentStored)
        if !hidden.isEmpty {
            // Ranked again without what the person's rules leave with nothing to show.
            items = try itemsByID(store, candidates + recentStored)
            let events = try eventsByID(store, candidates)
            candidates.removeAll { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) == nil }
            chosen = recommended(candidates, newest: newest, bonus: bonus)
        }
        let events = try eventsByID(store, chosen + recentStored)
        let picked = chosen.compactMap { s -> ListedSuggestion? in
            guard var listed = listing(s, items: items, enabled: enabled, events: events[s.id] ?? [], hidden: hidden) else { return nil }
            if bonus[s.id] != nil {
                // On this day, in an earlier year: titled so.
                let years = today.year - time.year(listed.items[0])
                listed.suggestion.title = "\(years == 1 ? "A year" : "\(years) years") ago today: \(listed.suggestion.title)"
            }
            return listed
        }
        return FirstPage(recommended: picked,
                         recent: recentStored.compactMap { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) },
                         recentTotal: try store.visibleSuggestionCount(enabled: mask))
    }

    /// A page of Recent, newest first, through the store's index.
    /// - Parameters:
    ///   - store: the store.
    ///   - enabled: the categories the person has on.
    ///   - offset: how many to skip.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func recentPage(from store: Store, enabled: Set<PickerdWire.Category>, offset: Int, limit: Int) throws(StoreError) -> [ListedSuggestion] {
        let hidden = HiddenRules(try store.hiddenRules())
        let stored = try store.recentSuggestions(enabled: Store.mask(enabled), offset: offset, limit: limit)
        let items = try itemsByID(store, stored)
        let events = try eventsByID(store, stored)
        return stored.compactMap { listing($0, items: items, enabled: enabled, events: events[$0.id] ?? [], hidden: hidden) }
    }

    /// One suggestion as the person may see it (an app's token preloads it), or `nil`.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func listed(id: UUID, from store: Store, enabled: Set<PickerdWire.Category>) throws(StoreError) -> ListedSuggestion? {
        guard let stored = try store.suggestion(id: id) else { return nil }
        return listing(stored, items: try itemsByID(store, [stored]), enabled: enabled, events: try eventsByID(store, [stored])[stored.id] ?? [],
                       hidden: HiddenRules(try store.hiddenRules()))
    }

    private func itemsByID(_ store: Store, _ suggestions: [StoredSuggestion]) throws(StoreError) -> [UUID: LibraryItem] {
        // As titled when built: the person's names for places on the place items (``PersonsNames``).
        Dictionary(try PersonsNames(store: store).applied(to: store.items(suggestions.flatMap(\.itemIDs))).map { ($0.id, $0) },
                   uniquingKeysWith: { a, _ in a })
    }
}

/// What a presentation shows first (``SuggestionBuilder/firstPage(from:enabled:now:pageSize:)``).
public struct FirstPage: Sendable {
    /// Recommended, whole.
    public var recommended: [ListedSuggestion]
    /// Recent's first page.
    public var recent: [ListedSuggestion]
    /// How many suggestions Recent holds in all.
    public var recentTotal: Int
}


/// A suggestion as the picker shows it, with its items.
public struct ListedSuggestion: Sendable, Hashable {
    /// The suggestion, its items and title already filtered by the person's settings.
    public var suggestion: StoredSuggestion
    /// Its items, in order.
    public var items: [LibraryItem]
    /// The calendar events around it (summaries and times only, never sent): what a title made
    /// again from the items the person kept may be named by (``SuggestionBuilder/title(of:kept:)``).
    public var events: [EventSpan] = []

    /// The wire form a picker gets: media described but not attached, and the local time's offset
    /// where the moment happened (``localUTCOffsetSeconds``). Never an app's outcome.
    public var wire: Suggestion {
        Suggestion(id: suggestion.id.uuidString, title: suggestion.title,
                   date: PickerdWire.DateInterval(startUnixMs: suggestion.startMs, endUnixMs: suggestion.endMs),
                   items: items.map(\.wireItem), kind: suggestion.kind, localUtcOffsetS: localUTCOffsetSeconds.map(Int64.init))
    }

    /// The offset from UTC of the local time where the moment happened: the one most of its items
    /// give of their own (a photo's EXIF offset, a place's time zone; ties to the earliest), or
    /// `nil` when none does (then it is the person's).
    public var localUTCOffsetSeconds: Int32? {
        var counts: [Int32: (count: Int, first: Int)] = [:]
        for (index, item) in items.enumerated() {
            guard let offset = item.utcOffsetSeconds else { continue }
            counts[offset, default: (0, index)].count += 1
        }
        return counts.max { ($0.value.count, -$0.value.first) < ($1.value.count, -$1.value.first) }?.key
    }
}

/// The picker's two lists.
public struct SuggestionLists: Sendable, Hashable {
    /// Ranked: meaningful first, kinds mixed, newer favoured.
    public var recommended: [ListedSuggestion]
    /// Newest first.
    public var recent: [ListedSuggestion]
}
