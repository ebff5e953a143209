import Foundation
import PickerdTestKit
import Testing

/// The reminder scheduler, end to end: pickerd started on a clock set just before a reminder slot
/// (`--clock-start`, in UTC), reminders fired, recorded, opened in journal-demo through its manifest's
/// launch command, and kept exactly once across restarts.
@Suite("Reminders: fired on schedule, recorded, opened in the chosen app, once", .serialized)
struct ReminderTests {
    /// Monday 23 November 2026, 10:00 UTC: the slot the tests remind at.
    static let slot = "2026-11-23T10:00:00Z"
    static let format = "journaldemo://suggestion/{journaling-suggestion-id}"

    /// pickerd whose clock reads `clockStart`, with journal-demo registered to open reminders into
    /// `<root>/journal`, and the custom schedule `times`.
    ///
    /// Set-up (registration, the schedule, `before`) happens first on a pickerd whose clock reads an
    /// hour earlier, where no slot falls; then pickerd restarts on the same store at `clockStart`. So
    /// however long set-up takes on a loaded machine, no slot passes before the schedule is in place
    /// (a settings change settles every slot up to its moment under the old settings, as it should).
    /// `root` restarts an existing world as it is. The agent follows `setUpScript` (by default
    /// `script`) during set-up, and `script` after the restart.
    func world(clockStart: String, times: [String] = ["mon 10:00"], script: String, setUpScript: String? = nil,
               environment: [String: String] = [:], root: String? = nil,
               before: (RunningPickerd) throws -> Void = { _ in }) throws -> RunningPickerd {
        var env = environment
        env["TZ"] = "UTC"
        let start = try #require(ISO8601DateFormatter().date(from: clockStart))
        if let root {
            return try sessionPickerd(script: script, register: false, extra: ["--clock-start", clockStart, "--log-level", "debug"],
                                      environment: env, root: root)
        }
        let earlier = ISO8601DateFormatter().string(from: start.addingTimeInterval(-3600))
        let setUp = try sessionPickerd(script: setUpScript ?? script, register: false, extra: ["--clock-start", earlier], environment: env)
        let journalDemo = BuiltProducts.url("journal-demo").path
        try registerJournalDemo(setUp, ["--notification-url-format", Self.format,
                                        "--launch-command", "\(journalDemo) open-url {url} --output \(setUp.root)/journal"])
        let set = try setUp.ctl(["notifications", "set", "--schedule", "custom", "--open-with", "com.example.journal-demo"]
                                + times.flatMap { ["--time", $0] })
        #expect(set.status == 0, "\(set.stderr)")
        try before(setUp)
        setUp.stop()
        return try world(clockStart: clockStart, script: script, environment: environment, root: setUp.root)
    }

    /// The moments up to which pickerd's scheduler has said (in its debug log) that every slot is settled.
    func marks(_ pickerd: RunningPickerd) -> [Date] {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return pickerd.logText.split(separator: "\n").compactMap { line in
            line.range(of: "reminders checked up to ").flatMap { try? style.parse(String(line[$0.upperBound...])) }
        }
    }

    /// Waits until pickerd's scheduler has settled every slot up to `moment` in a pass after the
    /// first `passes`, and returns how many passes it has logged.
    @discardableResult
    func settled(_ pickerd: RunningPickerd, upTo moment: Date, after passes: Int = 0) -> Int {
        var seen: [Date] = []
        let done = eventually(timeout: 90) {
            seen = marks(pickerd)
            return seen.count > passes && seen.last! >= moment
        }
        #expect(done, "the scheduler never settled up to \(moment): \(pickerd.logText)")
        return seen.count
    }

    func settled(_ pickerd: RunningPickerd, upTo moment: String, after passes: Int = 0) -> Int {
        settled(pickerd, upTo: ISO8601DateFormatter().date(from: moment)!, after: passes)
    }

    /// The reminders `pickerctl notifications list` shows: (id, suggestion id or "", url).
    func reminders(_ pickerd: RunningPickerd) throws -> [(id: String, suggestion: String, url: String, line: String)] {
        let lines = try pickerd.ctl(["notifications", "list"]).stdout.split(separator: "\n").map(String.init)
        return stride(from: 0, to: lines.count - 1, by: 2).compactMap { i in
            guard lines[i].first?.isNumber == true else { return nil }
            let detail = lines[i + 1].split(separator: " ").map(String.init)
            let suggestion = detail.count > 1 && detail[1] != "(general" ? detail[1] : ""
            let url = detail.firstIndex(of: "url").map { detail[$0 + 1] } ?? ""
            return (String(lines[i].prefix(13)), suggestion, url, lines[i])
        }
    }

