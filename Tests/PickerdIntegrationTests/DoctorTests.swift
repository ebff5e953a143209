import Foundation
import Glibc
import PickerdTestKit
import Testing

/// What every picker, pickerd's log and `pickerctl doctor` say when pickerd holds nothing yet
/// (PickerKit's `PickerWords.emptyLibrary`), written out here: the tests hold the words to it.
let emptyLibrarySentence =
    "pickerd has no data yet: add your photos with `pickerctl sources add ~/Pictures`, and exports (Google Takeout, Strava, Garmin…) with `pickerctl import PATH`."

/// `pickerctl doctor` against `runtime`, as a person in a session whose display is `display`
/// (none by default: the test's own environment does not leak in).
func doctor(runtime: String, display: String? = nil) throws -> CommandResult {
    try runCommand(BuiltProducts.url("pickerctl"), ["doctor", "--runtime-dir", runtime],
                   environment: ["DISPLAY": display ?? "", "WAYLAND_DISPLAY": ""])
}

/// The lines doctor printed that begin with `mark` (✓ or ✗).
func marked(_ output: String, _ mark: String) -> [String] {
    output.split(separator: "\n").map(String.init).filter { $0.hasPrefix(mark + " ") }
}

@Suite("pickerctl doctor: what is off, and the command that fixes it", .serialized)
struct DoctorTests {
    @Test("a healthy pickerd: exit 0, every line ✓, with its sockets, store, display, pickers and apps")
    func healthy() throws {
        let pickerd = try RunningPickerd(seed: true, environment: ["DISPLAY": ":77"])
        try registerJournalDemo(pickerd)
        let result = try doctor(runtime: pickerd.runtime, display: ":77")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(marked(result.stdout, "✗").isEmpty, "\(result.stdout)")
        let ok = marked(result.stdout, "✓")
        let expected = [
            "✓ pickerd 0.1.0 answers at \(pickerd.runtime)/control.sock (pid \(pickerd.pid ?? 0), up ",
            "✓ sockets bound by pickerd itself (not socket-activated): client.sock, agent.sock, control.sock in \(pickerd.runtime)",
            "✓ store \(pickerd.data): ",
            "✓ disk: ",
            "✓ sources: none",
            "✓ every category on; consent not yet given",
            "✓ display :77 for the desktop picker",
            "✓ pickers where pickerd expects them, in ",
            "✓ app Journal Demo (com.example.journal-demo, developer's build): allowed",
        ]
        for line in expected {
            #expect(ok.contains { $0.hasPrefix(line) }, "\(line) in:\n\(result.stdout)")
        }
        let store = try #require(ok.first { $0.hasPrefix("✓ store ") })
        // The demo library's items are fixed; how many moments the engine makes of them is the
        // engine's business (the library tests check those), so only that there are some.
        #expect(store.contains(", 196 items, ") && store.hasSuffix(" suggestions; SQLite's integrity check finds it sound"), "\(store)")
        let suggestions = store.components(separatedBy: ", 196 items, ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        #expect(suggestions >= 40, "\(store)")
        #expect(store.contains(" MB, "), "its size on disk: \(store)")
        let pickers = try #require(ok.first { $0.hasPrefix("✓ pickers ") })
        #expect(pickers.hasSuffix(": picker-agent --tui (terminal), picker-gtk (desktop)"), "\(pickers)")
        #expect(result.stdout.hasSuffix("nothing wrong found\n"))
        pickerd.stop()
    }

    @Test("a stopped pickerd: exit 3, the socket it tried, and how to start it or see why it stopped")
    func stopped() throws {
        let pickerd = try RunningPickerd(seed: false)
        pickerd.stop()
        let result = try doctor(runtime: pickerd.runtime)
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "✗ pickerd does not answer: cannot connect to \(pickerd.runtime)/control.sock: no socket at that path (is pickerd running?)",
                "\(result.stdout)")
        #expect(lines.dropFirst().first == "    start it: systemctl --user start pickerd.socket", "\(result.stdout)")
        #expect(lines.contains("    see why:  systemctl --user status pickerd; journalctl --user -u pickerd"), "\(result.stdout)")
        #expect(lines.contains("    by hand:  pickerd --runtime-dir \(pickerd.runtime)"), "\(result.stdout)")
        #expect(marked(result.stdout, "✓").isEmpty, "nothing else is claimed: \(result.stdout)")
    }

    @Test("no display known to pickerd, or another than the session's: import the environment, then restart pickerd")
    func display() throws {
        let without = try RunningPickerd(seed: true)
        try registerJournalDemo(without)
        let result = try doctor(runtime: without.runtime)
        #expect(result.status == 1, "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("✗ no display known to pickerd") }, "\(result.stdout)")
        #expect(lines[at + 1] == "    fix:  systemctl --user import-environment DISPLAY WAYLAND_DISPLAY", "\(result.stdout)")
        #expect(lines[at + 2] == "    then: systemctl --user restart pickerd", "\(result.stdout)")
        #expect(marked(result.stdout, "✗").count == 1, "the display is the one problem: \(result.stdout)")
        #expect(result.stdout.hasSuffix("1 problem found (the lines marked ✗)\n"))
        without.stop()

        // pickerd read :77 when it started; the person's session is now on :78.
        let stale = try RunningPickerd(seed: true, environment: ["DISPLAY": ":77"])
        try registerJournalDemo(stale)
        let moved = try doctor(runtime: stale.runtime, display: ":78")
        #expect(moved.status == 1)
        #expect(moved.stdout.contains("✗ pickerd shows the desktop picker on :77 (read when it started), but this session's display is :78\n"
                                      + "    fix:  systemctl --user import-environment DISPLAY WAYLAND_DISPLAY\n"), "\(moved.stdout)")
        stale.stop()
    }

    @Test("an empty library: exit 1, the first-run sentence and the demo as fixes; pickerd logged the sentence once at start")
    func emptyLibrary() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["DISPLAY": ":77"])
        try registerJournalDemo(pickerd)
        let result = try doctor(runtime: pickerd.runtime, display: ":77")
        #expect(result.status == 1, "an empty library is a problem: the picker has nothing to show\n\(result.stdout)")
        #expect(marked(result.stdout, "✗") == ["✗ " + emptyLibrarySentence], "\(result.stdout)")
        #expect(result.stdout.contains("✗ \(emptyLibrarySentence)\n    or the demo: pickerctl library seed-demo\n"), "\(result.stdout)")
        #expect(result.stdout.contains("✓ store \(pickerd.data): ") && result.stdout.contains(", 0 items, 0 suggestions;"), "\(result.stdout)")
        #expect(pickerd.logText.components(separatedBy: emptyLibrarySentence).count - 1 == 1, "\(pickerd.logText)")

        // Once seeded, nothing is wrong.
        #expect(try pickerd.ctl(["library", "seed-demo"]).status == 0)
        let seeded = try doctor(runtime: pickerd.runtime, display: ":77")
        #expect(seeded.status == 0, "\(seeded.stdout)")
        pickerd.stop()
    }
}
