public import Foundation
import GRDB
import Synchronization

/// One thing the person chose not to see again in suggestions: a suggestion, a person, a place or a
/// span of days. A rule hides; it never deletes: removing it brings back what it hid.
public struct StoredHiddenRule: Sendable, Hashable {
    /// What a rule hides.
    public enum Target: Sendable, Hashable {
        /// One suggestion, by its id; `title` is what it was called when hidden (for the list).
        case suggestion(UUID, title: String)
        /// A person, by their contact's name (matched without regard to case).
        case person(String)
        /// A place: its visits and the photos within ``StoredHiddenRule/placeRadius`` of `coordinate`;
        /// `name` is for display (may be empty).
        case place(name: String, coordinate: Coordinate)
        /// The local days `from`…`to` (inclusive), as days since 1970-01-01 (``Civil``'s day index).
        case days(from: Int, to: Int)
    }

    /// How far from a hidden place's coordinate its visits and photos lie, in metres: a known
    /// place's clustering radius (125 m, `KnownPlaces.clusterRadius`) with room for a phone's fix.
    public static let placeRadius = 150.0

    /// The rule's number, as `pickerctl hidden list` shows it and `remove` takes it (0 before it is stored).
    public var id: Int64
    /// What it hides.
    public var target: Target
    /// When it was made, ms since 1970.
    public var createdMs: Int64

    /// Creates a rule.
    /// - Parameters:
    ///   - id: its number in the store (0 for a new rule).
    ///   - target: what it hides.
    ///   - createdMs: when it was made, ms since 1970.
    public init(id: Int64 = 0, target: Target, createdMs: Int64) {
        self.id = id
        self.target = target
        self.createdMs = createdMs
    }
}

extension Store {
    /// Every hidden rule, oldest first (read once, then remembered until a rule changes).
    /// - Returns: the rules.
    /// - Throws: ``StoreError`` `.unreadable`; `.corrupt` when a stored rule cannot be read (it is
    ///   left as it is, nothing is removed).
    public func hiddenRules() throws(StoreError) -> [StoredHiddenRule] {
        if let cached = hiddenCache.withLock({ $0 }) { return cached }
        let path = databasePath
        let rules = try read("read the hidden rules") { db -> [StoredHiddenRule] in
            try Row.fetchAll(db, sql: "SELECT id, kind, suggestion_id, name, latitude, longitude, from_day, to_day, created_ms FROM hidden_rule ORDER BY id")
                .map { row throws(StoreError) -> StoredHiddenRule in
                    let id: Int64 = row["id"]
                    let kind: String = row["kind"]
                    let name: String? = row["name"]
                    let target: StoredHiddenRule.Target?
                    switch kind {
                    case "suggestion":
                        target = (row["suggestion_id"] as String?).flatMap(UUID.init(uuidString:)).map { .suggestion($0, title: name ?? "") }
                    case "person":
                        target = name.flatMap { $0.isEmpty ? nil : .person($0) }
                    case "place":
                        let latitude: Double? = row["latitude"], longitude: Double? = row["longitude"]
                        if let latitude, let longitude, abs(latitude) <= 90, abs(longitude) <= 180 {
                            target = .place(name: name ?? "", coordinate: Coordinate(latitude: latitude, longitude: longitude))
                        } else {
                            target = nil
                        }
                    case "days":
                        let from: Int? = row["from_day"], to: Int? = row["to_day"]
                        if let from, let to, from <= to { target = .days(from: from, to: to) } else { target = nil }
                    default:
                        target = nil
                    }
                    guard let target else {
                        throw StoreError(.corrupt, "hidden rule \(id) in \(path) cannot be read (kind '\(kind)'); it was left as it is: remove it with pickerctl hidden remove \(id)")
                    }
                    return StoredHiddenRule(id: id, target: target, createdMs: row["created_ms"])
                }
        }
        hiddenCache.withLock { $0 = rules }
        return rules
    }

    /// Stores a rule; a rule the same as one already stored is not stored twice.
    /// - Parameter rule: the rule (its `id` is ignored).
    /// - Returns: the rule as stored, with its number.
    /// - Throws: ``StoreError`` `.invalid` for an empty person, a coordinate off the Earth or days
    ///   that end before they start; `.writeFailed`.
    @discardableResult
    public func addHiddenRule(_ rule: StoredHiddenRule) throws(StoreError) -> StoredHiddenRule {
        var columns: (kind: String, suggestion: String?, name: String?, latitude: Double?, longitude: Double?, from: Int?, to: Int?)
        switch rule.target {
        case .suggestion(let id, let title):
            columns = ("suggestion", id.text, title, nil, nil, nil, nil)
        case .person(let name):
            let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { throw StoreError(.invalid, "a hidden person needs a name") }
            columns = ("person", nil, name, nil, nil, nil, nil)
        case .place(let name, let c):
            guard abs(c.latitude) <= 90, abs(c.longitude) <= 180 else {
                throw StoreError(.invalid, "\(c.latitude),\(c.longitude) is not a place on Earth")
            }
            columns = ("place", nil, name, c.latitude, c.longitude, nil, nil)
        case .days(let from, let to):
            guard from <= to else { throw StoreError(.invalid, "the days to hide end before they start") }
            columns = ("days", nil, nil, nil, nil, from, to)
        }
        if let same = try hiddenRules().first(where: { $0.target == rule.target }) { return same }
        defer { hiddenCache.withLock { $0 = nil } }
        let id = try write("store a hidden rule") { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO hidden_rule (kind, suggestion_id, name, latitude, longitude, from_day, to_day, created_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [columns.kind, columns.suggestion, columns.name, columns.latitude, columns.longitude,
                                 columns.from, columns.to, rule.createdMs])
            return db.lastInsertedRowID
        }
        return StoredHiddenRule(id: id, target: rule.target, createdMs: rule.createdMs)
    }

    /// Removes a rule: what it hid shows again.
    /// - Parameter id: the rule's number.
    /// - Returns: the rule removed.
    /// - Throws: ``StoreError`` `.notFound` for an unknown number; `.writeFailed`.
    @discardableResult
    public func removeHiddenRule(id: Int64) throws(StoreError) -> StoredHiddenRule {
        // Read first (a rule that cannot be read can still be removed by its number).
        let known = try? hiddenRules().first { $0.id == id }
        defer { hiddenCache.withLock { $0 = nil } }
        let removed = try write("remove a hidden rule") { db -> Int in
            try db.execute(sql: "DELETE FROM hidden_rule WHERE id = ?", arguments: [id])
            return db.changesCount
        }
        guard removed > 0 else { throw StoreError(.notFound, "no hidden rule \(id)") }
        return known ?? StoredHiddenRule(id: id, target: .person("?"), createdMs: 0)
    }
}
