import Foundation
public import PickerdStore

/// The moments engine: keeps the store's suggestions in step with its library, a window of days
/// at a time. New data (a seeding, an import, a donation) recomputes only the weeks it touches;
/// moments keep their deterministic ids, so rebuilding never duplicates one, a reminder's link
/// stays valid, and what was shown and released of a moment (its rotation) survives.
public struct MomentEngine: Sendable {
    /// The store whose suggestions the engine keeps.
    public let store: Store
    /// The builder that makes moments from a window of items.
    public let builder: SuggestionBuilder

    /// The version of what the engine makes of a library: raised whenever the same library would
    /// give other moments (new kinds, titles, windows, sources), so that pickerd builds a store's
    /// moments again when it starts with a newer engine than the one that built them. 1: until
    /// versions were recorded; 2: neighbourhood names, stays from photos (issue 31); 3: routine
    /// workouts, moods joined to their day's moment, only listening that stands out (issue 42);
    /// 4: the project's reflection prompts in every library, the week's routine in its title, trips named by
    /// where their nights were and stays by their photos' place names (issue 42).
    public static let version = 4

    /// How far before and after a window the engine reads, so a trip or a run of photos that
    /// crosses its edge is seen whole (and left to the window where it begins).
    static let marginMs = Duration.days(21).ms
    /// How many weeks a full rebuild builds at once.
    static let rebuildWeeks = 8

    /// Creates an engine.
    /// - Parameters:
    ///   - store: the store.
    ///   - builder: the builder (its time zone is the person's).
    public init(store: Store, builder: SuggestionBuilder = SuggestionBuilder()) {
        self.store = store
        self.builder = builder
    }

    /// Builds every moment of the library again, some weeks at a time (memory stays bounded by a
    /// window's items), and replaces the stored suggestions in one transaction.
    /// - Parameter built: called after each span of weeks is built (before the swap), with the
    ///   start of the next span: how far the rebuild has come.
    /// - Returns: how many suggestions there are.
    /// - Throws: ``StoreError``; then the stored suggestions are as they were.
    @discardableResult
    public func rebuildAll(built: (Int64) -> Void = { _ in }) throws(StoreError) -> Int {
        try rebuildAll(reusingOverlap: true, built: built)
    }

    /// ``rebuildAll(built:)``, each span taking the items it shares with the one before from that
    /// span's reading (`reusingOverlap`), or reading all of its own (tests compare the two).
    func rebuildAll(reusingOverlap: Bool, built: (Int64) -> Void = { _ in }) throws(StoreError) -> Int {
        guard let range = try store.libraryRange() else {
            try store.replaceSuggestions([], engineVersion: Self.version)
            return 0
        }
        let home = try store.homeBase()
        var all: [StoredSuggestion] = []
        var start = builder.week(of: range.lowerBound).start
        var read: Read?
        // While a span is built, the items the next one reads past this one's reach are read on
        // another thread: this span writes its derived items only inside its own weeks, before them.
        var ahead: Ahead?
        let store = store
        while start <= range.upperBound {
            let end = spanEnd(after: start)
            if !reusingOverlap { read = nil }
            let fresh = try ahead.map { ahead throws(StoreError) in (ahead.fromMs...ahead.toMs, try ahead.items.value()) }
            let reach = end + Self.marginMs, next = spanEnd(after: end) + Self.marginMs
            ahead = reusingOverlap && end <= range.upperBound
                ? Ahead(fromMs: reach + 1, toMs: next, items: Prefetch { () throws(StoreError) in try store.items(startingFrom: reach + 1, to: next) })
                : nil
            all += try build(start..<end, home: home, read: &read, fresh: fresh)
            start = end
            built(start)
        }
        try store.replaceSuggestions(all, engineVersion: Self.version)
        return all.count
    }

    /// Builds every moment again while pickerd serves the ones it has (after an upgrade to a newer
    /// engine, or a salvage): ``rebuildAll(built:)`` beside the imports, donations and corrections
    /// that refresh some weeks meanwhile. The swap would put back moments made before such a
    /// refresh, so the windows refreshed meanwhile are built again after it.
    /// - Parameter built: as ``rebuildAll(built:)``'s.
    /// - Returns: how many suggestions the rebuild made, and how many windows it built again after.
    /// - Throws: ``StoreError``; then the stored suggestions are as they were, or the rebuild's with
    ///   some refreshed windows not built again (the next refresh of them is right again).
    @discardableResult
    public func rebuildAllWhileServing(built: (Int64) -> Void = { _ in }) throws(StoreError) -> (suggestions: Int, windowsAgain: Int) {
        store.noteReplacedWindows()
        let count: Int
        do {
            count = try rebuildAll(built: built)
        } catch {
            _ = store.replacedWindowsNoted()
            throw error
        }
        let windows = store.replacedWindowsNoted()
        try refresh(touching: windows.map { $0.lowerBound...($0.upperBound - 1) })
        return (count, windows.count)
    }

