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
        #expect(workout.startMs == start, "\(workout.startMs)–\(workout.endMs)")
        #expect(workout.endMs == end + 4 * 60_000, "\(workout.startMs)–\(workout.endMs)")
    }

    /// A run from home in Berlin (home: 52.4986° N, 13.4187° E, in Kreuzberg) whose route turned at
    /// `turn`, with the place item an import adds for where it went, named as the gazetteer names it.
    static func runFromHome(turn: Coordinate, place: String) -> [LibraryItem] {
        let home = Coordinate(latitude: 52.4986, longitude: 13.4187)
        let start: Int64 = 1_773_900_000_000, end = start + 45 * 60_000
        let nights = (0..<7).map { day -> LibraryItem in
            let evening = start - Int64(7 - day) * 86_400_000 + 10 * 3_600_000
            return LibraryItem(id: UUID(), asset: .location(Location(place: "Home", city: "Berlin",
                                                                     location: GeoLocation(latitude: home.latitude, longitude: home.longitude))),
                               startMs: evening, endMs: evening + 14 * 3_600_000, coordinate: home)
        }
        let run = LibraryItem(id: UUID(), asset: .workout(Workout(details: WorkoutDetails(activityType: 37, localizedName: "Morning Run"))),
                              startMs: start, endMs: end)
        let went = LibraryItem(id: UUID(), asset: .location(Location(place: place, city: "Berlin",
                                                                     location: GeoLocation(latitude: turn.latitude, longitude: turn.longitude))),
                               startMs: start, endMs: end, externalID: SuggestionBuilder.workoutPlaceTag, coordinate: turn)
        return nights + [run, went]
    }

    @Test("a run from home is titled by the neighbourhood it turned in (the gazetteer's), never by the home city alone")
    func runNearHomeNamedByNeighbourhood() throws {
        let builder = SuggestionBuilder(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        // 1.2 km from home, in Treptow: named by the neighbourhood.
        let treptow = builder.build(from: Self.runFromHome(turn: Coordinate(latitude: 52.4935, longitude: 13.4360), place: "Treptow"))
        #expect(treptow.first { $0.kind == .workout }?.title.hasSuffix("run in Treptow") == true, "\(treptow.map(\.title))")
        // The same turn named only by the city (a gazetteer without neighbourhoods there): no place.
        let city = builder.build(from: Self.runFromHome(turn: Coordinate(latitude: 52.4935, longitude: 13.4360), place: "Berlin"))
        let title = try #require(city.first { $0.kind == .workout }?.title)
        #expect(!title.contains("Berlin"), "\(title)")
        #expect(title.hasSuffix("run"), "\(title)")
    }
}
