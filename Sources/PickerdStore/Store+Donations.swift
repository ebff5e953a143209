import Foundation
import GRDB

extension LibraryItem {
    /// The prefix of a donated item's ``source``: `donation:` and the donating app's bundle id.
    public static let donationPrefix = "donation:"

    /// The ``source`` of an item the app `bundleID` donated.
    /// - Parameter bundleID: the donating app's bundle id.
    /// - Returns: `donation:<bundleID>`.
    public static func donationSource(_ bundleID: String) -> String { donationPrefix + bundleID }

    /// The bundle id of the app that donated this item, `nil` when it was not donated.
    public var donatingApp: String? {
        source.hasPrefix(Self.donationPrefix) ? String(source.dropFirst(Self.donationPrefix.count)) : nil
    }
}

extension Store {
    /// Donated items, newest first: every app's, or one app's.
    /// - Parameters:
    ///   - bundleID: one app's donations; `nil` for every app's.
    ///   - limit: the most returned; 0 for all.
    /// - Returns: the items.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func donations(bundleID: String? = nil, limit: Int = 0) throws(StoreError) -> [LibraryItem] {
        let ids = try read("read donations") { db -> [UUID] in
            let (condition, arguments) = Self.donationCondition(bundleID)
            let sql = "SELECT id FROM item WHERE \(condition) ORDER BY start_ms DESC, id" + (limit > 0 ? " LIMIT \(limit)" : "")
            return try String.fetchAll(db, sql: sql, arguments: arguments).compactMap(UUID.init(uuidString:))
        }
        return try items(ids)
    }

    /// How many items the app `bundleID` has donated.
    /// - Parameter bundleID: the app.
    /// - Returns: the count.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func donationCount(bundleID: String) throws(StoreError) -> Int {
        try read("count donations") { db in
            let (condition, arguments) = Self.donationCondition(bundleID)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(condition)", arguments: arguments) ?? 0
        }
    }

    /// The donated items of `bundleID` with these external ids (unknown ids are left out): another
    /// app's donations are never among them, whatever ids are named.
    /// - Parameters:
    ///   - bundleID: the donating app.
    ///   - externalIDs: the app's own identifiers.
    /// - Returns: the items found.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func donations(bundleID: String, externalIDs: [String]) throws(StoreError) -> [LibraryItem] {
        let ids = try read("read donations") { db -> [UUID] in
            var found: [UUID] = []
            for externalID in externalIDs {
                let id = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM item WHERE source = ? AND external_id = ?"),
                                             arguments: [LibraryItem.donationSource(bundleID), externalID])
                if let id, let uuid = UUID(uuidString: id) { found.append(uuid) }
            }
            return found
        }
        return try items(ids)
    }

    /// Removes the store's own media files no item refers to any more, among `paths` (relative to
    /// the media directory): what a replaced or withdrawn donation leaves. A file still referred to
    /// stays; a person's own file (an absolute path) is never touched.
    /// - Parameter paths: candidate files, relative to the media directory.
    public func removeUnreferencedMedia(_ paths: [String]) {
        let candidates = paths.filter { !$0.hasPrefix("/") && !$0.contains("..") }
        guard !candidates.isEmpty else { return }
        let unreferenced = (try? read("look up media") { db in
            try candidates.filter { path in
                try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM media WHERE relative_path = ?"), arguments: [path]) == 0
            }
        }) ?? []
        for path in unreferenced { try? FileManager.default.removeItem(atPath: mediaDirectory + "/" + path) }
    }

    private static func donationCondition(_ bundleID: String?) -> (String, StatementArguments) {
        if let bundleID { return ("source = ?", [LibraryItem.donationSource(bundleID)]) }
        // A range on the (source, external_id) index: every source that starts with the prefix.
        return ("source >= ? AND source < ?", [LibraryItem.donationPrefix, "donation;"])
    }
}
