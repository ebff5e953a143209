import Foundation
import PickerdStore
import PickerdWire

/// What the notification settings mean: the schedule an app sees (and every reason it is off), the
/// time the smart schedule picks from the person's own routine, and when the next reminder is due.
enum NotificationPolicy {
    /// The configuration an app reads (`JournalingSuggestionsConfiguration`), with every cause of `.off`.
    static func configuration(for app: AppManifest?, settings: NotificationSettings, consentGiven: Bool) -> ConfigurationReply {
        var causes: [OffCause] = []
        if !consentGiven { causes.append(.suggestionsOff) }
        if settings.openWithBundleId.isEmpty || settings.openWithBundleId != app?.bundleId { causes.append(.notChosenApp) }
        if !settings.enabled { causes.append(.notificationsOff) }
        if app?.notificationUrlFormat.isEmpty ?? true { causes.append(.noUrlFormat) }
        guard causes.isEmpty else { return ConfigurationReply(schedule: .off, offCauses: causes) }
        return ConfigurationReply(schedule: settings.mode == .custom ? .custom : .smart)
    }

    /// The minute of the day the smart schedule reminds at, and why, from when the person has added
    /// entries before (the release history): the median time of day, half an hour earlier.
    static func smartChoice(releaseTimes: [Int64], timeZone: TimeZone = .current) -> (minute: UInt32, why: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let minutes = releaseTimes.map { ms -> Int in
            let c = calendar.dateComponents([.hour, .minute], from: Date(unixMs: ms))
            return (c.hour ?? 0) * 60 + (c.minute ?? 0)
        }.sorted()
        guard !minutes.isEmpty else {
            return (20 * 60, "no entries yet, so 20:00, when most people wind down")
        }
        let median = minutes[minutes.count / 2]
        let minute = UInt32((median - 30 + 1440) % 1440)
        return (minute, String(format: "you usually add entries around %02d:%02d (%d entries), so half an hour before",
                               median / 60, median % 60, minutes.count))
    }

    /// When the next reminder is due after `now`, or `nil` when none is (off, or custom with no slot).
    static func nextFire(settings: NotificationSettings, smartMinute: UInt32, now: Date = Date(), timeZone: TimeZone = .current) -> Date? {
        guard settings.enabled else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let startOfToday = calendar.startOfDay(for: now)
        var candidates: [Date] = []
        for dayOffset in 0...7 {
            guard let day = calendar.date(byAdding: .day, value: dayOffset, to: startOfToday) else { continue }
            // ISO weekday: 1 = Monday … 7 = Sunday (Calendar says 1 = Sunday).
            let isoWeekday = UInt32((calendar.component(.weekday, from: day) + 5) % 7 + 1)
            let minutes: [UInt32] = settings.mode == .custom
                ? settings.slots.filter { $0.weekday == isoWeekday }.map(\.minuteOfDay) : [smartMinute]
            candidates += minutes.map { day.addingTimeInterval(Double($0) * 60) }
        }
        return candidates.filter { $0 > now }.min()
    }

    /// The latest reminder slot in `(after, upTo]`, or `nil` when none fell due in it.
    static func latestDue(settings: NotificationSettings, smartMinute: UInt32, after start: Date, upTo end: Date,
                          timeZone: TimeZone = .current) -> Date? {
        var latest: Date?
        var cursor = start
        while let next = nextFire(settings: settings, smartMinute: smartMinute, now: cursor, timeZone: timeZone), next <= end {
            latest = next
            cursor = next
        }
        return latest
    }

    /// A reminder's id: its slot in local time, `yyyyMMdd-HHmm` (one reminder per slot, easy to type).
    static func reminderID(for slot: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: slot)
        return String(format: "%04d%02d%02d-%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }

    /// The URL an app opens a reminder with: its `JSNotificationURLFormat` with
    /// `{journaling-suggestion-id}` replaced by the suggestion's id (empty for a general reminder).
    static func url(format: String, suggestionID: String) -> String {
        format.replacingOccurrences(of: "{journaling-suggestion-id}", with: suggestionID)
    }

    /// Checks settings a person asked for: known apps with a URL format, sane slots.
    static func validate(_ settings: NotificationSettings, apps: [AppManifest]) -> String? {
        if !settings.openWithBundleId.isEmpty {
            guard let app = apps.first(where: { $0.bundleId == settings.openWithBundleId }) else {
                return "no app \(settings.openWithBundleId) is registered"
            }
            guard !app.notificationUrlFormat.isEmpty else {
                return "\(app.bundleId) declares no JSNotificationURLFormat, so it cannot open notifications"
            }
        }
        if settings.mode == .custom && settings.slots.isEmpty { return "a custom schedule needs at least one day and time" }
        if let bad = settings.slots.first(where: { !(1...7).contains($0.weekday) || $0.minuteOfDay >= 1440 }) {
            return "weekday \(bad.weekday) at minute \(bad.minuteOfDay) is not a time of the week"
        }
        if settings.mode != .smart && settings.mode != .custom { return "the schedule is smart or custom" }
        return nil
    }
}
