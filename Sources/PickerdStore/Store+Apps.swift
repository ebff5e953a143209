import GRDB

/// The person's word on one app, as the store keeps it.
public struct AppRecord: Sendable, Hashable {
    /// The app.
    public var bundleID: String
    /// What the allowance was given for (a developer build's executable and entitlements paths, a
    /// Flatpak's app id), or `nil` when never allowed.
    public var allowedKey: String?
    /// When the person allowed it, ms since 1970.
    public var allowedMs: Int64?
    /// When the person last revoked it, ms since 1970.
    public var revokedMs: Int64?
    /// When it last presented the picker, ms since 1970.
    public var lastPresentedMs: Int64?

    /// Creates a record.
    public init(bundleID: String, allowedKey: String? = nil, allowedMs: Int64? = nil, revokedMs: Int64? = nil, lastPresentedMs: Int64? = nil) {
        self.bundleID = bundleID
        self.allowedKey = allowedKey
        self.allowedMs = allowedMs
        self.revokedMs = revokedMs
        self.lastPresentedMs = lastPresentedMs
    }

    /// Whether the person allowed the registration `key` and has not revoked it since.
    public func allows(_ key: String) -> Bool {
        guard let allowedMs, allowedKey == key else { return false }
        return revokedMs.map { $0 < allowedMs } ?? true
    }

    /// Whether the person revoked it after any allowance (a system app too).
    public var isRevoked: Bool {
        guard let revokedMs else { return false }
        return allowedMs.map { revokedMs >= $0 } ?? true
    }
}

extension Store {
    /// What the person said of every app, by bundle id.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func appRecords() throws(StoreError) -> [String: AppRecord] {
        try read("read the apps' states") { db in
            var records: [String: AppRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT bundle_id, allowed_key, allowed_ms, revoked_ms, last_presented_ms FROM app_state") {
                let record = AppRecord(bundleID: row[0], allowedKey: row[1], allowedMs: row[2], revokedMs: row[3], lastPresentedMs: row[4])
                records[record.bundleID] = record
            }
            return records
        }
    }

    /// Records that the person allowed an app's registration `key` in the trusted picker.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func allowApp(_ bundleID: String, key: String, timeMs: Int64) throws(StoreError) {
        try write("allow \(bundleID)") { db in
            try db.execute(sql: """
                INSERT INTO app_state (bundle_id, allowed_key, allowed_ms) VALUES (?, ?, ?)
                ON CONFLICT(bundle_id) DO UPDATE SET allowed_key = excluded.allowed_key, allowed_ms = excluded.allowed_ms
                """, arguments: [bundleID, key, timeMs])
        }
    }

    /// Records that the person revoked an app: it is asked about again at its next presentation.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func revokeApp(_ bundleID: String, timeMs: Int64) throws(StoreError) {
        try write("revoke \(bundleID)") { db in
            try db.execute(sql: """
                INSERT INTO app_state (bundle_id, revoked_ms) VALUES (?, ?)
                ON CONFLICT(bundle_id) DO UPDATE SET revoked_ms = excluded.revoked_ms
                """, arguments: [bundleID, timeMs])
        }
    }

    /// Records a presentation by an app.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func recordPresentation(_ bundleID: String, timeMs: Int64) throws(StoreError) {
        try write("record a presentation") { db in
            try db.execute(sql: """
                INSERT INTO app_state (bundle_id, last_presented_ms) VALUES (?, ?)
                ON CONFLICT(bundle_id) DO UPDATE SET last_presented_ms = excluded.last_presented_ms
                """, arguments: [bundleID, timeMs])
        }
    }
}
