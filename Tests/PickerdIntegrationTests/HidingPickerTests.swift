import Foundation
import PickerdTestKit
import Testing

/// "Hide this suggestion" and "Show fewer like this" in both pickers: a suggestion and a person
/// hidden (and an undo on the way), and the next presentation shows neither.
@Suite("Hiding in the pickers", .serialized)
struct HidingPickerTests {
    /// pickerd with journal-demo registered, in New York (the demo library's zone).
    func world(_ display: XDisplay?) throws -> RunningPickerd {
        var environment = display?.environment ?? [:]
        environment["TZ"] = "America/New_York"
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#, register: false, environment: environment)
        try registerJournalDemo(pickerd)
        return pickerd
    }

    /// The rules pickerd keeps, as `pickerctl hidden list` prints them.
    func rules(_ pickerd: RunningPickerd) throws -> [String] {
        try pickerd.ctl(["hidden", "list"]).stdout.split(separator: "\n").map(String.init)
    }

    /// The title of the suggestion the terminal picker's list has selected.
    static func selected(in window: TmuxWindow) -> String? {
        window.screen.split(separator: "\n").first { $0.hasPrefix(" › ") }.map { String($0.dropFirst(3)).trimmingCharacters(in: .whitespaces) }
    }

    /// Moves the terminal picker's selection down, a row at a time (at most 12), to the first
    /// suggestion whose title holds `text`.
    static func select(_ text: String, in window: TmuxWindow) throws {
        for _ in 0..<12 where selected(in: window)?.contains(text) != true {
            let before = selected(in: window)
            try window.keys("Down")
            _ = eventually { selected(in: window) != before }
        }
    }

    /// The title of the suggestion whose row has the desktop picker's focus.
    static func focused(in display: XDisplay) -> String? {
        display.tree.split(separator: "\n").first { $0.contains("list item '") && $0.hasSuffix("[focused]") }
            .map { $0.drop { $0 != "'" }.dropFirst().prefix { $0 != "," } }.map(String.init)
    }

    /// Moves the desktop picker's focus down, a row at a time (at most 12), to the first suggestion
    /// whose title holds `text`.
    static func focus(_ text: String, in display: XDisplay) throws {
        for _ in 0..<12 where focused(in: display)?.contains(text) != true {
            let before = focused(in: display)
            try display.keys("Down")
            _ = eventually(timeout: XDisplay.patience) { focused(in: display) != before }
        }
    }

    /// The world on `display`, journal-demo presenting in the desktop picker, consent given: its lists
    /// are drawn and a row has the focus.
    /// - Returns: pickerd, the app, and the picker's window.
    func desktopLists(_ display: XDisplay) throws -> (RunningPickerd, LaunchedApp, String) {
        let pickerd = try world(display)
        let (app, window) = try display.listsAfterConsent(pickerd)
        #expect(eventually(timeout: XDisplay.patience) { Self.focused(in: display) != nil }, "\(display.tree)")
        return (pickerd, app, window)
    }

    func journalDemo(_ pickerd: RunningPickerd) -> String {
        "TZ=America/New_York \(BuiltProducts.url("journal-demo").path) new-entry --output \(pickerd.root)/journal"
            + " --runtime-dir \(pickerd.runtime); echo EXIT=$?; sleep 600"
    }

