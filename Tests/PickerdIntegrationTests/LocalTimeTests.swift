import Foundation
import PickerdTestKit
import Testing

/// A trip abroad shows the local time where it happened, in both pickers: a New Yorker's weekend in
/// Lisbon (UTC+0 in November, New York UTC−5) is shown as the Lisbon clock said, marked so.
@Suite("A trip abroad in the pickers: times as they were where it happened", .serialized)
struct LocalTimeTests {
    /// The last visit in Lisbon ends at 13:00 there on Sunday 22 November 2026 (08:00 in New York):
    /// where the trip's range ends.
    static let tripEnd = "Sun 22 Nov, 13:00 local time (UTC)"
    static let newYorkEnd = "Sun 22 Nov, 08:00"

    /// A weekend in Lisbon, 21–22 November 2026, just after the demo library's last day, as a
    /// Takeout semantic history.
    static func makeTakeout(_ root: String) throws {
        let history = root + "/Takeout/Location History (Timeline)/Semantic Location History/2026"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        let visits = [
            ("Time Out Market", 38.7071, -9.1459, "2026-11-21T10:00:00Z", "2026-11-21T12:30:00Z"),
            ("Castelo de São Jorge", 38.7139, -9.1334, "2026-11-21T13:00:00Z", "2026-11-21T16:00:00Z"),
            ("Hotel Lisboa Plaza", 38.7205, -9.1453, "2026-11-21T17:00:00Z", "2026-11-22T09:00:00Z"),
            ("Belém Tower", 38.6916, -9.2160, "2026-11-22T10:00:00Z", "2026-11-22T13:00:00Z"),
        ]
        let objects = visits.map { ImportTests.placeVisit($0.0, $0.1, $0.2, $0.3, $0.4, address: "Rua, 1100-148 Lisboa, Portugal") }
        let data = try JSONSerialization.data(withJSONObject: ["timelineObjects": objects])
        try data.write(to: URL(fileURLWithPath: history + "/2026_NOVEMBER.json"))
    }

    /// pickerd on the demo library (a New Yorker) with the Lisbon weekend imported, journal-demo registered.
    func pickerd(_ display: XDisplay?) throws -> RunningPickerd {
        var environment = display?.environment ?? [:]
        environment["TZ"] = "America/New_York"
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#, register: false, environment: environment)
        try registerJournalDemo(pickerd)
        try Self.makeTakeout(pickerd.root)
        let imported = try pickerd.ctl(["import", pickerd.root + "/Takeout"])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        return pickerd
    }

    @Test("the terminal picker, in New York, shows the Lisbon weekend in Lisbon's time, marked so")
    func terminal() throws {
        let pickerd = try pickerd(nil)
        let command = "TZ=America/New_York \(BuiltProducts.url("journal-demo").path) new-entry --output \(pickerd.root)/journal"
            + " --runtime-dir \(pickerd.runtime); echo EXIT=$?; sleep 600"
        let window = try TmuxWindow(command, columns: 100, rows: 44)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        #expect(window.waitFor("in Lisboa"), "the trip is recommended: \(window.screen)")
        let lines = window.screen.split(separator: "\n").map(String.init)
        let title = try #require(lines.firstIndex { $0.contains("days in Lisboa") }, "\(window.screen)")
        let range = lines[title + 1]
        #expect(range.contains(Self.tripEnd), "Lisbon's clock, marked: \(range)")
        #expect(!range.contains(Self.newYorkEnd), "not New York's: \(range)")
        // A trip in the person's own time zone is in the picker's time, unmarked.
        let beacon = try #require(lines.firstIndex { $0.contains("3 days in Beacon") }, "\(window.screen)")
        #expect(!lines[beacon + 1].contains("local time"), "\(lines[beacon + 1])")
        try window.keys("Escape")
        #expect(window.waitFor("EXIT="), "\(window.screen)")
        pickerd.stop()
    }
}

/// The desktop half runs in the desktop picker's suite, one test at a time with the others there.
extension DesktopPickerTests {
    @Test("the desktop picker, in New York, shows the Lisbon weekend in Lisbon's time, marked so")
    func localTimeInTheDesktopPicker() throws {
        let display = try XDisplay()
        let pickerd = try LocalTimeTests().pickerd(display)
        let (app, _) = try display.listsAfterConsent(pickerd)
        #expect(display.waitFor("in Lisboa"), "the trip is recommended: \(display.tree)")
        #expect(display.waitFor(LocalTimeTests.tripEnd), "Lisbon's clock, marked: \(display.tree)")
        #expect(!display.tree.contains(LocalTimeTests.newYorkEnd), "\(display.tree)")
        try display.keys("Escape")
        #expect(app.finish() != nil, "\(app.said)")
        pickerd.stop()
    }
}
