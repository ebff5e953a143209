import Foundation
@testable import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// The engine's stages, each run alone on a hand-made window: what it finds, what it takes, and
/// what its tuning changes.
@Suite("The moments pipeline's stages, one at a time")
struct StageTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// Monday 2 November 2026, 00:00 UTC.
    static let monday: Int64 = 1_793_577_600_000
    static let hour = Duration.hour.ms, minute = Duration.minute.ms
    static let home = Coordinate(latitude: 52.4986, longitude: 13.4187)

    static func visit(_ place: String, at c: Coordinate, _ start: Int64, _ end: Int64) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .location(Location(place: place, city: "Berlin", location: GeoLocation(latitude: c.latitude, longitude: c.longitude))),
                    startMs: start, endMs: end, coordinate: c)
    }

    static func photo(_ time: Int64, at c: Coordinate? = nil) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .photo(Photo(date: Timestamp(unixMs: time))), startMs: time, coordinate: c)
    }

    /// Seven nights at home before `monday`, so the window knows where home is.
    static var nights: [LibraryItem] {
        (1...7).map { visit("Home", at: home, monday - Int64($0) * Duration.day.ms + 20 * hour, monday - Int64($0 - 1) * Duration.day.ms + 8 * hour) }
    }

    static func input(_ items: [LibraryItem], tuning: MomentTuning = .standard) -> StageInput {
        StageInput(timeline: Timeline(items), whereabouts: SuggestionBuilder.Whereabouts(items, home: HomeBase.find(in: items), timeZone: utc),
                   time: LocalTime(timeZone: utc), events: [], tuning: tuning)
    }

    @Test("the timeline leaves out what is excluded and what is not a memory, in time order, found by inclusive time")
    func timeline() {
        let late = Self.photo(Self.monday + 3 * Self.hour), early = Self.photo(Self.monday + Self.hour)
        let excluded = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: Self.monday + 2 * Self.hour, excludedFromSuggestions: true)
        let screenshot = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: Self.monday + 2 * Self.hour, notAMemory: .screenshot)
        let timeline = Timeline([late, excluded, early, screenshot])
        #expect(timeline.items.map(\.id) == [early.id, late.id])
        #expect(timeline.within(Self.monday + Self.hour, Self.monday + 3 * Self.hour, kinds: [.photo]).count == 2)
        #expect(timeline.within(Self.monday + Self.hour + 1, Self.monday + 3 * Self.hour, kinds: [.photo]).map(\.id) == [late.id])
        #expect(timeline.within(Self.monday, Self.monday + 4 * Self.hour, kinds: [.song]).isEmpty)
    }

    /// A run at 10:00–10:30, a photo at 10:35 and a stay at a café from 10:40: the photo lies within
    /// both the workout's margin and the stay's.
    static func runThenCafe() -> (items: [LibraryItem], run: LibraryItem, photo: LibraryItem, cafe: LibraryItem) {
        let start = monday + 10 * hour
        let run = LibraryItem(id: UUID(), asset: .workout(Workout(details: WorkoutDetails(activityType: 37, localizedName: "Running"))),
                              startMs: start, endMs: start + 30 * minute)
        let cafe = Coordinate(latitude: 52.5200, longitude: 13.4050)
        let photo = Self.photo(start + 35 * minute, at: cafe)
        let stay = visit("Café Kiezbohne", at: cafe, start + 40 * minute, start + 2 * hour)
        return (nights + [run, photo, stay], run, photo, stay)
    }

    @Test("an item belongs to the first stage that takes it: a photo a workout took is not also an outing's")
    func ownership() throws {
        let (items, run, photo, cafe) = Self.runThenCafe()
        let input = Self.input(items)
        var claims = Claims(), found: [Moment] = []
        WorkoutMoments().run(input, claims: &claims, found: &found)
        let workout = try #require(found.first)
        #expect(workout.items.map(\.id).contains(photo.id))
        #expect(workout.items.first?.id == run.id)
        #expect(claims.holds(photo))
        OutingMoments().run(input, claims: &claims, found: &found)
        let outing = try #require(found.first { $0.kind == .outing })
        #expect(outing.items.first?.id == cafe.id)
        #expect(!outing.items.map(\.id).contains(photo.id))

        // Alone, the outing stage takes the photo.
        var fresh = Claims(), alone: [Moment] = []
        OutingMoments().run(input, claims: &fresh, found: &alone)
        #expect(alone.first?.items.map(\.id).contains(photo.id) == true)
    }

    @Test("the whole pipeline gives the photo to the workout, and the café stay is an outing without it")
    func pipeline() {
        let (items, _, photo, cafe) = Self.runThenCafe()
        let built = SuggestionBuilder(timeZone: Self.utc).build(from: items)
        let holding = built.filter { $0.itemIDs.contains(photo.id) && $0.kind != .weeklySummary }
        #expect(holding.map(\.kind) == [.workout])
        #expect(built.contains { $0.kind == .outing && $0.itemIDs == [cafe.id] })
    }

    @Test("a run of photos needs MomentTuning.minimumPhotoRun of them")
    func photoRunTuning() {
        let cafe = Coordinate(latitude: 52.5200, longitude: 13.4050)
        let photos = [Self.photo(Self.monday + 15 * Self.hour, at: cafe), Self.photo(Self.monday + 15 * Self.hour + 5 * Self.minute, at: cafe)]
        var claims = Claims(), found: [Moment] = []
        PhotoMoments().run(Self.input(Self.nights + photos), claims: &claims, found: &found)
        #expect(found.isEmpty)
        var tuning = MomentTuning.standard
        tuning.minimumPhotoRun = 2
        PhotoMoments().run(Self.input(Self.nights + photos, tuning: tuning), claims: &claims, found: &found)
        #expect(found.map(\.kind) == [.photos])
        #expect(found.first?.items.count == 2)
    }

    @Test("photos an hour and a half apart are one run away from home, two near it")
    func photoPauses() {
        let far = Coordinate(latitude: 51.0504, longitude: 13.7373)  // Dresden, about 165 km from home
        let near = Coordinate(latitude: 52.4990, longitude: 13.4190)
        let gap = 90 * Self.minute
        let input = Self.input(Self.nights)
        let away = PhotoMoments().runs([Self.photo(Self.monday, at: far), Self.photo(Self.monday + gap, at: far)], input)
        let home = PhotoMoments().runs([Self.photo(Self.monday, at: near), Self.photo(Self.monday + gap, at: near)], input)
        #expect(away.count == 1)
        #expect(home.count == 2)
    }

    @Test("two days away make a trip; MomentTuning.minimumTripDays of three make none of them")
    func tripDays() {
        let dresden = Coordinate(latitude: 51.0504, longitude: 13.7373)
        let days = (0..<2).map { day in
            Self.visit("Hotel Elbe", at: dresden, Self.monday + Int64(day) * Duration.day.ms + 9 * Self.hour,
                       Self.monday + Int64(day) * Duration.day.ms + 20 * Self.hour)
        }
        var claims = Claims()
        let trips = TripMoments().trips(Self.input(Self.nights + days))
        #expect(trips.map(\.kind) == [.trip])
        #expect(trips.first?.place == "Berlin")  // the hotel's city, as the visit names it
        var tuning = MomentTuning.standard
        tuning.minimumTripDays = 3
        var found: [Moment] = []
        TripMoments().run(Self.input(Self.nights + days, tuning: tuning), claims: &claims, found: &found)
        #expect(found.isEmpty)
        #expect(claims.taken.isEmpty)
    }

    @Test("a trip's city is the most common, the first reached of equals")
    func tripCity() {
        #expect(SuggestionBuilder.mostCommonCity(["Porto", "Braga", "Braga", "Porto"]) == "Porto")
        #expect(SuggestionBuilder.mostCommonCity(["Porto", "Braga", "Braga"]) == "Braga")
        #expect(SuggestionBuilder.mostCommonCity([]) == nil)
    }
}

