import Foundation
import GRDB
import Synchronization

/// The person's word on where home or work is (`pickerctl places set-home|set-work`), or on what a
/// place is called (`pickerctl places name`): it wins over what pickerd finds in the visits and
/// over every name the person's data or the gazetteer gives. A home from a day on is a move; one
/// without a day is home for the whole library until the next dated one. Nothing found is deleted:
/// removing a correction brings back what pickerd found.
public struct StoredPlaceCorrection: Sendable, Hashable {
    /// Which place the person corrected.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// Where they live.
        case home
        /// Where they work.
        case work
        /// A place they named ("Nonna's", "the Tan track"): its `name` wins wherever the place is
        /// named, always (never dated).
        case name
    }

    /// How near two names' coordinates must be to name one place, in metres: the engine's radius
    /// for "at a known place" (`KnownPlaces.correctionRadius`), so a second name given near the
    /// first replaces it.
    public static let sameNameRadius = 150.0

    /// Its number in the store (0 before it is stored).
    public var id: Int64
    /// Home or work.
    public var role: Role
    /// Where the place is.
    public var coordinate: Coordinate
    /// What the person calls it ("" when they gave no name: the visits' or the gazetteer's is used).
    public var name: String
    /// From which local day on (days since 1970-01-01, ``Civil``'s day index, in the person's time
    /// zone) it holds; `nil`: from the start.
    public var fromDay: Int?
    /// When it was made, ms since 1970.
    public var createdMs: Int64

    /// Creates a correction.
    /// - Parameters:
    ///   - id: its number in the store (0 for a new one).
    ///   - role: home or work.
    ///   - coordinate: where the place is.
    ///   - name: what the person calls it, or "".
    ///   - fromDay: from which local day on it holds, or `nil` for always.
    ///   - createdMs: when it was made, ms since 1970.
    public init(id: Int64 = 0, role: Role, coordinate: Coordinate, name: String = "", fromDay: Int? = nil, createdMs: Int64) {
        self.id = id
        self.role = role
        self.coordinate = coordinate
        self.name = name
        self.fromDay = fromDay
        self.createdMs = createdMs
    }
}

extension Store {
    /// Every correction of home and work, oldest first (read once, then remembered until one changes).
    /// - Returns: the corrections.
    /// - Throws: ``StoreError`` `.unreadable`; `.corrupt` when a stored correction cannot be read (it
    ///   is left as it is; `pickerctl places reset` removes it).
    public func placeCorrections() throws(StoreError) -> [StoredPlaceCorrection] {
        let read = try readPlaceCorrections()
        if let bad = read.unreadable.first {
            throw StoreError(.corrupt, "place correction \(bad.id) in \(databasePath) cannot be read (\(bad.why)); it was left as it is: "
                                       + "pickerctl places reset removes every correction")
        }
        return read.corrections
    }

