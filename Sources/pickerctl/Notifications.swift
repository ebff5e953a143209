import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Journaling reminders: on or off, smart or custom, and which app opens them.",
                                                    subcommands: [Get.self, Set.self, List.self, Open.self])

    static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    static func show(_ reply: Envelope.Body) {
        guard case .notificationsReply(let r) = reply, let s = r.settings else { fail("unexpected reply", code: 1) }
        func time(_ minute: UInt32) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
        print("notifications  \(s.enabled ? "on" : "off")")
        print("schedule       \(s.mode == .custom ? "custom" : "smart") (apps see: \(r.effectiveSchedule))")
        if s.mode == .custom {
            print("times          " + s.slots.map { "\(days[Int($0.weekday) - 1]) \(time($0.minuteOfDay))" }.joined(separator: ", "))
        } else {
            print("smart time     \(time(r.smartMinuteOfDay)): \(r.smartExplanation)")
        }
        if let next = r.nextFire {
            print("next reminder  \(ISO8601DateFormatter().string(from: Date(unixMs: next.unixMs)))")
        }
        print("open with      \(s.openWithBundleId.isEmpty ? "(no app chosen)" : s.openWithBundleId)")
        print("can open them  \(r.eligibleBundleIds.isEmpty ? "(no registered app declares JSNotificationURLFormat)" : r.eligibleBundleIds.joined(separator: ", "))")
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the reminder settings and what the smart schedule chose, and why.")
        @OptionGroup var connection: Connection
        func run() throws {
            Notifications.show(perform(try connection.open(), .notificationsGet(NotificationsGetRequest())))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the reminder settings (what is not given stays).")
        @OptionGroup var connection: Connection
        @Option(help: "on or off.") var enabled: String?
        @Option(help: "smart or custom.") var schedule: String?
        @Option(help: "A custom time, \"DAY HH:MM\" (mon … sun); repeat for more. Replaces the custom times.") var time: [String] = []
        @Option(help: "The app that opens reminders (a bundle id; \"none\" for no app).") var openWith: String?

        func run() throws {
            let client = try connection.open()
            guard case .notificationsReply(let current) = perform(client, .notificationsGet(NotificationsGetRequest())),
                  var settings = current.settings else { fail("unexpected reply", code: 1) }
            if let enabled {
                switch enabled.lowercased() {
                case "on": settings.enabled = true
                case "off": settings.enabled = false
                default: fail("'\(enabled)' is neither on nor off", code: 2)
                }
            }
            if let schedule {
                switch schedule.lowercased() {
                case "smart": settings.mode = .smart
                case "custom": settings.mode = .custom
                default: fail("'\(schedule)' is neither smart nor custom", code: 2)
                }
            }
            if !time.isEmpty {
                settings.slots = time.map { text in
                    let parts = text.lowercased().split(separator: " ")
                    let clock = parts.count == 2 ? parts[1].split(separator: ":").compactMap { UInt32($0) } : []
                    guard parts.count == 2, let day = Notifications.days.firstIndex(of: String(parts[0].prefix(3))), clock.count == 2,
                          clock[0] < 24, clock[1] < 60 else { fail("'\(text)' is not a time like \"mon 20:30\"", code: 2) }
                    return ReminderSlot(weekday: UInt32(day + 1), minuteOfDay: clock[0] * 60 + clock[1])
                }
            }
            if let openWith { settings.openWithBundleId = openWith == "none" ? "" : openWith }
            Notifications.show(perform(client, .notificationsSet(NotificationsSetRequest(settings: settings))))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The reminders that fired, newest first.")
        @OptionGroup var connection: Connection
        @Option(help: "Show at most this many (0: all).") var limit: UInt32 = 0
        func run() throws {
            guard case .notificationsListReply(let reply) = perform(try connection.open(), .notificationsList(NotificationsListRequest(limit: limit))) else {
                fail("unexpected reply", code: 1)
            }
            if reply.notifications.isEmpty { print("no reminders yet") }
            for record in reply.notifications {
                let fired = ISO8601DateFormatter().string(from: Date(unixMs: record.firedAt?.unixMs ?? 0))
                print("\(record.id)  \(fired)  \(record.opened ? "opened" : "new   ")  \(record.title): \(record.body)")
                print("    suggestion \(record.suggestionId.isEmpty ? "(general reminder)" : record.suggestionId)\(record.url.isEmpty ? "" : "  url \(record.url)")")
            }
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open a reminder: start the chosen app with its URL.")
        @OptionGroup var connection: Connection
        @Argument(help: "The reminder's id (from `pickerctl notifications list`).") var id: String
        func run() throws {
            guard case .notificationOpenReply(let reply) = perform(try connection.open(), .notificationOpen(NotificationOpenRequest(id: id))) else {
                fail("unexpected reply", code: 1)
            }
            print("opened \(id) with \(reply.bundleId) (pid \(reply.launchedPid)): \(reply.url)")
        }
    }
}
