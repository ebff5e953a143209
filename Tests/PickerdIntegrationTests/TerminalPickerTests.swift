import Foundation
import Glibc
import PickerdTestKit
import Testing

/// A tmux server of its own with one window running a command, driven like a person would.
final class TmuxWindow {
    let socket = "pkd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init(_ command: String, columns: Int = 80, rows: Int = 24) throws {
        let status = runDetaching("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
        guard status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "tmux new-session exited \(status)"]) }
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: "/usr/bin/tmux"), ["-L", socket, "-f", "/dev/null"] + arguments)
    }

    /// What the window shows now, as text.
    var screen: String { (try? tmux(["capture-pane", "-p"]).stdout) ?? "" }

    func keys(_ keys: String...) throws { try tmux(["send-keys"] + keys) }
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }
    func resize(columns: Int, rows: Int) throws { try tmux(["resize-window", "-x", "\(columns)", "-y", "\(rows)"]) }

    /// Waits until the screen shows `text`; returns whether it did.
    /// (Long: a busy machine is slow, and the wait ends as soon as the text is there.)
    func waitFor(_ text: String, timeout: Double = 60) -> Bool { eventually(timeout: timeout) { screen.contains(text) } }

    deinit { _ = try? tmux(["kill-server"]) }
}

/// The terminal picker (`picker-agent --tui`) on journal-demo's terminal, driven through tmux.
@Suite("The terminal picker, in the app's terminal", .serialized)
struct TerminalPickerTests {
    /// pickerd with journal-demo registered, and a tmux window running `journal-demo new-entry`
    /// (then its exit status and the terminal's modes).
    func world(rows: Int = 24) throws -> (RunningPickerd, TmuxWindow) {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#, register: false)
        try registerJournalDemo(pickerd)
        let command = "\(BuiltProducts.url("journal-demo").path) new-entry --output \(pickerd.root)/journal --runtime-dir \(pickerd.runtime);"
            + " echo EXIT=$?; echo MODES $(stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\\n' ' '); sleep 600"
        return (pickerd, try TmuxWindow(command, rows: rows))
    }

