import Foundation
@testable import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// Issue 42: routine workouts count in their week's summary as routine visits do, "18 rides to
/// work, 96 km", not one by one.
@Suite("The week's routine in its summary")
struct WeekRoutineWordingTests {
    typealias R = RoutineTests

    @Test("the week's title counts its rides to work with their distance, its gym sessions and the walks a location history recorded")
    func wording() throws {
        let sessions = [Int64(0), 2, 4, 7, 9, 11].map { d in
            R.workout(50, R.monday - 7 * R.day + d * R.day + 19 * R.hour + 10 * R.minute, minutes: 60, source: "health")
        }
        let walk = R.workout(52, R.monday + 3 * R.day + 17 * R.hour + 5 * R.minute, minutes: 50, from: R.work, to: R.home, metres: 3_600,
                             source: "takeout", externalID: SuggestionBuilder.locationHistoryFormat)
        let photo = StageTests.photo(R.monday + 2 * R.day + 21 * R.hour, at: R.home)
        let built = SuggestionBuilder(timeZone: R.utc).build(from: R.life + R.rides + sessions + [walk, photo])
        let week = try #require(built.first { $0.kind == .weeklySummary && $0.anchorMs == R.monday }, "\(built.map(\.title))")
        // 3 × (4.1 + 4.3) km is 25 km; the most first.
        #expect(week.title.hasPrefix("Your week from "), "\(week.title)")
        #expect(week.title.hasSuffix(": 6 rides to work, 25 km; 3 weight training sessions; 1 walk to work, 4 km"), "\(week.title)")
        // The week before held only the gym: its summary (if any) says no rides.
        #expect(!built.contains { $0.kind == .weeklySummary && $0.anchorMs != R.monday && $0.title.contains("ride") }, "\(built.map(\.title))")
        #expect(!built.contains { $0.kind == .workout }, "\(built.map(\.title))")
    }

    @Test("a week without routine workouts keeps its plain title")
    func plain() throws {
        let photo = StageTests.photo(R.monday + 2 * R.day + 21 * R.hour, at: R.home)
        let run = R.workout(37, R.monday + 5 * R.day + 10 * R.hour, minutes: 40, metres: 8_000)
        let built = SuggestionBuilder(timeZone: R.utc).build(from: R.life + [photo, run])
        let week = try #require(built.first { $0.kind == .weeklySummary && $0.anchorMs == R.monday }, "\(built.map(\.title))")
        #expect(!week.title.contains(":"), "\(week.title)")
    }
}
