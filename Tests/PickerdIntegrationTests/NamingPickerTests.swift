import Foundation
import PickerdTestKit
import Testing

/// "Name this place" in both pickers: a visit of the evening with Maya named in the review, the
/// title saying the name at once, the entry holding it, `pickerctl places` listing it as the
/// person's word, and the next presentation's lists calling the place by it.
@Suite("Naming places in the pickers", .serialized)
struct NamingPickerTests {
    /// The places `pickerctl places` lists with the person's name (their word, or a place they named).
    static func personsPlaces(_ pickerd: RunningPickerd) throws -> [String] {
        try pickerd.ctl(["places"]).stdout.split(separator: "\n").map(String.init).filter { $0.contains("Nonna's") }
    }

    /// The journal-demo entries written so far.
    static func entries(_ pickerd: RunningPickerd) throws -> [String] {
        let folder = pickerd.root + "/journal"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md") }) ?? []
        return try files.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
    }

    @Test("terminal: n names the visit, the title says it at once, the entry and pickerctl places hold it, the next lists call it so")
    func terminal() throws {
        let hiding = HidingPickerTests()
        let pickerd = try hiding.world(nil)
        let window = try TmuxWindow(hiding.journalDemo(pickerd), columns: 120, rows: 50)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        func selected() -> String? {
            window.screen.split(separator: "\n").first { $0.hasPrefix(" › ") }.map { String($0.dropFirst(3)).trimmingCharacters(in: .whitespaces) }
        }
        for _ in 0..<12 where selected()?.contains("with Maya") != true {
            let before = selected()
            try window.keys("Down")
            _ = eventually { selected() != before }
        }
        let evening = try #require(selected(), "\(window.screen)")
        #expect(evening.contains("with Maya at "), "\(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("n name place  h hide this"), "the keys say what they do: \(window.screen)")
        try window.keys("n")
        #expect(window.waitFor("Name this place ("), "\(window.screen)")
        #expect(window.screen.contains("Every suggestion will call this place by your name"), "what it does, in a line: \(window.screen)")
        try window.type("Nonna's")
        try window.keys("Enter")
        #expect(window.waitFor("Called “Nonna's” from now on"), "\(window.screen)\n\(pickerd.logText)")
        #expect(window.screen.contains("with Maya at Nonna's"), "the title says it: \(window.screen)")
        #expect(window.screen.contains("Nonna's"), "\(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("EXIT=0"), "\(window.screen)\n\(pickerd.logText)")
        let entry = try #require(try Self.entries(pickerd).first, "no entry written")
        #expect(entry.hasPrefix("# ") && entry.split(separator: "\n").first?.contains("Nonna's") == true, "\(entry)")
        let places = try Self.personsPlaces(pickerd)
        #expect(places.count == 1 && places[0].contains("Nonna's"), "\(places)")

        // The next presentation's lists call the place by its name.
        let next = try TmuxWindow(hiding.journalDemo(pickerd), columns: 120, rows: 50)
        #expect(next.waitFor("Recommended ("), "\(next.screen)")
        let screens = [next.screen] + (try { () -> [String] in
            try next.keys("Tab")
            _ = next.waitFor("Recent (")
            return [next.screen]
        }())
        #expect(screens.contains { $0.contains("with Maya at Nonna's") }, "\(screens)")
        #expect(!screens.contains { $0.contains(evening) }, "\(screens)")
        try next.keys("Escape")
        #expect(next.waitFor("EXIT="), "\(next.screen)")
        pickerd.stop()
    }
}

/// The desktop half runs in the desktop picker's suite, one test at a time with the others there.
extension DesktopPickerTests {
    @Test("desktop: Name This Place on the visit, the title says it at once, pickerctl places holds it as the person's word")
    func namingInTheDesktopPicker() throws {
        let hiding = HidingPickerTests()
        let display = try XDisplay()
        let pickerd = try hiding.world(display)
        let app = try LaunchedApp(pickerd, display: display)
        let window = try #require(display.focusWindow(DesktopPickerTests.title), "no window: \(pickerd.logText)")
        #expect(display.drawn("consent", in: window), "\(display.tree)\n\(pickerd.logText)")
        #expect(display.waitFor("push button 'Turn On' [focused]"), "\(display.tree)")
        try display.keys("Return")
        #expect(display.drawn("lists", in: window), "\(display.tree)")
        func focused() -> String? {
            display.tree.split(separator: "\n").first { $0.contains("list item '") && $0.hasSuffix("[focused]") }
                .map { $0.drop { $0 != "'" }.dropFirst().prefix { $0 != "," } }.map(String.init)
        }
        #expect(eventually(timeout: XDisplay.patience) { focused() != nil }, "\(display.tree)")
        for _ in 0..<12 where focused()?.contains("with Maya") != true {
            let before = focused()
            try display.keys("Down")
            _ = eventually(timeout: XDisplay.patience) { focused() != before }
        }
        #expect(focused()?.contains("with Maya at ") == true, "\(display.tree)")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        // The visit's own page of the carousel offers the button: the items are walked until it shows.
        for item in 2..<10 where !display.tree.contains("push button 'Name This Place…'") {
            try display.keys("alt+n")
            _ = display.waitFor("\(item) of ")
        }
        #expect(display.waitFor("push button 'Name This Place…'"), "\(display.tree)")
        try display.keys("alt+l")
        #expect(display.drawn("name-place", in: window), "\(display.tree)")
        #expect(display.tree.contains("Every suggestion will call this place by your name"), "\(display.tree)")
        try display.type("Nonna's")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        #expect(display.waitFor("Called “Nonna's” from now on"), "\(display.tree)\n\(pickerd.logText)")
        #expect(display.tree.contains("with Maya at Nonna's"), "the title says it: \(display.tree)")
        try display.keys("Escape")
        #expect(app.finish() != nil, "\(app.said)")
        let places = try NamingPickerTests.personsPlaces(pickerd)
        #expect(places.count == 1 && places[0].contains("Nonna's"), "\(places)")
        pickerd.stop()
    }
}