    /// The item lines of the review screen: (kept, summary).
    func items(_ screen: String) -> [(kept: Bool, summary: String)] {
        screen.split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("[x] ") || text.hasPrefix("[ ] ") else { return nil }
            // "[x] ▣ photo IMG_0026.png": drop the mark and the glyph.
            return (text.hasPrefix("[x]"), String(text.dropFirst(6)))
        }
    }

    func consent(_ window: TmuxWindow) throws {
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
    }

    @Test("consent, banner, tabs, review: two items left out, the title edited, added; the entry holds exactly the kept items")
    func fullFlow() throws {
        // Tall enough for a review's 13 items to be on the screen at once (a week's summary has many).
        let (pickerd, window) = try world(rows: 44)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        #expect(window.screen.contains("Journal Demo would like to show you suggestions"))
        try window.keys("a")
        #expect(window.waitFor("About Journaling Suggestions"))
        try window.keys("Space")
        #expect(window.waitFor("[ Customize ]"))
        try window.keys("Enter")  // Turn On
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        #expect(window.screen.contains("Journal Demo gets only what you choose to add."))
        try window.keys("?")
        #expect(window.waitFor("Your privacy"))
        try window.keys("Space")
        #expect(window.waitFor("Recommended ("))
        try window.keys("x")
        #expect(eventually { !window.screen.contains("gets only what you choose to add") }, "the banner is dismissed")

        let recommended = window.screen
        try window.keys("Tab")
        #expect(eventually { window.screen != recommended && window.screen.contains("Recent (") }, "the Recent tab")
        try window.keys("Tab")
        #expect(eventually { window.screen == recommended })

        try window.keys("Down", "Enter")
        #expect(window.waitFor("Review · Journal Demo"), "\(window.screen)")
        let shown = items(window.screen)
        #expect(shown.count >= 3, "\(window.screen)")
        #expect(shown.allSatisfy { $0.kept }, "\(window.screen)")
        // Leave out the first two items.
        try window.keys("Space", "Right", "Space")
        #expect(eventually { items(window.screen).map(\.kept).prefix(2) == [false, false] })
        try window.keys("e", "C-u")
        try window.type("A run to remember")
        try window.keys("Enter")
        #expect(window.waitFor("keeping \(shown.count - 2) of \(shown.count)"))
        #expect(window.screen.contains(" A run to remember\n"))
        let keptSummaries = items(window.screen).filter(\.kept).map(\.summary)
        try window.keys("Enter")
        #expect(window.waitFor("EXIT=0"), "\(window.screen)\n\(pickerd.logText)")
        #expect(!window.screen.contains("Review ·"), "the picker left the screen")
        #expect(window.screen.contains("MODES isig icanon echo"), "the terminal is back in its modes: \(window.screen)")

        #expect(try pickerd.ctl(["settings", "get"]).stdout.contains("privacy banner         dismissed"), "the banner stays dismissed")
        let history = try pickerd.ctl(["history"]).stdout
        #expect(history.contains("\"A run to remember\", \(keptSummaries.count) items"), "\(history)")
        let released = history.split(separator: "\n").dropFirst().map { String($0.split(separator: ":", maxSplits: 1)[1].dropFirst()) }
        #expect(released == keptSummaries, "released exactly the kept items")
        let files = try FileManager.default.contentsOfDirectory(atPath: pickerd.root + "/journal").filter { $0.hasSuffix(".md") }
        let entry = try String(contentsOfFile: pickerd.root + "/journal/" + files[0], encoding: .utf8)
        #expect(entry.hasPrefix("# A run to remember\n"))
        #expect(entry.components(separatedBy: "\n## ").count - 1 == keptSummaries.count, "one section per kept item: \(entry)")
        pickerd.stop()
    }

    @Test("previews of a photo and a clip's first frame in half-block cells; cancel from the review screen: nothing is released")
    func cancel() throws {
        let (pickerd, window) = try world()
        try consent(window)
        try window.keys("Enter")
        #expect(window.waitFor("Review · Journal Demo"))
        // Through the carousel: each picture is fetched from pickerd (sealed copies) and drawn.
        var seen: Set<String> = []
        for _ in 0..<12 where seen.count < 2 {
            try window.keys("Right")
            for kind in ["▣ Photo", "▶ Video"] where window.waitFor(kind, timeout: 1) {
                if eventually(timeout: 5, { window.screen.contains("▀▀▀▀") }) { seen.insert(kind) }
            }
        }
        #expect(seen == ["▣ Photo", "▶ Video"], "previews drawn: \(window.screen)")
        try window.keys("Escape")
        #expect(window.waitFor("EXIT=3"), "\(window.screen)")
        #expect(try pickerd.ctl(["history"]).stdout == "nothing has been released yet\n")
        pickerd.stop()
    }

    @Test("Not Now on the consent sheet: dismissed (consent declined), consent still not given")
    func notNow() throws {
        let (pickerd, window) = try world()
        #expect(window.waitFor("[ Turn On ]"))
        try window.keys("n")
        #expect(window.waitFor("EXIT=4"), "\(window.screen)")
        #expect(try pickerd.ctl(["settings", "get"]).stdout.contains("consent                not yet given"))
        pickerd.stop()
    }

    @Test("a resize during review: the wide layout puts carousel and list side by side, and back")
    func resize() throws {
        let (pickerd, window) = try world()
        try consent(window)
        try window.keys("Enter")
        #expect(window.waitFor("── All items"), "stacked at 80×24: \(window.screen)")
        try window.resize(columns: 150, rows: 40)
        #expect(eventually { window.screen.split(separator: "\n").contains { $0.contains("1 of") && $0.contains("All items") } },
                "side by side when wide: \(window.screen)")
        try window.resize(columns: 80, rows: 24)
        #expect(window.waitFor("── All items"), "stacked again: \(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("EXIT=0"))
        pickerd.stop()
    }

    @Test("SIGINT to the picker: the terminal is restored (main screen, modes) and the app hears dismissed")
    func interrupted() throws {
        let (pickerd, window) = try world()
        try consent(window)
        try window.keys("Enter")
        #expect(window.waitFor("Review · Journal Demo"))
        let agent = try #require(Int32(try runCommand(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-n", "-f", "picker-agent --tui"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(agent, SIGINT)
        #expect(window.waitFor("EXIT=4"), "\(window.screen)")
        #expect(!window.screen.contains("Review ·"), "the alternate screen was left: \(window.screen)")
        #expect(window.screen.contains("MODES isig icanon echo"), "\(window.screen)")
        #expect(try pickerd.ctl(["history"]).stdout == "nothing has been released yet\n")
        pickerd.stop()
    }

    @Test("p changes a reflection prompt to another; the app receives the prompt the person saw")
    func anotherPrompt() throws {
        let (pickerd, window) = try world()
        try consent(window)
        // Down the Recommended list to a reflection prompt ("✎ 1 prompt").
        func selectedHoldsPrompt() -> Bool {
            let lines = window.screen.split(separator: "\n", omittingEmptySubsequences: false)
            guard let at = lines.firstIndex(where: { $0.hasPrefix(" › ") }), at + 1 < lines.count else { return false }
            return lines[at + 1].contains("✎ 1 prompt")
        }
        var found = selectedHoldsPrompt()
        for _ in 0..<80 where !found {
            let before = window.screen
            try window.keys("Down")
            _ = eventually(timeout: 2) { window.screen != before }
            found = selectedHoldsPrompt()
        }
        try #require(found, "a reflection prompt in Recommended: \(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("Reflection prompt"), "\(window.screen)")
        let first = try #require(items(window.screen).first { _ in true }?.summary)
        try window.keys("p")
        #expect(window.waitFor("Another prompt"), "\(window.screen)")
        let second = try #require(items(window.screen).first?.summary)
        #expect(second != first, "the prompt changed")
        #expect(window.screen.contains(" \(second)\n"), "and the title with it: \(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("EXIT=0"), "\(window.screen)")
        let history = try pickerd.ctl(["history"]).stdout
        #expect(history.contains("\"\(second)\", 1 items\n    reflection: \(second)\n"), "the title follows the prompt: \(history)")
        #expect(!history.contains(first))
        pickerd.stop()
    }
}
