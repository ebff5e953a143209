import Foundation
import PickerdTestKit
import Testing

@Suite("Reminder settings and the configuration apps see", .serialized)
struct NotificationTests {
    static let format = "journaldemo://suggestion/{journaling-suggestion-id}"

    /// pickerd with journal-demo registered (with its URL format unless `withFormat` is false).
    func world(script: String = #"{"reviews": [{"preloaded": true}]}"#, withFormat: Bool = true) throws -> RunningPickerd {
        let pickerd = try sessionPickerd(script: script, register: false)
        try registerJournalDemo(pickerd, withFormat ? ["--notification-url-format", Self.format] : [])
        return pickerd
    }

    func configuration(_ pickerd: RunningPickerd) throws -> String {
        try runProduct("journal-demo", ["configuration", "--runtime-dir", pickerd.runtime]).stdout
    }

    func newEntry(_ pickerd: RunningPickerd) throws -> CommandResult {
        try runProduct("journal-demo", ["new-entry", "--output", pickerd.root + "/journal", "--runtime-dir", pickerd.runtime])
    }

    @Test("each .off cause is reported, and the schedule once none applies")
    func offCauses() throws {
        let pickerd = try world()
        #expect(try configuration(pickerd) == "schedule: off\noff because: suggestionsOff, notTheChosenApp\n")
        #expect(try newEntry(pickerd).status == 0)  // consent given on the way
        #expect(try configuration(pickerd) == "schedule: off\noff because: notTheChosenApp\n")
        #expect(try pickerd.ctl(["notifications", "set", "--open-with", "com.example.journal-demo"]).status == 0)
        #expect(try configuration(pickerd) == "schedule: smart\n")
        #expect(try pickerd.ctl(["notifications", "set", "--enabled", "off"]).status == 0)
        #expect(try configuration(pickerd) == "schedule: off\noff because: notificationsOff\n")
        #expect(try pickerd.ctl(["notifications", "set", "--enabled", "on", "--schedule", "custom", "--time", "mon 20:30"]).status == 0)
        #expect(try configuration(pickerd) == "schedule: custom\n")
        pickerd.stop()

        let noFormat = try world(withFormat: false)
        #expect(try configuration(noFormat).contains("noNotificationURLFormat"))
        noFormat.stop()
    }

    @Test("smart reports the time it chose from the person's entries, and why; custom its days and times")
    func smartAndCustom() throws {
        let pickerd = try world()
        let before = try pickerd.ctl(["notifications", "get"]).stdout
        #expect(before.contains("smart time     20:00: no entries yet"))
        #expect(try newEntry(pickerd).status == 0)
        let after = try pickerd.ctl(["notifications", "get"]).stdout
        #expect(after.contains("you usually add entries around"), "\(after)")
        #expect(after.contains("(1 entries), so half an hour before"))
        let custom = try pickerd.ctl(["notifications", "set", "--schedule", "custom", "--time", "mon 20:30", "--time", "thu 07:15"]).stdout
        #expect(custom.contains("times          mon 20:30, thu 07:15"))
        #expect(custom.contains("next reminder"))
        pickerd.stop()
    }

    @Test("an app without JSNotificationURLFormat is never offered, and refused as the one to open reminders")
    func refusedOpenWith() throws {
        let pickerd = try world(withFormat: false)
        #expect(try pickerd.ctl(["notifications", "get"]).stdout.contains("(no registered app declares JSNotificationURLFormat)"))
        let refused = try pickerd.ctl(["notifications", "set", "--open-with", "com.example.journal-demo"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "pickerctl: com.example.journal-demo declares no JSNotificationURLFormat, so it cannot open notifications\n")
        pickerd.stop()
    }

    @Test("open-url opens the picker on the suggestion the URL names; the entry is for that suggestion")
    func openURL() throws {
        let pickerd = try world(script: #"{"reviews": [{"list": "recent", "index": 4}, {"preloaded": true}]}"#)
        // A first entry, to learn a suggestion id as a reminder would carry it.
        #expect(try newEntry(pickerd).status == 0)
        let first = try #require(pickerd.logText.split(separator: "\n").first { $0.contains("keeping") })
        let id = String(first.split(separator: "(")[1].prefix(36))
        let title = String(first.split(separator: "\"")[1])
        let url = Self.format.replacingOccurrences(of: "{journaling-suggestion-id}", with: id)
        let opened = try runProduct("journal-demo", ["open-url", url, "--output", pickerd.root + "/journal2", "--runtime-dir", pickerd.runtime])
        #expect(opened.status == 0, "\(opened.stderr)")
        let second = try #require(pickerd.logText.split(separator: "\n").last { $0.contains("keeping") })
        #expect(second.contains("(\(id)) preloaded"))
        let entry = try String(contentsOfFile: opened.stdout.trimmingCharacters(in: .whitespacesAndNewlines), encoding: .utf8)
        #expect(entry.hasPrefix("# \(title)\n"))
        let garbage = try runProduct("journal-demo", ["open-url", "journaldemo://suggestion/not-an-id", "--output", pickerd.root, "--runtime-dir", pickerd.runtime])
        #expect(garbage.status == 1)
        #expect(garbage.stderr.contains("is not a journaling suggestion URL"))
        pickerd.stop()
    }
}

/// Registers journal-demo as com.example.journal-demo ("Journal Demo") with its entitlements file,
/// plus `extra` registration options (its URL format, its launch command).
func registerJournalDemo(_ pickerd: RunningPickerd, _ extra: [String] = []) throws {
    let r = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("journal-demo").path, "--entitlements",
                             "Tools/journal-demo.entitlements".absolutePath, "--bundle-id", "com.example.journal-demo",
                             "--name", "Journal Demo"] + extra)
    #expect(r.status == 0, "\(r.stderr)")
}

extension String {
    /// This repository-relative path made absolute (tests run from the package root).
    var absolutePath: String { hasPrefix("/") ? self : FileManager.default.currentDirectoryPath + "/" + self }
}
