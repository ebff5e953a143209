import Foundation
import GRDB
public import PickerdWire
import Synchronization

extension Store {
    // MARK: Settings and consent

    /// Every category's setting (a category never set is enabled).
    /// - Returns: one setting per category, in the schema's order.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func categorySettings() throws(StoreError) -> [CategorySetting] {
        if let cached = cache.withLock({ $0.settings }) { return cached }
        let stored = try read("read settings") { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT category, enabled FROM category_setting")
                .map { (Int32($0["category"] as Int), ($0["enabled"] as Int) != 0) })
        }
        let settings = Category.allKnown.filter { $0 != .unspecified }.map {
            CategorySetting(category: $0, enabled: stored[$0.rawValue] ?? true)
        }
        cache.withLock { $0.settings = settings }
        return settings
    }

    /// The categories currently enabled.
    /// - Returns: the set of enabled categories.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func enabledCategories() throws(StoreError) -> Set<Category> {
        Set(try categorySettings().filter(\.enabled).map(\.category))
    }

    /// Changes the listed categories; others keep their setting.
    /// - Parameter settings: the categories to change.
    /// - Throws: ``StoreError`` `.invalid` for an unknown category, `.writeFailed`.
    public func setCategories(_ settings: [CategorySetting]) throws(StoreError) {
        if let bad = settings.first(where: { !Category.allKnown.contains($0.category) || $0.category == .unspecified }) {
            throw StoreError(.invalid, "unknown category \(bad.category.rawValue)")
        }
        defer { cache.withLock { $0.settings = nil } }
        try write("change settings") { db in
            for s in settings {
                try db.execute(sql: "INSERT OR REPLACE INTO category_setting (category, enabled) VALUES (?, ?)",
                               arguments: [Int(s.category.rawValue), s.enabled ? 1 : 0])
            }
        }
    }

    /// When the person turned suggestions on for this device, if they have.
    /// - Returns: ms since 1970, or `nil` before consent.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func consentDate() throws(StoreError) -> Int64? {
        if let cached = cache.withLock({ $0.consent }) { return cached }
        let given = try read("read consent") { db in try Int64.fetchOne(db, sql: "SELECT given_ms FROM consent WHERE id = 1") }
        cache.withLock { $0.consent = .some(given) }
        return given
    }

    /// Records consent (once per device: a second call keeps the first date).
    /// - Parameter timeMs: when, ms since 1970.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func recordConsent(at timeMs: Int64) throws(StoreError) {
        defer { cache.withLock { $0.consent = nil } }
        try write("record consent") { db in
            try db.execute(sql: "INSERT INTO consent (id, given_ms) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET given_ms = COALESCE(given_ms, excluded.given_ms)",
                           arguments: [timeMs])
        }
    }

    /// Forgets consent: the next presentation asks again.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func resetConsent() throws(StoreError) {
        defer { cache.withLock { $0.consent = nil } }
        try write("reset consent") { db in try db.execute(sql: "UPDATE consent SET given_ms = NULL WHERE id = 1") }
    }

    /// Whether the person dismissed the privacy banner.
    /// - Returns: `true` once dismissed.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func privacyBannerDismissed() throws(StoreError) -> Bool {
        if let cached = cache.withLock({ $0.bannerDismissed }) { return cached }
        let dismissed = try read("read consent") { db in
            (try Int.fetchOne(db, sql: "SELECT privacy_banner_dismissed FROM consent WHERE id = 1") ?? 0) != 0
        }
        cache.withLock { $0.bannerDismissed = dismissed }
        return dismissed
    }

    /// Records that the person dismissed the privacy banner.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func dismissPrivacyBanner() throws(StoreError) {
        defer { cache.withLock { $0.bannerDismissed = nil } }
        try write("record the banner") { db in
            try db.execute(sql: "INSERT INTO consent (id, privacy_banner_dismissed) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET privacy_banner_dismissed = 1")
        }
    }
}