    /// The corrections that can be read, passing over any that cannot (the moments engine: one bad
    /// row must not stop every rebuild; ``placeCorrections()`` reports it).
    /// - Returns: the readable corrections, oldest first.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func readablePlaceCorrections() throws(StoreError) -> [StoredPlaceCorrection] {
        try readPlaceCorrections().corrections
    }

    private func readPlaceCorrections() throws(StoreError) -> (corrections: [StoredPlaceCorrection], unreadable: [(id: Int64, why: String)]) {
        if let cached = correctionCache.withLock({ $0 }) { return (cached, []) }
        let rows = try read("read the place corrections") { db in
            try Row.fetchAll(db, sql: "SELECT id, role, latitude, longitude, name, from_day, created_ms FROM place_correction ORDER BY id")
        }
        var corrections: [StoredPlaceCorrection] = []
        var unreadable: [(id: Int64, why: String)] = []
        for row in rows {
            let id: Int64 = row["id"]
            let role: String = row["role"]
            let latitude: Double? = row["latitude"], longitude: Double? = row["longitude"]
            guard let known = StoredPlaceCorrection.Role(rawValue: role) else {
                unreadable.append((id, "role '\(role)'"))
                continue
            }
            guard let latitude, let longitude, latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
                unreadable.append((id, "no place on Earth"))
                continue
            }
            corrections.append(StoredPlaceCorrection(id: id, role: known, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                                                     name: row["name"] ?? "", fromDay: row["from_day"], createdMs: row["created_ms"]))
        }
        if unreadable.isEmpty { correctionCache.withLock { $0 = corrections } }
        return (corrections, unreadable)
    }

    /// Stores the person's word on home or work; it replaces a correction of the same role from the
    /// same day (or the undated one). A name (role ``StoredPlaceCorrection/Role/name``) replaces
    /// the names within ``StoredPlaceCorrection/sameNameRadius`` of it; an empty name only removes them.
    /// - Parameter correction: the correction (its `id` is ignored).
    /// - Returns: the correction as stored, with its number (0 when an empty name only removed names).
    /// - Throws: ``StoreError`` `.invalid` for a coordinate off the Earth; `.writeFailed`.
    @discardableResult
    public func setPlaceCorrection(_ correction: StoredPlaceCorrection) throws(StoreError) -> StoredPlaceCorrection {
        let c = correction.coordinate
        guard c.latitude.isFinite, c.longitude.isFinite, abs(c.latitude) <= 90, abs(c.longitude) <= 180 else {
            throw StoreError(.invalid, "\(c.latitude),\(c.longitude) is not a place on Earth")
        }
        let name = correction.name.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { correctionCache.withLock { $0 = nil } }
        let replaced = correction.role == .name
            ? try readablePlaceCorrections().filter { $0.role == .name && $0.coordinate.distance(to: c) <= StoredPlaceCorrection.sameNameRadius }.map(\.id)
            : []
        let id = try write("store a place correction") { db -> Int64 in
            if correction.role == .name {
                for id in replaced { try db.execute(sql: "DELETE FROM place_correction WHERE id = ?", arguments: [id]) }
                guard !name.isEmpty else { return 0 }
                try db.execute(sql: "INSERT INTO place_correction (role, latitude, longitude, name, from_day, created_ms) VALUES (?, ?, ?, ?, NULL, ?)",
                               arguments: [correction.role.rawValue, c.latitude, c.longitude, name, correction.createdMs])
                return db.lastInsertedRowID
            }
            try db.execute(sql: "DELETE FROM place_correction WHERE role = ? AND from_day IS ?",
                           arguments: [correction.role.rawValue, correction.fromDay])
            try db.execute(sql: "INSERT INTO place_correction (role, latitude, longitude, name, from_day, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [correction.role.rawValue, c.latitude, c.longitude, name, correction.fromDay, correction.createdMs])
            return db.lastInsertedRowID
        }
        var stored = correction
        stored.id = id
        stored.name = name
        if correction.role == .name { stored.fromDay = nil }
        return stored
    }

    /// Removes corrections: what pickerd found holds again where they held.
    /// - Parameters:
    ///   - role: whose corrections; `nil`: every correction, readable or not (`pickerctl places reset`).
    ///   - fromDay: with a role, only the correction from this day (`.some(nil)`: only the undated
    ///     one); `nil`: every correction of the role.
    /// - Returns: how many were removed.
    /// - Throws: ``StoreError`` `.notFound` when a role's correction was asked for and none is stored;
    ///   `.writeFailed`.
    @discardableResult
    public func removePlaceCorrections(role: StoredPlaceCorrection.Role?, fromDay: Int?? = nil) throws(StoreError) -> Int {
        defer { correctionCache.withLock { $0 = nil } }
        let removed = try write("remove place corrections") { db -> Int in
            switch (role, fromDay) {
            case (nil, _):
                try db.execute(sql: "DELETE FROM place_correction")
            case (let role?, nil):
                try db.execute(sql: "DELETE FROM place_correction WHERE role = ?", arguments: [role.rawValue])
            case (let role?, let day?):
                try db.execute(sql: "DELETE FROM place_correction WHERE role = ? AND from_day IS ?", arguments: [role.rawValue, day])
            }
            return db.changesCount
        }
        if let role, removed == 0 {
            let when = switch fromDay { case let day?? : " from day \(day)"; case .some(nil): " without a date"; case nil: "" }
            throw StoreError(.notFound, "you have not set \(role.rawValue)\(when)")
        }
        return removed
    }
}
