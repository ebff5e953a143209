import Foundation
import Glibc
import PickerdTestKit
import Testing

/// A first run: pickerd with nothing in its store. Every picker says so, in the same words
/// (`emptyLibrarySentence`), with what to do; pickerd's log says it once.
@Suite("First run: an empty library says so in every picker", .serialized)
struct FirstRunTests {
    static let hidden = "No suggestions with the categories that are on: turn more on with `pickerctl settings set CATEGORY on` (`pickerctl settings get` lists them)."

    @Test("the terminal picker shows the sentence on an empty library, and another one when the settings hide everything")
    func terminalPicker() throws {
        let pickerd = try RunningPickerd(seed: false)
        try registerJournalDemo(pickerd)
        let app = "\(BuiltProducts.url("journal-demo").path) new-entry --output \(pickerd.root)/journal --runtime-dir \(pickerd.runtime)"
        // Wide enough that the sentence is one line. The second presentation waits for Enter.
        let window = try TmuxWindow("\(app); echo EXIT=$?; read -r _; \(app); echo AGAIN=$?; sleep 600", columns: 200, rows: 30)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor(emptyLibrarySentence), "\(window.screen)")
        #expect(window.screen.contains("Recommended (0)") && window.screen.contains("Recent (0)"), "\(window.screen)")
        #expect(window.screen.components(separatedBy: "pickerd has no data yet").count - 1 == 1, "said once: \(window.screen)")
        try window.keys("Escape")
        #expect(window.waitFor("EXIT=3"), "cancelled: \(window.screen)")

        // A library whose every category is off: not "no data", but the settings.
        #expect(try pickerd.ctl(["library", "seed-demo"]).status == 0)
        for category in ["activity", "media", "contacts", "photos", "significant-locations", "reflection-prompts", "state-of-mind"] {
            #expect(try pickerd.ctl(["settings", "set", category, "off"]).status == 0)
        }
        try window.keys("Enter")
        #expect(window.waitFor(Self.hidden), "\(window.screen)")
        #expect(!window.screen.contains("pickerd has no data yet"), "\(window.screen)")
        try window.keys("Escape")
        #expect(window.waitFor("AGAIN=3"), "\(window.screen)")
        pickerd.stop()
    }

    @Test("the scripted agent says it once, and pickerd's log holds it exactly once after two presentations")
    func scriptedAgentAndLog() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-fr")
        try #"{"reviews": [{"index": 0}]}"#.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
        let agent = BuiltProducts.url("picker-agent").path
        let pickerd = try RunningPickerd(seed: false, root: root, extra: ["--agent-command", "\(agent) --script \(root)/script.json"])
        try Entitlements.allowed.write(toFile: root + "/app.entitlements", atomically: true, encoding: .utf8)
        let registered = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path,
                                          "--entitlements", root + "/app.entitlements", "--bundle-id", "com.example.test", "--name", "Test App"])
        #expect(registered.status == 0, "\(registered.stderr)")
        for _ in 0..<2 {
            let lines = try testClient(pickerd, "present")
            #expect(lines.last?["result"] as? String == "cancelled", "nothing to choose: \(lines)\n\(pickerd.logText)")
        }
        // Both outcomes are in: the agent has logged whatever it was going to say about them.
        let log = pickerd.logText.split(separator: "\n").filter { $0.contains(emptyLibrarySentence) }
        let own = log.filter { !$0.hasPrefix("picker-agent: ") }
        #expect(own.count == 1, "pickerd says it once: \(pickerd.logText)")
        #expect(own.first?.contains(" notice pickerd: ") == true, "\(own)")
        #expect(log.filter { $0 == "picker-agent: " + emptyLibrarySentence }.count == 1, "the agent says it once: \(pickerd.logText)")
        pickerd.stop()
    }

    @Test("pickerd started with sources but no suggestions says it at the first presentation that finds it empty, not at start")
    func loggedAtFirstPresentation() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-fr")
        try FileManager.default.createDirectory(atPath: root + "/empty-folder", withIntermediateDirectories: true)
        let first = try RunningPickerd(seed: false, root: root)
        #expect(try first.ctl(["sources", "add", root + "/empty-folder"]).status == 0)
        first.stop()
        try #"{"reviews": [{"index": 0}]}"#.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
        let agent = BuiltProducts.url("picker-agent").path
        let pickerd = try RunningPickerd(seed: false, root: root, extra: ["--agent-command", "\(agent) --script \(root)/script.json"])
        #expect(!pickerd.logText.contains(emptyLibrarySentence), "a source may be about to fill it: \(pickerd.logText)")
        try Entitlements.allowed.write(toFile: root + "/app.entitlements", atomically: true, encoding: .utf8)
        #expect(try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path,
                                 "--entitlements", root + "/app.entitlements", "--bundle-id", "com.example.test"]).status == 0)
        for _ in 0..<2 { _ = try testClient(pickerd, "present") }
        let own = pickerd.logText.split(separator: "\n").filter { $0.contains(emptyLibrarySentence) && !$0.hasPrefix("picker-agent: ") }
        #expect(own.count == 1, "\(pickerd.logText)")
        pickerd.stop()
    }
}

/// The desktop half runs in the desktop picker's suite, one test at a time with the others there
/// (two X servers starting at once can spoil each other's display).
extension DesktopPickerTests {
    @Test("the desktop picker shows the sentence on an empty library")
    func desktopPicker() throws {
        let display = try XDisplay()
        let pickerd = try RunningPickerd(seed: false, environment: display.environment.merging(["TZ": "America/New_York"]) { $1 })
        try registerJournalDemo(pickerd)
        let (app, _) = try display.listsAfterConsent(pickerd)
        #expect(display.waitFor("label '\(emptyLibrarySentence)'"), "\(display.tree)")
        let tree = display.tree
        #expect(tree.contains("Recommended (0)"), "\(tree)")
        #expect(tree.components(separatedBy: "pickerd has no data yet").count - 1 == 1, "said once: \(tree)")
        try display.keys("Escape")
        #expect(app.finish() == 3, "cancelled: \(app.said)")
        pickerd.stop()
    }
}
