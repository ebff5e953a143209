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
        // Its Monday, though its Sunday's night at home ends in the next week.
        #expect(week.title.hasPrefix("Your week from 2 November: "), "\(week.title)")
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
        #expect(week.title == "Your week from 2 November", "\(week.title)")
    }

    @Test("a week's title names its own Monday though its Sunday's places end in the next week")
    func ownMonday() {
        // A day's places (Takeout's, Melbourne's life) run from the morning to the next morning's
        // first move: Sunday's end on Monday, in the week after.
        let place = Location(place: "Melbourne Museum", city: "Carlton", location: GeoLocation(latitude: -37.8033, longitude: 144.9717))
        let sunday = LibraryItem(id: UUID(), asset: .locationGroup(LocationGroup(locations: [place])),
                                 startMs: R.monday + 6 * R.day + 10 * R.hour, endMs: R.monday + 7 * R.day + 8 * R.hour)
        let photo = StageTests.photo(R.monday + 2 * R.day + 21 * R.hour, at: R.home)
        #expect(SuggestionBuilder(timeZone: R.utc).title(.weeklySummary, [photo, sunday]) == "Your week from 2 November")
    }
}