    @Test("terminal: h hides the suggestion (u undoes it), f offers its person; the next presentation shows neither")
    func terminal() throws {
        let pickerd = try world(nil)
        let window = try TmuxWindow(journalDemo(pickerd), columns: 120, rows: 50)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        let selected = { Self.selected(in: window) }
        let first = try #require(selected(), "\(window.screen)")

        // Hide this suggestion, undo, hide again.
        try window.keys("Enter")
        #expect(window.waitFor("h hide this  f fewer like this"), "the keys say what they do: \(window.screen)")
        try window.keys("h")
        #expect(window.waitFor("“\(first)” won't be suggested again.  u undo"), "\(window.screen)")
        #expect(selected() != first, "\(window.screen)")
        try window.keys("u")
        #expect(window.waitFor("Shown again"), "\(window.screen)")
        #expect(eventually { selected() == first }, "back where it was: \(window.screen)")
        #expect(try rules(pickerd) == ["nothing is hidden"])
        try window.keys("Enter")
        #expect(window.waitFor("h hide this"), "\(window.screen)")
        try window.keys("h")
        #expect(window.waitFor("won't be suggested again.  u undo"), "\(window.screen)")

        // An evening with Maya: show fewer like this, her.
        try Self.select("with Maya", in: window)
        #expect(selected()?.contains("with Maya") == true, "\(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("h hide this"), "\(window.screen)")
        try window.keys("f")
        #expect(window.waitFor("Show fewer like this · "), "\(window.screen)")
        #expect(window.screen.contains("› Maya Okafor") && window.screen.contains("These days ("), "\(window.screen)")
        #expect(window.screen.contains("nothing is deleted"), "what it does, in a line: \(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("Maya Okafor won't be suggested, nor moments only with them.  u undo"), "\(window.screen)")
        try window.keys("Escape")
        #expect(window.waitFor("EXIT="), "\(window.screen)")
        let listed = try rules(pickerd)
        // Numbered on from the undone rule's number (2 and 3): numbers are never reused.
        #expect(listed.count == 2 && listed[0].hasPrefix("2  suggestion  \"\(first)\" (") && listed[1] == "3  person      Maya Okafor", "\(listed)")

        // The next presentation: neither the suggestion nor anything with Maya.
        let next = try TmuxWindow(journalDemo(pickerd), columns: 120, rows: 50)
        #expect(next.waitFor("Recommended ("), "\(next.screen)")
        #expect(!next.screen.contains(first), "\(next.screen)")
        #expect(!next.screen.contains("Maya"), "\(next.screen)")
        try next.keys("Tab")
        #expect(next.waitFor("Recent ("), "\(next.screen)")
        #expect(!next.screen.contains(first), "\(next.screen)")
        #expect(!next.screen.contains("Maya"), "\(next.screen)")
        try next.keys("Escape")
        #expect(next.waitFor("EXIT="), "\(next.screen)")
        pickerd.stop()
    }
}

/// The desktop half runs in the desktop picker's suite, one test at a time with the others there:
/// two desktop pickers at once on one machine slow each other past the tests' patience.
extension DesktopPickerTests {
    @Test("desktop: Hide This Suggestion (Undo brings it back), Show Fewer Like This offers its person; the next presentation shows neither")
    func hidingInTheDesktopPicker() throws {
        let hiding = HidingPickerTests()
        let display = try XDisplay()
        let (pickerd, app, window) = try hiding.desktopLists(display)
        let focused = { HidingPickerTests.focused(in: display) }
        let first = try #require(focused(), "\(display.tree)")

        // Hide this suggestion, undo, hide again.
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        #expect(display.waitFor("push button 'Hide This Suggestion'"), "\(display.tree)")
        #expect(display.waitFor("push button 'Show Fewer Like This…'"), "\(display.tree)")
        try display.keys("alt+h")
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        #expect(display.waitFor("“\(first)” won't be suggested again"), "\(display.tree)")
        #expect(focused() != first, "\(display.tree)")
        try display.keys("alt+u")
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        #expect(display.waitFor("label 'Shown again'"), "\(display.tree)")
        #expect(eventually(timeout: XDisplay.patience) { focused() == first }, "back where it was: \(display.tree)")
        #expect(try hiding.rules(pickerd) == ["nothing is hidden"])
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        try display.keys("alt+h")
        #expect(display.drawn("lists", in: window), "\(display.tree)")

        // An evening with Maya: show fewer like this, her.
        try HidingPickerTests.focus("with Maya", in: display)
        #expect(focused()?.contains("with Maya") == true, "\(display.tree)")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        try display.keys("alt+f")
        #expect(display.drawn("fewer", in: window), "\(display.tree)")
        #expect(display.waitFor("push button 'Maya Okafor' [focused]") && display.tree.contains("push button 'These days ("), "\(display.tree)")
        #expect(display.tree.contains("nothing is deleted"), "what it does, in a line: \(display.tree)")
        try display.keys("Return")
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        #expect(display.waitFor("Maya Okafor won't be suggested, nor moments only with them"), "\(display.tree)")
        try display.keys("Escape")
        #expect(app.finish() != nil, "\(app.said)")
        let listed = try hiding.rules(pickerd)
        #expect(listed.count == 2 && listed[0].hasPrefix("2  suggestion  \"\(first)\" (") && listed[1] == "3  person      Maya Okafor", "\(listed)")

        // The next presentation: neither the suggestion nor anything with Maya.
        let again = try LaunchedApp(pickerd, display: display)
        let next = try #require(display.focusWindow(DesktopPickerTests.title), "no window: \(pickerd.logText)")
        #expect(display.drawn("lists", in: next), "\(display.tree)")
        #expect(eventually(timeout: XDisplay.patience) { focused() != nil }, "\(display.tree)")
        #expect(!display.tree.contains(first), "\(display.tree)")
        #expect(!display.tree.contains("Maya"), "\(display.tree)")
        try display.keys("Escape")
        #expect(again.finish() != nil, "\(again.said)")
        pickerd.stop()
    }
}