    /// Folds in new or changed data: builds again only the weeks `range` touches and replaces
    /// the moments anchored in them, in one transaction.
    /// - Parameter range: when the new data starts and ends, ms since 1970.
    /// - Returns: how many suggestions those weeks hold now.
    /// - Throws: ``StoreError``; then the stored suggestions are as they were.
    @discardableResult
    public func refresh(touching range: ClosedRange<Int64>) throws(StoreError) -> Int {
        let window = builder.week(of: range.lowerBound).start..<builder.week(of: range.upperBound).end
        let built = try build(window, home: try store.homeBase())
        try store.replaceSuggestions(startingIn: window, with: built, engineVersion: Self.version)
        return built.count
    }

    /// Folds in changes scattered over time (an import, a rescan): the weeks they touch are merged
    /// into runs and each run is built again; past a year of weeks, the whole library is.
    /// - Parameter ranges: when the changed items start and end (before and after the change).
    /// - Returns: how many weeks were built again (0 when `ranges` is empty).
    /// - Throws: ``StoreError``.
    @discardableResult
    public func refresh(touching ranges: [ClosedRange<Int64>]) throws(StoreError) -> Int {
        guard !ranges.isEmpty else { return 0 }
        var weeks = Set<Int64>()
        for range in ranges {
            var start = builder.week(of: range.lowerBound).start
            let last = builder.week(of: range.upperBound).start
            while start <= last && weeks.count <= Self.fullRebuildWeeks {
                weeks.insert(start)
                start = builder.week(of: start + Duration.days(8).ms).start
            }
        }
        if weeks.count > Self.fullRebuildWeeks {
            try rebuildAll()
            return weeks.count
        }
        let home = try store.homeBase()
        var runStart: Int64?
        var runEnd: Int64 = 0
        for week in weeks.sorted() {
            if let start = runStart, week > runEnd {
                let built = try build(start..<runEnd, home: home)
                try store.replaceSuggestions(startingIn: start..<runEnd, with: built, engineVersion: Self.version)
                runStart = nil
            }
            if runStart == nil { runStart = week }
            runEnd = builder.week(of: week).end
        }
        if let start = runStart {
            try store.replaceSuggestions(startingIn: start..<runEnd, with: try build(start..<runEnd, home: home), engineVersion: Self.version)
        }
        return weeks.count
    }

    /// Past this many weeks touched, a refresh rebuilds the whole library (a first import).
    static let fullRebuildWeeks = 52

    /// Where a full rebuild's span that starts at `start` ends: ``rebuildWeeks`` later, on a week's start.
    private func spanEnd(after start: Int64) -> Int64 {
        builder.week(of: start + Duration.days(Self.rebuildWeeks * 7).ms + Duration.hours(12).ms).start
    }

    /// The items a span reads past the reach of the one before, read while that one is built.
    private struct Ahead {
        /// The first start read.
        var fromMs: Int64
        /// The last start read: the span's reach.
        var toMs: Int64
        /// The items starting from `fromMs` to `toMs`.
        var items: Prefetch<[LibraryItem]>
    }

    private func build(_ window: Range<Int64>, home: HomeBase) throws(StoreError) -> [StoredSuggestion] {
        var read: Read?
        return try build(window, home: home, read: &read)
    }

    /// The items one window's build read (with its margins), as the build left them: its own
    /// derived items made again, the rest as stored. The next span of a full rebuild starts
    /// ``rebuildWeeks`` later and reads ``marginMs`` before it: six weeks of the same items.
    struct Read {
        /// The items, as ``build(_:home:read:)`` handed them to the builder.
        var items: [LibraryItem]
        /// The last start they were read to, inclusive.
        var throughMs: Int64
    }