/// One local-time model for the whole engine.
@Suite("Local time")
struct LocalTimeTests {
    let berlin = LocalTime(timeZone: TimeZone(identifier: "Europe/Berlin")!)

    @Test("the week of a spring clock change is 167 hours, and the next begins where it ends")
    func springWeek() {
        // Sunday 29 March 2026, 02:00 CET -> 03:00 CEST; noon on Wednesday 25 March is in its week.
        let wednesday = Int64(Civil.days(year: 2026, month: 3, day: 25)) * LocalTime.dayMs + 11 * LocalTime.hourMs
        let week = berlin.week(of: wednesday)
        #expect(week.end - week.start == 167 * LocalTime.hourMs)
        #expect(week.monday == Civil.days(year: 2026, month: 3, day: 23))
        #expect(berlin.week(of: week.end).start == week.end)
        #expect(berlin.week(of: week.end - 1).start == week.start)
    }

    @Test("an item's own offset wins over the person's zone, for its day and its part of the day")
    func ownOffset() {
        // 2026-04-11 05:01 UTC is 14:01 in Kyoto (+09:00) and 07:01 in Berlin (+02:00).
        let instant = Int64(Civil.days(year: 2026, month: 4, day: 11)) * LocalTime.dayMs + 5 * LocalTime.hourMs + 60_000
        let kyoto = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: instant, utcOffsetSeconds: 9 * 3_600)
        let home = LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: instant)
        #expect(berlin.partOfDay(kyoto) == "Afternoon")
        #expect(berlin.partOfDay(home) == "Morning")
        #expect(berlin.weekdayName(kyoto) == "Saturday")
    }

    @Test("a day's midnight before 1970 and an hour of a day in a fixed offset")
    func arithmetic() {
        #expect(berlin.day(-1, offset: 0) == -1)
        #expect(berlin.ms(day: 1, hour: 9, offset: 3_600) == (86_400 + 8 * 3_600) * 1000)
        #expect(Duration.hours(3).ms == 10_800_000)
        #expect(Duration.minutes(45).ms == 2_700_000)
        #expect(Duration.days(2).ms == 172_800_000)
    }
}
