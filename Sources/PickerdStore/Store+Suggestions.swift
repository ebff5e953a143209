public import Foundation
import GRDB
import Synchronization
public import PickerdWire

extension Store {
    // MARK: Suggestions

    /// How much being shown and being released lower a suggestion's rank, so the same moment is not
    /// recommended for ever (the moments engine's other weights are its `MomentTuning`; these are the
    /// store's because it ranks its candidates by them in SQL).
    public enum Rotation {
        /// What each time a moment was among the first a review opened on takes from its rank…
        public static let perShowing = 0.6
        /// …counted at most this many times (a moment shown often stays in reach).
        public static let showingsCounted = 5
        /// What a release takes from its rank: once written about, well below the rest.
        public static let released = 4.0
    }

    /// The rank as SQL over a suggestion's row: its score less what rotation took.
    static let rankSQL = "score - \(Rotation.perShowing) * MIN(shown, \(Rotation.showingsCounted)) - \(Rotation.released) * released"

    /// Replaces every stored suggestion with `suggestions`, in one transaction (what was shown and
    /// released of a suggestion whose id stays is kept).
    /// - Throws: ``StoreError`` `.invalid` for a suggestion over 13 items, `.writeFailed`.
    /// - Parameters:
    ///   - suggestions: the new suggestions (each at most 13 items).
    ///   - engineVersion: the version of the engine that built all of them, recorded for
    ///     ``suggestionsEngineVersion()``; `nil` (a tool's own suggestions) keeps the version recorded.
    public func replaceSuggestions(_ suggestions: [StoredSuggestion], engineVersion: Int? = nil) throws(StoreError) {
        try replaceSuggestions(startingIn: Int64.min..<Int64.max, with: suggestions, engineVersion: engineVersion, all: true)
    }

    /// Replaces the suggestions anchored in `range` with `suggestions` (the moments the engine
    /// made again for those days), in one transaction. A suggestion whose id stays keeps its
    /// rotation (how often it was shown, whether it was released).
    /// - Parameters:
    ///   - range: start times, ms since 1970, whose suggestions are replaced.
    ///   - suggestions: the new suggestions (each at most 13 items).
    ///   - engineVersion: the version of the engine that built them: recorded only when no version
    ///     is yet (some weeks built again say nothing of the others).
    /// - Throws: ``StoreError`` `.invalid` for a suggestion over 13 items, `.writeFailed`; then
    ///   nothing changed.
    public func replaceSuggestions(startingIn range: Range<Int64>, with suggestions: [StoredSuggestion], engineVersion: Int? = nil) throws(StoreError) {
        try replaceSuggestions(startingIn: range, with: suggestions, engineVersion: engineVersion, all: false)
    }