    /// The one entry file journal-demo wrote under `directory`, once it is there.
    func entry(in directory: String) throws -> String? {
        var found: String?
        _ = eventually(timeout: 20) {
            let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
            found = files.first { $0.hasSuffix(".md") }.map { directory + "/" + $0 }
            return found != nil
        }
        return try found.map { try String(contentsOfFile: $0, encoding: .utf8) }
    }

    @Test("a reminder about a moment fires on the custom slot; opening it starts journal-demo on that suggestion")
    func specificReminder() throws {
        // Before the slot: consent, and the person writes about one moment (Recent #0).
        var writtenID = ""
        let pickerd = try world(clockStart: "2026-11-23T09:59:58Z", script: #"{"reviews": [{"preloaded": true}]}"#,
                                setUpScript: #"{"reviews": [{"list": "recent", "index": 0}]}"#) { setUp in
            let first = try runProduct("journal-demo", ["new-entry", "--output", setUp.root + "/first", "--runtime-dir", setUp.runtime])
            #expect(first.status == 0, "\(first.stderr)")
            let written = try #require(setUp.logText.split(separator: "\n").first { $0.contains("keeping") })
            writtenID = String(written.split(separator: "(")[1].prefix(36))
        }

        #expect(eventually(timeout: 60) { ((try? reminders(pickerd)) ?? []).count == 1 }, "\(pickerd.logText)")
        let reminder = try #require(try reminders(pickerd).first)
        #expect(reminder.id == "20261123-1000")
        #expect(reminder.suggestion.count == 36, "a reminder about a moment: \(reminder.line)")
        #expect(reminder.suggestion != writtenID, "not about the moment already written about")
        #expect(reminder.url == "journaldemo://suggestion/\(reminder.suggestion)")

        let open = try pickerd.ctl(["notifications", "open", reminder.id])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stdout.contains("opened 20261123-1000 with com.example.journal-demo"))
        #expect(open.stdout.hasSuffix(": journaldemo://suggestion/\(reminder.suggestion)\n"))
        let text = try #require(try entry(in: pickerd.root + "/journal"), "journal-demo wrote no entry: \(pickerd.logText)")
        let review = try #require(pickerd.logText.split(separator: "\n").last { $0.contains("keeping") })
        #expect(review.contains("(\(reminder.suggestion)) preloaded"), "the picker opened on the reminder's suggestion: \(review)")
        let title = String(review.split(separator: "\"")[1])
        #expect(text.hasPrefix("# \(title)\n"))
        #expect(reminder.line.contains("Journaling suggestion: \(title): add this moment to Journal Demo"))
        #expect(try reminders(pickerd).first?.line.contains(" opened ") == true)
        pickerd.stop()
    }

    @Test("a general reminder (empty id) opens the normal picker")
    func generalReminder() throws {
        // No consent yet: suggestions are off, so the reminder names no moment.
        let pickerd = try world(clockStart: "2026-11-23T09:59:57Z", script: #"{"reviews": [{"list": "recent", "index": 2}]}"#)
        #expect(eventually(timeout: 60) { ((try? reminders(pickerd)) ?? []).count == 1 }, "\(pickerd.logText)")
        let reminder = try #require(try reminders(pickerd).first)
        #expect(reminder.suggestion == "")
        #expect(reminder.line.contains("Take a moment to write about your day"))
        #expect(reminder.url == "journaldemo://suggestion/")
        let open = try pickerd.ctl(["notifications", "open", reminder.id])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(try entry(in: pickerd.root + "/journal") != nil, "\(pickerd.logText)")
        let review = try #require(pickerd.logText.split(separator: "\n").last { $0.contains("keeping") })
        #expect(!review.contains("preloaded"), "\(review)")
        #expect(try pickerd.ctl(["notifications", "open", "20991231-2359"]).stderr == "pickerctl: no reminder 20991231-2359\n")
        pickerd.stop()
    }

    @Test("a restart neither repeats a reminder (even when the slot comes round again) nor loses one due while down")
    func restarts() throws {
        let script = #"{"reviews": [{"list": "recent", "index": 0}]}"#
        let pickerd = try world(clockStart: "2026-11-23T09:59:58Z", times: ["mon 10:00", "mon 10:10"], script: script)
        #expect(eventually(timeout: 30) { ((try? reminders(pickerd)) ?? []).count == 1 })
        pickerd.stop()

        // The clock set back before the slot: it passes 10:00 again, and nothing fires twice.
        // A pass with the clock past the last one before the restart: the slot is behind it now.
        let before = try #require(marks(pickerd).last)
        let again = try world(clockStart: "2026-11-23T09:59:58Z", script: script, root: pickerd.root)
        settled(again, upTo: before.addingTimeInterval(0.01))
        #expect(try reminders(again).map(\.id) == ["20261123-1000"], "\(again.logText)")
        again.stop()

        // Down across 10:10: the reminder due while pickerd was away fires when it is back.
        let later = try world(clockStart: "2026-11-23T10:12:00Z", script: script, root: pickerd.root)
        #expect(eventually(timeout: 30) { ((try? reminders(later)) ?? []).count == 2 }, "\(later.logText)")
        #expect(try reminders(later).map(\.id) == ["20261123-1010", "20261123-1000"])
        later.stop()

        // And once more, later still: both are there, once each.
        let last = try world(clockStart: "2026-11-23T10:30:00Z", script: script, root: pickerd.root)
        _ = settled(last, upTo: "2026-11-23T10:30:00Z")
        #expect(try reminders(last).map(\.id) == ["20261123-1010", "20261123-1000"])
        last.stop()
    }

    @Test("no app chosen: opening a reminder says so; reminders off: none fires")
    func preconditions() throws {
        let pickerd = try world(clockStart: "2026-11-23T09:59:58Z", times: ["mon 10:00", "mon 10:10"],
                                script: #"{"reviews": [{"list": "recent", "index": 0}]}"#)
        #expect(eventually(timeout: 30) { ((try? reminders(pickerd)) ?? []).count == 1 })
        #expect(try pickerd.ctl(["notifications", "set", "--open-with", "none", "--enabled", "off"]).status == 0)
        let refused = try pickerd.ctl(["notifications", "open", "20261123-1000"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no app is chosen to open reminders"))
        pickerd.stop()

        // Off across the next slot: nothing fires, then or after it is turned on again.
        let off = try world(clockStart: "2026-11-23T10:09:58Z", script: #"{"reviews": []}"#, root: pickerd.root)
        // pickerd's clock read 10:09:58 before it answered, and runs on: 2.5 s after that it is past
        // 10:10 whatever the load (a lower bound, not a race). Reminders were off across the slot.
        Thread.sleep(forTimeInterval: 2.5)
        let passes = settled(off, upTo: "2026-11-23T09:59:58Z")
        #expect(try off.ctl(["notifications", "set", "--enabled", "on"]).status == 0)
        // The change settles up to its moment (past 10:10, off), then the scheduler looks again, on.
        _ = settled(off, upTo: "2026-11-23T10:10:00Z", after: passes + 1)
        #expect(try reminders(off).map(\.id) == ["20261123-1000"])
        off.stop()
    }
}

/// A private D-Bus session bus with the stand-in notification service on it (a person who clicks
/// "Open" on each notification), for as long as the value lives.
final class DesktopSession {
    let log: String
    private let bus: SessionBus
    private let server: Process
    var address: String { bus.address }

    init(directory: String) throws {
        log = directory + "/notifications.jsonl"
        bus = try SessionBus(directory: directory)
        server = Process()
        server.executableURL = URL(fileURLWithPath: "Tools/TestSupport/fake-notification-server".absolutePath)
        server.arguments = [log]
        server.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
        let ready = Pipe()
        server.standardOutput = ready
        try server.run()
        _ = ready.fileHandleForReading.availableData  // "ready": the name is owned
    }

    /// The notifications shown so far, one JSON object each.
    var shown: [[String: Any]] {
        jsonLines((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and children inherit the mask. The bus
        // goes when its value does.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }
}

extension ReminderTests {
    @Test("with a session bus the reminder appears on the desktop with an Open action, and Open starts journal-demo")
    func desktop() throws {
        var template = Array("/tmp/pkd-dbus.XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let desktop = try DesktopSession(directory: directory)
        let pickerd = try world(clockStart: "2026-11-23T09:59:57Z", script: #"{"reviews": [{"list": "recent", "index": 1}]}"#,
                                environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.address])
        #expect(eventually(timeout: 30) { desktop.shown.count == 1 }, "\(pickerd.logText)")
        let shown = try #require(desktop.shown.first)
        #expect(shown["app"] as? String == "pickerd")
        #expect(shown["summary"] as? String == "Journaling suggestion")
        #expect(shown["body"] as? String == "Take a moment to write about your day")
        #expect(shown["actions"] as? [String] == ["open", "Open"])
        // The stand-in clicked Open: journal-demo was started with the reminder's URL, and wrote.
        #expect(try entry(in: pickerd.root + "/journal") != nil, "\(pickerd.logText)")
        #expect(eventually { (try? reminders(pickerd).first?.line.contains(" opened ")) == true })
        pickerd.stop()
    }
}