    /// Builds `window` from its items and those within ``marginMs`` of it. With `read` (the span
    /// before's, read up to a start within this one's reach), the items it holds from this reach's
    /// start are taken from it and only the rest read: the same items a reading of the whole reach
    /// gives, as the span before made its derived items again and left those after it as stored.
    /// `read` is then what this build read (the span before's let go first: one span's items at a time).
    /// `fresh`, when given, is the items a full rebuild read meanwhile, with the starts it read:
    /// used when those are exactly what is left to read after `read`.
    private func build(_ window: Range<Int64>, home: HomeBase, read: inout Read?,
                       fresh: (starts: ClosedRange<Int64>, items: [LibraryItem])? = nil) throws(StoreError) -> [StoredSuggestion] {
        let from = window.lowerBound - Self.marginMs, to = window.upperBound + Self.marginMs
        var items: [LibraryItem]
        if let earlier = read.take(), earlier.throughMs >= from, earlier.throughMs < to {
            items = earlier.items.filter { $0.startMs >= from }
            if let fresh, fresh.starts == (earlier.throughMs + 1)...to {
                items += fresh.items
            } else {
                items += try store.items(startingFrom: earlier.throughMs + 1, to: to)
            }
        } else {
            items = try store.items(startingFrom: from, to: to)
        }
        // The window's stays from photos, derived again from its photos as they are now (``PhotoStays``).
        let stays = PhotoStays.derive(from: items, owning: window)
        try store.replaceDerivedItems(source: PhotoStays.source, startingIn: window, with: stays)
        items.removeAll { $0.source == PhotoStays.source && window.contains($0.startMs) }
        // The window's reflection prompts, each week's from the project's set (``ReflectionPrompts``).
        let prompts = ReflectionPrompts.derive(from: items, owning: window, time: builder.time)
        try store.replaceDerivedItems(source: ReflectionPrompts.source, startingIn: window, with: prompts)
        items.removeAll { $0.source == ReflectionPrompts.source && window.contains($0.startMs) }
        items = (items + stays + prompts).sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }
        // The calendar's events of the same span (summaries and times only), through their start index.
        let events = try store.eventSpans(overlapping: from..<to)
        let built = builder.build(from: items, home: home, owning: window, events: events, corrections: try corrections())
        read = Read(items: items, throughMs: to)
        return built
    }

    /// The person's word on home and work, as the builder takes it (a stored correction that cannot
    /// be read is passed over here; `pickerctl places` reports it).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func corrections() throws(StoreError) -> [KnownPlaces.Correction] {
        try store.readablePlaceCorrections().map(KnownPlaces.Correction.init)
    }

    /// Builds again the moments the person's name for the place at `coordinate` touches (given or
    /// taken back): the weeks of the items lying near it, with a week either side (a trip that began
    /// before or ended after them), not the whole library. A name is put on place items within
    /// ``KnownPlaces/correctionRadius``; the items looked for lie within four times that, so the
    /// photos of a stay named there are among them.
    /// - Parameter coordinate: where the name is (or was).
    /// - Returns: how many weeks were built again.
    /// - Throws: ``StoreError``.
    @discardableResult
    public func refresh(namedAt coordinate: Coordinate) throws(StoreError) -> Int {
        guard let library = try store.libraryRange() else { return 0 }
        let week = Duration.days(7).ms
        let spans = try store.itemSpans(near: coordinate, withinM: 4 * KnownPlaces.correctionRadius)
        return try refresh(touching: spans.map { max(library.lowerBound, $0.lowerBound - week)...min(library.upperBound, $0.upperBound + week) })
    }

    /// Builds again the moments a change of the person's word on home or work touches: from a
    /// week before the earliest day it holds from (a trip that began before it) to the library's end;
    /// the whole library when it holds from the start.
    /// - Parameter fromDays: the days the changed corrections held from (`nil`: from the start).
    /// - Returns: how many weeks were built again.
    /// - Throws: ``StoreError``.
    @discardableResult
    public func refresh(correctedFrom fromDays: [Int?]) throws(StoreError) -> Int {
        guard let range = try store.libraryRange(), !fromDays.isEmpty else { return 0 }
        let days = fromDays.compactMap { $0 }
        guard days.count == fromDays.count, let first = days.min() else {
            let weeks = Int((range.upperBound - range.lowerBound) / Duration.days(7).ms) + 1
            try rebuildAll()
            return weeks
        }
        let from = max(range.lowerBound, builder.time.ms(day: first - 7, hour: 0))
        guard from <= range.upperBound else { return 0 }
        return try refresh(touching: [from...range.upperBound])
    }
}