    private func replaceSuggestions(startingIn range: Range<Int64>, with suggestions: [StoredSuggestion], engineVersion: Int?,
                                    all: Bool) throws(StoreError) {
        if let big = suggestions.first(where: { $0.itemIDs.count > 13 }) {
            throw StoreError(.invalid, "suggestion \"\(big.title)\" has \(big.itemIDs.count) items; the limit is 13")
        }
        try write("store \(suggestions.count) suggestions") { db in
            // Noted inside the transaction, so a window written before a rebuild's swap is always
            // among those it builds again (one noted after the noting stopped commits after the swap).
            if !all { replacedWindows.withLock { $0?.append(range) } }
            var rotation: [String: (Int, Int)] = [:]
            let ids = suggestions.map(\.id.text)
            for row in try Row.fetchAll(db, sql: "SELECT id, shown, released FROM suggestion WHERE anchor_ms >= ? AND anchor_ms < ?",
                                        arguments: [range.lowerBound, range.upperBound]) {
                rotation[row["id"]] = (row["shown"], row["released"])
            }
            for id in ids {
                if rotation[id] == nil, let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT shown, released FROM suggestion WHERE id = ?"),
                                                                   arguments: [id]) {
                    rotation[id] = (row["shown"], row["released"])
                }
            }
            if range == Int64.min..<Int64.max {
                try db.execute(sql: "DELETE FROM suggestion")
            } else {
                try db.execute(sql: "DELETE FROM suggestion WHERE anchor_ms >= ? AND anchor_ms < ?", arguments: [range.lowerBound, range.upperBound])
                for id in ids { try db.cachedStatement(sql: "DELETE FROM suggestion WHERE id = ?").execute(arguments: [id]) }
            }
            for (s, id) in zip(suggestions, ids) {
                let (shown, released) = rotation[id] ?? (0, 0)
                try db.cachedStatement(sql: """
                    INSERT INTO suggestion (id, title, kind, start_ms, end_ms, score, shown, released, rank, month_day, anchor_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                    """).execute(arguments: [id, s.title, Int(s.kind.rawValue), s.startMs, s.endMs, s.score, shown, released, s.monthDay,
                                             s.anchorMs])
                for (position, item) in s.itemIDs.enumerated() {
                    try db.cachedStatement(sql: "INSERT INTO suggestion_item (suggestion_id, position, item_id) VALUES (?, ?, ?)")
                        .execute(arguments: [id, position, item.text])
                }
                // Which categories its items are of, as bits: the picker's filter by the person's
                // settings is then an index-friendly test, not a join.
                try db.cachedStatement(sql: """
                    UPDATE suggestion SET rank = \(Self.rankSQL), category_mask = (
                        SELECT COALESCE(SUM(DISTINCT 1 << i.category), 0) FROM suggestion_item si JOIN item i ON i.id = si.item_id
                        WHERE si.suggestion_id = suggestion.id)
                    WHERE id = ?
                    """).execute(arguments: [id])
            }
            // `built` is the version of the engine that built every suggestion (1: before versions).
            let replace = all && engineVersion != nil ? "REPLACE" : "IGNORE"
            try db.execute(sql: "INSERT OR \(replace) INTO engine_state (id, built) VALUES (1, ?)", arguments: [engineVersion ?? 1])
        }
    }

    /// Starts noting the windows whose suggestions are replaced one window at a time, for a full
    /// rebuild that runs while pickerd serves: what an import or a correction wrote meanwhile, the
    /// rebuild's swap replaces with moments made before it, so those windows are built again after.
    public func noteReplacedWindows() {
        replacedWindows.withLock { $0 = [] }
    }

    /// Stops noting replaced windows (``noteReplacedWindows()``).
    /// - Returns: the windows replaced since noting started, in the order they were written.
    public func replacedWindowsNoted() -> [Range<Int64>] {
        replacedWindows.withLock { windows in
            defer { windows = nil }
            return windows ?? []
        }
    }

    /// The version of the moments engine that built this store's suggestions, or `nil` when none
    /// has (a store from before the engine, or one another tool filled). Stores from before
    /// versions were recorded say 1.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionsEngineVersion() throws(StoreError) -> Int? {
        try read("read the engine's state") { db in try Int.fetchOne(db, sql: "SELECT built FROM engine_state WHERE id = 1") }
    }

    /// Every stored suggestion, in no particular order. Reads the whole table: for tools and tests,
    /// never on the presentation path.
    /// - Returns: the suggestions.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestions() throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion", arguments: [])
        }
    }

    /// Reads suggestion rows (with their item ids) that `sql` selects, in its order.
    static func suggestions(_ db: Database, sql: String, arguments: StatementArguments, cached: Bool = true) throws -> [StoredSuggestion] {
        // Fixed queries stay compiled; a query whose IN list varies in length is compiled each time.
        let rows = try Row.fetchAll(cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql), arguments: arguments)
        // Their items in one query per 500 suggestions, not one per suggestion.
        let links = try ItemCodec.inChunks(rows.map { $0[0] as String }) { marks, arguments in
            try Row.fetchAll(db, sql: "SELECT suggestion_id, item_id FROM suggestion_item WHERE suggestion_id IN (\(marks)) ORDER BY suggestion_id, position",
                             arguments: arguments)
        }
        var items: [String: [UUID]] = [:]
        for row in links {
            if let item = UUID.parsing(row[1]) { items[row[0], default: []].append(item) }
        }
        return rows.compactMap { row in
            let id: String = row[0]
            guard let uuid = UUID.parsing(id) else { return nil }
            var s = StoredSuggestion(id: uuid, title: row[1], kind: SuggestionKind(rawValue: row[2]),
                                     startMs: row[3], endMs: row[4], score: row[5], itemIDs: items[id] ?? [],
                                     monthDay: row[6], anchorMs: row[7])
            s.rank = row[8]
            s.categoryMask = row[9]
            return s
        }
    }

    /// The columns every suggestion query reads, in the order ``suggestions(_:sql:arguments:)`` takes them.
    static let suggestionColumns = "id, title, kind, start_ms, end_ms, score, month_day, anchor_ms, rank, category_mask"

    /// The bits of `categories`, as ``StoredSuggestion/categoryMask`` holds them.
    public static func mask(_ categories: Set<PickerdWire.Category>) -> Int64 {
        categories.reduce(0) { $0 | (1 << Int64($1.rawValue)) }
    }

    /// Recent: suggestions with an item of an enabled category, newest first, a page at a time
    /// (through the `end_ms` index).
    /// - Parameters:
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - offset: how many to skip.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func recentSuggestions(enabled: Int64, offset: Int, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read recent suggestions") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion WHERE category_mask & ? != 0 AND \(Self.notHidden) ORDER BY end_ms DESC, id DESC LIMIT ? OFFSET ?",
                                 arguments: [enabled, limit, offset])
        }
    }

    /// Each kind's best suggestions by rank (rotation applied), and its newest, for Recommended:
    /// two short index walks per kind, then the rows in one read.
    /// - Parameters:
    ///   - kinds: the kinds of moment.
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - limit: how many of each, per kind.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func candidates(kinds: [SuggestionKind], enabled: Int64, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            var ids: [String] = []
            var seen = Set<String>()
            for kind in kinds {
                for sql in ["SELECT id FROM suggestion WHERE kind = ? AND category_mask & ? != 0 ORDER BY rank DESC LIMIT ?",
                            "SELECT id FROM suggestion WHERE kind = ? AND category_mask & ? != 0 ORDER BY end_ms DESC LIMIT ?"] {
                    for id in try String.fetchAll(db.cachedStatement(sql: sql), arguments: [Int(kind.rawValue), enabled, limit])
                    where seen.insert(id).inserted {
                        ids.append(id)
                    }
                }
            }
            return try Self.suggestions(db, ids: ids)
        }
    }

    /// The suggestions with these ids (in no particular order), 500 to a query.
    static func suggestions(_ db: Database, ids: [String]) throws -> [StoredSuggestion] {
        try ItemCodec.inChunks(ids) { marks, arguments in
            try suggestions(db, sql: "SELECT \(suggestionColumns) FROM suggestion WHERE id IN (\(marks))", arguments: arguments, cached: false)
        }
    }

    /// Suggestions of earlier years on this calendar day ("on this day"), best first.
    /// - Parameters:
    ///   - monthDay: month × 100 + day, in the person's time.
    ///   - before: only moments that ended before this time, ms since 1970.
    ///   - enabled: ``mask(_:)`` of the enabled categories.
    ///   - limit: the most to return.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestions(onMonthDay monthDay: Int, endingBefore before: Int64, enabled: Int64, limit: Int) throws(StoreError) -> [StoredSuggestion] {
        try read("read suggestions") { db in
            try Self.suggestions(db, sql: """
                SELECT \(Self.suggestionColumns) FROM suggestion WHERE month_day = ? AND end_ms < ? AND category_mask & ? != 0 ORDER BY rank DESC LIMIT ?
                """, arguments: [monthDay, before, enabled, limit])
        }
    }

    /// One suggestion by id, if stored.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestion(id: UUID) throws(StoreError) -> StoredSuggestion? {
        try read("read a suggestion") { db in
            try Self.suggestions(db, sql: "SELECT \(Self.suggestionColumns) FROM suggestion WHERE id = ?", arguments: [id.text]).first
        }
    }

    /// The newest end of any suggestion (the library's "now", for recency), through the index.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func newestSuggestionEnd() throws(StoreError) -> Int64? {
        try read("read suggestions") { db in try Int64.fetchOne(db, sql: "SELECT MAX(end_ms) FROM suggestion") }
    }

    /// Records that suggestions were shown to the person (near the top of Recommended): each
    /// showing lowers their rank a little, up to a bound.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markShown(_ ids: [UUID]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write("record what was shown") { db in
            for id in ids {
                try db.cachedStatement(sql: "UPDATE suggestion SET shown = shown + 1 WHERE id = ?").execute(arguments: [id.text])
                try db.cachedStatement(sql: "UPDATE suggestion SET rank = \(Self.rankSQL) WHERE id = ?").execute(arguments: [id.text])
            }
        }
    }

    /// Records that a suggestion was written about: its rank drops well below the rest.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markReleased(_ id: UUID) throws(StoreError) {
        try write("record a release") { db in
            try db.execute(sql: "UPDATE suggestion SET released = 1 WHERE id = ?", arguments: [id.text])
            try db.execute(sql: "UPDATE suggestion SET rank = \(Self.rankSQL) WHERE id = ?", arguments: [id.text])
        }
    }

    /// How many suggestions are stored (`pickerctl status`), as the triggers keep count.
    /// - Returns: the count.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionCount() throws(StoreError) -> Int {
        try read("count suggestions") { db in try Int.fetchOne(db, sql: "SELECT n FROM suggestion_count WHERE id = 1") ?? 0 }
    }

    /// The most items any suggestion shows with these categories on (`pickerctl library stats`;
    /// it reads every suggestion's items, so it is not for the presentation path).
    /// - Parameter enabled: ``mask(_:)`` of the enabled categories.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func largestSuggestionSize(enabled: Int64) throws(StoreError) -> Int {
        try read("read suggestions") { db in
            try Int.fetchOne(db, sql: """
                SELECT COALESCE(MAX(n), 0) FROM (
                    SELECT COUNT(*) AS n FROM suggestion_item si JOIN item i ON i.id = si.item_id
                    WHERE (1 << i.category) & ? != 0 AND i.excluded = 0 AND i.not_memory IS NULL
                    GROUP BY si.suggestion_id)
                """, arguments: [enabled]) ?? 0
        }
    }

    /// The condition that leaves out suggestions the person hid by id (their other rules need the
    /// items, and are applied when a suggestion is listed).
    static let notHidden = "id NOT IN (SELECT suggestion_id FROM hidden_rule WHERE kind = 'suggestion' AND suggestion_id IS NOT NULL)"

    /// How many suggestions have an item of an enabled category and are not hidden by id (Recent's length). Counted by
    /// SQLite each time (another process may add to the library; a few milliseconds at 30,000).
    /// - Throws: ``StoreError`` `.unreadable`.
    public func visibleSuggestionCount(enabled: Int64) throws(StoreError) -> Int {
        try read("count suggestions") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM suggestion WHERE category_mask & ? != 0 AND \(Self.notHidden)", arguments: [enabled]) ?? 0
        }
    }
}
