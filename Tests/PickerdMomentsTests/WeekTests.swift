import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// Weeks as the person lives them: Monday 00:00 to Monday 00:00 local, across a clock change.
@Suite("Weeks across a clock change")
struct WeekTests {
    let builder = SuggestionBuilder(timeZone: TimeZone(identifier: "Europe/London")!)
    /// Monday 19 October 2026, 00:00 BST (23:00 UTC the day before); the clocks go back on Sunday 25 October.
    let monday: Int64 = 1_792_364_400_000
    /// Monday 26 October 2026, 00:00 GMT.
    let nextMonday: Int64 = 1_792_972_800_000

    @Test("the week of a change is 169 hours, from either side of the change, and the next begins where it ends")
    func edges() {
        #expect(nextMonday - monday == 169 * 3_600_000)
        let before = builder.week(of: monday + 3_600_000), after = builder.week(of: nextMonday - 3_600_000)
        #expect(before.start == monday, "\(before)")
        #expect(before.end == nextMonday, "\(before)")
        #expect(after.start == monday, "\(after)")
        #expect(after.end == nextMonday, "\(after)")
        #expect(builder.week(of: nextMonday).start == nextMonday)
    }

    @Test("a week's summary with items on both sides of the change is one, Monday to Monday")
    func summary() throws {
        let run = LibraryItem(id: UUID(), asset: .workout(Workout(details: WorkoutDetails(activityType: 37, localizedName: "Running"))),
                              startMs: monday + 30 * 3_600_000, endMs: monday + 31 * 3_600_000)
        let photos = (0..<5).map { i in
            LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: nextMonday - 10 * 3_600_000 + Int64(i) * 60_000)
        }
        let weeks = builder.build(from: [run] + photos).filter { $0.kind == .weeklySummary }
        #expect(weeks.count == 1 && weeks.first.map { $0.startMs == monday && $0.endMs == nextMonday - 1 } == true,
                "\(weeks.map { "\($0.startMs)–\($0.endMs)" })")
    }
}
