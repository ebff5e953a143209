import Foundation
import PickerdTestKit
import Testing

/// The person's word on an app pickerd does not know from the system (a developer's build): the
/// trusted picker asks "<App> — <origin> — wants to show you journaling suggestions. Allow / Don't
/// Allow" before anything else; an Allow is remembered, a Don't Allow ends the presentation with
/// NOT_ENTITLED and is not remembered. pickerd runs without `--developer-mode` here.
@Suite("The person allows an app in the trusted picker", .serialized)
struct AppApprovalTests {
    /// What pickerd's log (and the scripted agent's lines in it) says, one line each.
    func lines(_ pickerd: RunningPickerd, containing text: String) -> [Substring] {
        pickerd.logText.split(separator: "\n").filter { $0.contains(text) }
    }

    /// The scripted agent's line for each time it was asked about the test app.
    func questions(_ pickerd: RunningPickerd) -> [Substring] {
        lines(pickerd, containing: "picker-agent: app Test App (com.example.test, ")
    }

    @Test("Allow: the first presentation asks, then reviews; the answer is remembered, so the second and one after a restart do not ask")
    func allowed() throws {
        let pickerd = try sessionPickerd(script: #"{"app": "allow", "reviews": [{"kind": "trip"}]}"#, developerMode: false)
        let first = try testClient(pickerd, "present")
        #expect(first.first?["event"] as? String == "accepted")
        #expect(first.last?["result"] as? String == "approved", "\(first)\n\(pickerd.logText)")
        let asked = questions(pickerd)
        #expect(asked.count == 1, "\(pickerd.logText)")
        // Where the app comes from, as the person was told it.
        let folder = BuiltProducts.url("pickerd-test-client").deletingLastPathComponent().path
        #expect(asked.first?.hasSuffix("a build at \(folder), not installed by the system): allow") == true, "\(asked)")
        // The question came before the consent sheet.
        let log = pickerd.logText
        let question = try #require(log.range(of: "picker-agent: app Test App"))
        let consent = try #require(log.range(of: "picker-agent: consent for Test App: accept"))
        #expect(question.lowerBound < consent.lowerBound)

        let second = try testClient(pickerd, "present")
        #expect(second.last?["result"] as? String == "approved", "\(second)")
        #expect(questions(pickerd).count == 1, "not asked again: \(pickerd.logText)")
        #expect(try pickerd.ctl(["history"]).stdout.components(separatedBy: "Test App (com.example.test)").count - 1 == 2)
        let root = pickerd.root
        pickerd.stop()

        let restarted = try sessionPickerd(script: #"{"reviews": [{"kind": "trip"}]}"#, register: false, root: root, developerMode: false)
        let third = try testClient(restarted, "present")
        #expect(third.last?["result"] as? String == "approved", "remembered in the store: \(third)\n\(restarted.logText)")
        #expect(questions(restarted).isEmpty)
        restarted.stop()
    }

    @Test("Don't Allow: the app hears NOT_ENTITLED, nothing is released, consent is not asked, and the next presentation asks again")
    func denied() throws {
        let pickerd = try sessionPickerd(script: #"{"app": "deny", "reviews": [{"kind": "trip"}]}"#, developerMode: false)
        let lines = try testClient(pickerd, "present")
        #expect(lines.first?["event"] as? String == "accepted")
        let outcome = try #require(lines.last)
        #expect(outcome["event"] as? String == "outcome")
        #expect(outcome["result"] as? String == "error")
        #expect(outcome["code"] as? String == "notEntitled")
        #expect(outcome["message"] as? String == "the person did not allow Test App to show journaling suggestions")
        #expect((outcome["descriptors"] as? [Any])?.isEmpty ?? false)
        #expect(questions(pickerd).count == 1)
        #expect(questions(pickerd).first?.hasSuffix(": deny") == true)
        // The agent was told the presentation is over.
        let handle = try #require(lines.first?["handle"] as? String)
        #expect(eventually { !self.lines(pickerd, containing: "picker-agent: dismissed \(handle)").isEmpty }, "\(pickerd.logText)")
        // Nothing else was shown: no consent sheet, no lists.
        #expect(self.lines(pickerd, containing: "picker-agent: consent for").isEmpty)
        #expect(self.lines(pickerd, containing: "picker-agent: review for").isEmpty)
        #expect(try pickerd.ctl(["history"]).stdout == "nothing has been released yet\n")
        #expect(try pickerd.ctl(["settings", "get"]).stdout.contains("consent                not yet given"))

        let again = try testClient(pickerd, "present")
        #expect(again.last?["code"] as? String == "notEntitled", "\(again)")
        #expect(questions(pickerd).count == 2, "a Don't Allow is not remembered: \(pickerd.logText)")
        pickerd.stop()
    }

    @Test("Don't Allow, then Allow on the next presentation: it reviews")
    func deniedThenAllowed() throws {
        let pickerd = try sessionPickerd(script: #"{"app": ["deny", "allow"], "reviews": [{"kind": "trip"}]}"#, developerMode: false)
        #expect(try testClient(pickerd, "present").last?["code"] as? String == "notEntitled")
        let second = try testClient(pickerd, "present")
        #expect(second.last?["result"] as? String == "approved", "\(second)\n\(pickerd.logText)")
        #expect(questions(pickerd).map { $0.hasSuffix(": allow") } == [false, true])
        pickerd.stop()
    }

    @Test("a script that does not say denies: no app is allowed by a script that did not think about it")
    func scriptDefault() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"kind": "trip"}]}"#, developerMode: false)
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["code"] as? String == "notEntitled", "\(lines)")
        #expect(questions(pickerd).first?.hasSuffix(": deny") == true, "\(pickerd.logText)")
        pickerd.stop()
    }

    @Test("--developer-mode: the picker does not ask")
    func developerMode() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"kind": "trip"}]}"#)
        #expect(try testClient(pickerd, "present").last?["result"] as? String == "approved")
        #expect(questions(pickerd).isEmpty, "\(pickerd.logText)")
        pickerd.stop()
    }

    @Test("an answer that is not \"allow\" or \"deny\" makes the script invalid")
    func invalidScript() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-aa")
        try #"{"app": "yes"}"#.write(toFile: directory.path + "/script.json", atomically: true, encoding: .utf8)
        let result = try runProduct("picker-agent", ["--script", directory.path + "/script.json", "--runtime-dir", directory.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#""app" is "allow" or "deny", not "yes""#), "\(result.stderr)")
    }

    // MARK: The terminal picker

    /// pickerd without developer mode, journal-demo registered (pending), and a tmux window running
    /// `journal-demo new-entry` (then its exit status and the terminal's modes).
    func terminalWorld(columns: Int = 80) throws -> (RunningPickerd, TmuxWindow) {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#, register: false, developerMode: false)
        try registerJournalDemo(pickerd)
        return (pickerd, try newEntry(pickerd, columns: columns))
    }

    func newEntry(_ pickerd: RunningPickerd, columns: Int = 80) throws -> TmuxWindow {
        let command = "\(BuiltProducts.url("journal-demo").path) new-entry --output \(pickerd.root)/journal --runtime-dir \(pickerd.runtime);"
            + " echo EXIT=$?; echo MODES $(stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\\n' ' '); sleep 600"
        return try TmuxWindow(command, columns: columns)
    }

    /// The screen's words with the wrapping undone.
    func words(_ screen: String) -> String {
        screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test("the sheet names the app and where it comes from; Allow (←, Enter) leads on to the consent sheet and the lists, and is remembered")
    func terminalAllow() throws {
        let (pickerd, window) = try terminalWorld()
        #expect(window.waitFor("Allow Journal Demo?"), "\(window.screen)\n\(pickerd.logText)")
        #expect(window.waitFor("[ Don't Allow ]"))
        let folder = BuiltProducts.url("journal-demo").deletingLastPathComponent().path
        let shown = words(window.screen)
        #expect(shown.contains("Journal Demo — a build at \(folder), not installed by the system — wants to show you journaling suggestions."),
                "\(window.screen)")
        #expect(shown.contains("App id: com.example.journal-demo"))
        #expect(!window.screen.contains("[ Turn On ]"), "the app's question comes before consent")
        try window.keys("Left", "Enter")
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        try window.keys("Escape")
        #expect(window.waitFor("EXIT=3"), "\(window.screen)")

        // The next presentation opens on the lists.
        let next = try newEntry(pickerd)
        #expect(next.waitFor("Recommended ("), "\(next.screen)\n\(pickerd.logText)")
        try next.keys("Escape")
        #expect(next.waitFor("EXIT=3"), "\(next.screen)")
        #expect(lines(pickerd, containing: "approval=asked").count == 1, "asked once: \(pickerd.logText)")
        pickerd.stop()
    }

    @Test("Don't Allow ends the presentation: the app says why, the terminal is back in its modes, nothing is released",
          arguments: ["d", "Escape", "Enter"])
    func terminalDeny(key: String) throws {
        // Wide enough for journal-demo's line about why.
        let (pickerd, window) = try terminalWorld(columns: 120)
        #expect(window.waitFor("Allow Journal Demo?"), "\(window.screen)\n\(pickerd.logText)")
        // Enter on the sheet as it opens is Don't Allow.
        try window.keys(key)
        #expect(window.waitFor("EXIT=5"), "\(window.screen)\n\(pickerd.logText)")
        #expect(window.screen.contains("journal-demo: not entitled: the person did not allow Journal Demo to show journaling suggestions"),
                "\(window.screen)")
        #expect(!window.screen.contains("Allow Journal Demo?"), "the picker left the screen")
        #expect(window.screen.contains("MODES isig icanon echo"), "\(window.screen)")
        #expect(try pickerd.ctl(["history"]).stdout == "nothing has been released yet\n")
        #expect(try pickerd.ctl(["settings", "get"]).stdout.contains("consent                not yet given"))
        pickerd.stop()
    }
}
