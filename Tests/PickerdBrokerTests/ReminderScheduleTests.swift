import Foundation
@testable import PickerdBroker
import PickerdWire
import Testing

@Suite("Reminder schedule arithmetic")
struct ReminderScheduleTests {
    let utc = TimeZone(identifier: "UTC")!
    let newYork = TimeZone(identifier: "America/New_York")!
    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    func custom(_ slots: [(UInt32, UInt32)]) -> NotificationSettings {
        NotificationSettings(enabled: true, mode: .custom, slots: slots.map { ReminderSlot(weekday: $0.0, minuteOfDay: $0.1) })
    }

    @Test("the latest slot in the interval, across days and the week's end; none when none fell due")
    func latestDue() {
        // Monday 10:00 and Sunday 22:30.
        let settings = custom([(1, 600), (7, 1350)])
        #expect(NotificationPolicy.latestDue(settings: settings, smartMinute: 0, after: date("2026-11-23T09:00:00Z"),
                                             upTo: date("2026-11-23T10:00:00Z"), timeZone: utc) == date("2026-11-23T10:00:00Z"))
        #expect(NotificationPolicy.latestDue(settings: settings, smartMinute: 0, after: date("2026-11-23T10:00:00Z"),
                                             upTo: date("2026-11-29T22:29:59Z"), timeZone: utc) == nil)
        // Down for nine days: the latest missed slot is the one that fires.
        #expect(NotificationPolicy.latestDue(settings: settings, smartMinute: 0, after: date("2026-11-20T00:00:00Z"),
                                             upTo: date("2026-11-30T09:00:00Z"), timeZone: utc) == date("2026-11-29T22:30:00Z"))
        // Smart: every day at its minute; off: never.
        let smart = NotificationSettings(enabled: true, mode: .smart)
        #expect(NotificationPolicy.latestDue(settings: smart, smartMinute: 19 * 60 + 30, after: date("2026-11-23T00:00:00Z"),
                                             upTo: date("2026-11-25T12:00:00Z"), timeZone: utc) == date("2026-11-24T19:30:00Z"))
        var off = smart
        off.enabled = false
        #expect(NotificationPolicy.latestDue(settings: off, smartMinute: 600, after: date("2026-11-20T00:00:00Z"),
                                             upTo: date("2026-11-30T00:00:00Z"), timeZone: utc) == nil)
    }

    @Test("slots are the person's local time; ids name the slot in local time")
    func localTime() {
        // Monday 20:30 in New York is 01:30 UTC on Tuesday (EST, UTC−5).
        let settings = custom([(1, 20 * 60 + 30)])
        let due = NotificationPolicy.latestDue(settings: settings, smartMinute: 0, after: date("2026-11-23T12:00:00Z"),
                                               upTo: date("2026-11-24T12:00:00Z"), timeZone: newYork)
        #expect(due == date("2026-11-24T01:30:00Z"))
        #expect(due.map { NotificationPolicy.reminderID(for: $0, timeZone: newYork) } == "20261123-2030")
        #expect(NotificationPolicy.url(format: "app://s?id={journaling-suggestion-id}&x=1", suggestionID: "") == "app://s?id=&x=1")
    }
}
