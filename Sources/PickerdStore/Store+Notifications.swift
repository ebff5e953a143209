import Foundation
import GRDB
public import PickerdWire
import Synchronization

extension Store {
    // MARK: Notifications

    /// The person's notification settings (by default: on, smart, no app chosen to open them).
    /// - Returns: the settings.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notificationSettings() throws(StoreError) -> NotificationSettings {
        if let cached = cache.withLock({ $0.notifications }) { return cached }
        let settings = try read("read notification settings") { db -> NotificationSettings in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM notification_settings WHERE id = 1") else {
                return NotificationSettings(enabled: true, mode: .smart)
            }
            let slots = (row["slots"] as String).split(separator: ",").compactMap { pair -> ReminderSlot? in
                let parts = pair.split(separator: ":").compactMap { UInt32($0) }
                return parts.count == 2 ? ReminderSlot(weekday: parts[0], minuteOfDay: parts[1]) : nil
            }
            return NotificationSettings(enabled: row["enabled"], mode: NotificationMode(rawValue: row["mode"]), slots: slots,
                                        openWithBundleId: row["open_with"])
        }
        cache.withLock { $0.notifications = settings }
        return settings
    }

    /// Replaces the notification settings.
    /// - Parameter settings: the new settings.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func setNotificationSettings(_ settings: NotificationSettings) throws(StoreError) {
        defer { cache.withLock { $0.notifications = nil } }
        try write("change notification settings") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO notification_settings (id, enabled, mode, slots, open_with) VALUES (1, ?, ?, ?, ?)",
                           arguments: [settings.enabled, Int(settings.mode.rawValue),
                                       settings.slots.map { "\($0.weekday):\($0.minuteOfDay)" }.joined(separator: ","),
                                       settings.openWithBundleId])
        }
    }

    /// When the person usually adds entries: the release times of the history, in ms since 1970.
    /// - Parameter limit: the most recent releases to consider.
    /// - Returns: release times, newest first.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func releaseTimes(limit: Int = 200) throws(StoreError) -> [Int64] {
        try read("read the history") { db in try Int64.fetchAll(db, sql: "SELECT time_ms FROM release ORDER BY id DESC LIMIT ?", arguments: [limit]) }
    }

    /// How far the reminder scheduler has looked, in ms since 1970; `nil` before it first ran.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func reminderWatermark() throws(StoreError) -> Int64? {
        try read("read the reminder watermark") { db in
            try Int64.fetchOne(db, sql: "SELECT checked_until_ms FROM reminder_state WHERE id = 1")
        }
    }

    /// Moves the scheduler's watermark and, in the same transaction, records the reminder that fell
    /// due before it (a record with an id already there is kept as it was: a slot fires once).
    /// - Parameters:
    ///   - watermark: every slot up to this time (ms since 1970) has been handled.
    ///   - reminder: the reminder that fired, if one did.
    /// - Returns: `true` when `reminder` is new (it was not recorded before).
    /// - Throws: ``StoreError`` `.writeFailed`; then neither changed.
    @discardableResult
    public func advanceReminders(to watermark: Int64, firing reminder: NotificationRecord? = nil) throws(StoreError) -> Bool {
        try write("record a reminder") { db in
            var inserted = false
            if let reminder {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO notification (id, suggestion_id, title, body, fired_ms, opened, url)
                    VALUES (?, ?, ?, ?, ?, 0, ?)
                    """, arguments: [reminder.id, reminder.suggestionId, reminder.title, reminder.body,
                                     reminder.firedAt?.unixMs ?? 0, reminder.url])
                inserted = db.changesCount > 0
            }
            try db.execute(sql: "INSERT OR REPLACE INTO reminder_state (id, checked_until_ms) VALUES (1, ?)", arguments: [watermark])
            return inserted
        }
    }

    /// The reminders that fired, newest first.
    /// - Parameter limit: the most to return; 0 for all.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notifications(limit: Int = 0) throws(StoreError) -> [NotificationRecord] {
        try read("read the reminders") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM notification ORDER BY fired_ms DESC, id DESC LIMIT ?",
                             arguments: [limit > 0 ? limit : -1]).map(Self.notificationRecord)
        }
    }

    /// One reminder by id, or `nil`.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func notification(id: String) throws(StoreError) -> NotificationRecord? {
        try read("read a reminder") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]).map(Self.notificationRecord)
        }
    }

    /// Marks a reminder opened, with the URL it opened.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func markNotificationOpened(id: String, url: String) throws(StoreError) {
        try write("mark a reminder opened") { db in
            try db.execute(sql: "UPDATE notification SET opened = 1, url = ? WHERE id = ?", arguments: [url, id])
        }
    }

    /// The suggestions the person already wrote about or was already reminded of.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func suggestionsReleasedOrReminded() throws(StoreError) -> Set<String> {
        try read("read released suggestions") { db in
            Set(try String.fetchAll(db, sql: "SELECT suggestion_id FROM release UNION SELECT suggestion_id FROM notification"))
        }
    }

    private static func notificationRecord(_ row: Row) -> NotificationRecord {
        NotificationRecord(id: row["id"], suggestionId: row["suggestion_id"], title: row["title"], body: row["body"],
                           firedAt: Timestamp(unixMs: row["fired_ms"]), opened: row["opened"], url: row["url"])
    }
}
