import Foundation
import GRDB
public import PickerdWire

extension Store {
    // MARK: History

    /// Records one release.
    /// - Parameters:
    ///   - timeMs: when, ms since 1970.
    ///   - bundleID: the receiving app.
    ///   - appName: its display name.
    ///   - suggestionID: the suggestion the items came from.
    ///   - title: the title the app received.
    ///   - items: what was released.
    /// - Returns: the history entry's number.
    /// - Throws: ``StoreError`` `.writeFailed`.
    @discardableResult
    public func recordRelease(timeMs: Int64, bundleID: String, appName: String, suggestionID: String, title: String,
                              items: [ReleasedItem]) throws(StoreError) -> Int64 {
        try write("record a release") { db in
            try db.execute(sql: "INSERT INTO release (time_ms, bundle_id, app_name, suggestion_id, title) VALUES (?, ?, ?, ?, ?)",
                           arguments: [timeMs, bundleID, appName, suggestionID, title])
            let id = db.lastInsertedRowID
            for (position, item) in items.enumerated() {
                try db.execute(sql: "INSERT INTO release_item (release_id, position, item_id, kind, summary) VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, position, item.itemId, item.kind, item.summary])
            }
            return id
        }
    }

    /// The release history, newest first.
    /// - Parameters:
    ///   - limit: the most entries to return; 0 for all.
    ///   - bundleID: only this app's releases; empty for every app.
    /// - Returns: the entries.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func history(limit: Int = 0, bundleID: String = "") throws(StoreError) -> [Release] {
        try read("read the history") { db in
            var sql = "SELECT * FROM release"
            var arguments: StatementArguments = []
            if !bundleID.isEmpty {
                sql += " WHERE bundle_id = ?"
                arguments += [bundleID]
            }
            sql += " ORDER BY id DESC"
            if limit > 0 {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let id: Int64 = row["id"]
                let items = try Row.fetchAll(db, sql: "SELECT * FROM release_item WHERE release_id = ? ORDER BY position", arguments: [id])
                    .map { ReleasedItem(itemId: $0["item_id"], kind: $0["kind"], summary: $0["summary"]) }
                return Release(id: id, timeMs: row["time_ms"], bundleID: row["bundle_id"], appName: row["app_name"],
                               suggestionID: row["suggestion_id"], title: row["title"], items: items)
            }
        }
    }

    /// Deletes release history: every entry, or one app's.
    /// - Parameter bundleID: the app, or empty for every app.
    /// - Returns: how many entries were deleted.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func clearHistory(bundleID: String = "") throws(StoreError) -> Int {
        try write("clear the release history") { db in
            if bundleID.isEmpty {
                try db.execute(sql: "DELETE FROM release")
            } else {
                try db.execute(sql: "DELETE FROM release WHERE bundle_id = ?", arguments: [bundleID])
            }
            return db.changesCount
        }
    }
}
