import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// A workout's window is the workout's own time.
@Suite("Workout windows")
struct WorkoutWindowTests {
    @Test("steps another device counted on the way to the start (a phone on a watch's hike) join the workout but do not stretch its window")
    func stepsDoNotStretch() throws {
        let start: Int64 = 1_793_000_000_000, end = start + 3 * 3_600_000
        let hike = LibraryItem(id: UUID(), asset: .workout(Workout(details: WorkoutDetails(activityType: 24, localizedName: "Hiking"))),
                               startMs: start, endMs: end, utcOffsetSeconds: 0)
        let phone = LibraryItem(id: UUID(), asset: .motionActivity(MotionActivity(steps: 6_200, movementType: .walking)),
                                startMs: start - 8 * 60_000, endMs: start + 3_600_000, utcOffsetSeconds: 0)
        let photo = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: end + 4 * 60_000, utcOffsetSeconds: 0)
        let built = SuggestionBuilder(timeZone: TimeZone(identifier: "UTC")!).build(from: [hike, phone, photo])
        let workout = try #require(built.first { $0.kind == .workout }, "\(built.map(\.title))")
        #expect(Set(workout.itemIDs) == [hike.id, phone.id, photo.id])
        #expect(workout.startMs == start && workout.endMs == end + 4 * 60_000, "\(workout.startMs)–\(workout.endMs)")
    }
}
