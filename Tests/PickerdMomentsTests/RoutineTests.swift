import Foundation
@testable import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// Issue 42: routine workouts fold into the week, moods join their day's moment, only listening
/// that stands out is a suggestion, and Recommended holds highlights.
@Suite("Routine workouts, joined moods, listening that stands out, Recommended as highlights")
struct RoutineTests {
    static let utc = StageTests.utc
    static let monday = StageTests.monday, hour = StageTests.hour, minute = StageTests.minute, day = Duration.day.ms
    static let home = StageTests.home
    static let work = Coordinate(latitude: 52.5264, longitude: 13.4021)  // about 3.4 km north-west
    static let gym = Coordinate(latitude: 52.5050, longitude: 13.4400)

    /// Three weeks: nights at home, weekdays 09:00–17:00 at work, and Mon/Wed/Fri 19:00–20:30 at
    /// the gym (from the Monday before `monday`).
    static var life: [LibraryItem] {
        var items = StageTests.nights
        for d in 0..<21 {
            let midnight = monday - 7 * day + Int64(d) * day
            items.append(StageTests.visit("Home", at: home, midnight + 21 * hour, midnight + day + 7 * hour))
            guard d % 7 < 5 else { continue }
            items.append(StageTests.visit("Tilde", at: work, midnight + 9 * hour, midnight + 17 * hour))
            if d % 7 == 0 || d % 7 == 2 || d % 7 == 4 {
                items.append(StageTests.visit("Urban Gym", at: gym, midnight + 19 * hour, midnight + 20 * hour + 30 * minute))
            }
        }
        return items
    }

    static func workout(_ type: UInt32, _ start: Int64, minutes: Int64, from: Coordinate? = nil, to: Coordinate? = nil,
                        metres: Double? = nil, source: String = "strava", externalID: String = "") -> LibraryItem {
        let route = [from, to].compactMap { $0 }.enumerated().map { index, c in
            GeoLocation(latitude: c.latitude, longitude: c.longitude, timestamp: Timestamp(unixMs: start + Int64(index) * minutes * minute))
        }
        let details = WorkoutDetails(activityType: type, distance: metres.map { Quantity(value: $0, unit: "m") })
        return LibraryItem(id: UUID(), asset: .workout(Workout(details: details, route: route)), startMs: start, endMs: start + minutes * minute,
                           source: source, externalID: externalID)
    }

    /// Rides to work at 08:20 on Mon/Wed/Fri of `monday`'s week, and home at 17:10.
    static var rides: [LibraryItem] {
        [0, 2, 4].flatMap { d -> [LibraryItem] in
            let midnight = monday + Int64(d) * day
            return [workout(13, midnight + 8 * hour + 20 * minute, minutes: 18, from: home, to: work, metres: 4_100),
                    workout(13, midnight + 17 * hour + 10 * minute, minutes: 20, from: work, to: home, metres: 4_300)]
        }
    }

    static func workouts(_ items: [LibraryItem], tuning: MomentTuning = .standard) -> (moments: [Moment], claims: Claims) {
        let input = StageTests.input(items, tuning: tuning)
        var claims = Claims(), found: [Moment] = []
        RoutineWorkouts().run(input, claims: &claims, found: &found)
        WorkoutMoments().run(input, claims: &claims, found: &found)
        return (found, claims)
    }

    @Test("rides between home and work on three days are routine: no workout moment, each still in the week's summary")
    func commute() throws {
        // A photo at home makes the week one of two kinds of thing, so it is summed up.
        let rides = Self.rides
        let items = Self.life + rides + [StageTests.photo(Self.monday + 2 * Self.day + 21 * Self.hour, at: Self.home)]
        let (moments, claims) = Self.workouts(items)
        #expect(moments.isEmpty)
        #expect(rides.allSatisfy { claims.holds($0) })
        let built = SuggestionBuilder(timeZone: Self.utc).build(from: items)
        #expect(!built.contains { $0.kind == .workout })
        let week = try #require(built.first { $0.kind == .weeklySummary && $0.anchorMs == Self.monday })
        #expect(week.itemIDs.contains { id in rides.contains { $0.id == id } })
        // Needs MomentTuning.routineRouteDays days: on two days the rides are moments.
        var tuning = MomentTuning.standard
        tuning.routineRouteDays = 4
        #expect(Self.workouts(items, tuning: tuning).moments.count == 6)
    }

    @Test("a routine ride is notable again on a weekend morning with photos, or when much longer than usual")
    func notableAgain() {
        let saturday = Self.monday + 5 * Self.day
        let weekend = Self.workout(13, saturday + 9 * Self.hour, minutes: 25, from: Self.home, to: Self.work, metres: 4_200)
        let photo = StageTests.photo(saturday + 9 * Self.hour + 10 * Self.minute, at: Self.work)
        let long = Self.workout(13, Self.monday + 3 * Self.day + 17 * Self.hour, minutes: 70, from: Self.work, to: Self.home, metres: 21_000)
        let plainSaturday = Self.workout(13, saturday + 15 * Self.hour, minutes: 20, from: Self.work, to: Self.home, metres: 4_200)
        let (moments, claims) = Self.workouts(Self.life + Self.rides + [weekend, photo, long, plainSaturday])
        #expect(Set(moments.map { $0.items[0].id }) == [weekend.id, long.id])
        #expect(claims.holds(plainSaturday))
    }

    @Test("sessions at the gym on four days in two weeks are routine; a one-off session elsewhere is not")
    func gym() {
        // Strength training inside the gym visits, no route: Mon/Wed/Fri of two weeks.
        let days: [Int64] = [0, 2, 4, 7, 9, 11]
        let sessions = days.map { (d: Int64) -> LibraryItem in
            let start: Int64 = Self.monday - 7 * Self.day + d * Self.day + 19 * Self.hour + 10 * Self.minute
            return Self.workout(50, start, minutes: 60, source: "health")
        }
        let climbing = Coordinate(latitude: 52.4800, longitude: 13.3600)
        let oneOff = [StageTests.visit("Boulderhalle", at: climbing, Self.monday + 5 * Self.day + 14 * Self.hour, Self.monday + 5 * Self.day + 17 * Self.hour),
                      Self.workout(9, Self.monday + 5 * Self.day + 14 * Self.hour + 15 * Self.minute, minutes: 120, source: "health")]
        let (moments, claims) = Self.workouts(Self.life + sessions + oneOff)
        #expect(sessions.allSatisfy { claims.holds($0) })
        #expect(moments.map { $0.items[0].id } == [oneOff[1].id])
        // In one week only (three days): not yet "most weeks".
        let oneWeek = Array(sessions.prefix(3))
        #expect(Self.workouts(Self.life + oneWeek).moments.count == 3)
    }

    @Test("a walk a location history recorded from home to work is never a workout, however long and however rare")
    func locationHistoryWalk() {
        let walk = Self.workout(52, Self.monday + 17 * Self.hour + 5 * Self.minute, minutes: 50, from: Self.work, to: Self.home, metres: 3_600,
                                source: "takeout", externalID: SuggestionBuilder.locationHistoryFormat)
        let tracked = Self.workout(52, Self.monday + 3 * Self.day + 17 * Self.hour + 5 * Self.minute, minutes: 50, from: Self.work, to: Self.home,
                                   metres: 3_600)
        let (moments, claims) = Self.workouts(Self.life + [walk, tracked])
        #expect(claims.holds(walk))
        // A walk the person recorded themselves, once, is theirs to remember.
        #expect(moments.map { $0.items[0].id } == [tracked.id])
    }

    static func mood(_ time: Int64, daily: Bool = true) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .stateOfMind(StateOfMind(state: StateOfMindSample(kind: daily ? .dailyMood : .momentaryEmotion, valence: 0.5,
                                                                                          valenceClassification: .pleasant))),
                    startMs: time)
    }

    @Test("the evening's mood joins the day's outing without stretching it; a mood on a day with nothing else stands alone")
    func moods() throws {
        let bar = Coordinate(latitude: 52.5007, longitude: 13.4287)
        let tuesday = Self.monday + Self.day
        let outing = StageTests.visit("Zum Goldenen Hahn", at: bar, tuesday + 18 * Self.hour, tuesday + 21 * Self.hour)
        let evening = Self.mood(tuesday + 22 * Self.hour + 30 * Self.minute)
        let lone = Self.mood(tuesday + 2 * Self.day + 22 * Self.hour)
        let built = SuggestionBuilder(timeZone: Self.utc).build(from: StageTests.nights + [outing, evening, lone])
        let out = try #require(built.first { $0.kind == .outing })
        #expect(out.itemIDs.contains(evening.id))
        #expect(out.endMs == outing.endMs)
        #expect(out.title.hasPrefix("Evening"))
        #expect(!built.contains { $0.kind == .stateOfMind && $0.itemIDs == [evening.id] })
        #expect(built.contains { $0.kind == .stateOfMind && $0.itemIDs == [lone.id] })
    }

    @Test("a colleague met at the weekly meeting is routine; a friend met once is a moment")
    func routinePeople() {
        func contact(_ name: String, _ time: Int64) -> LibraryItem {
            LibraryItem(id: UUID(), asset: .contact(Contact(name: name)), startMs: time)
        }
        let weekly = (0..<4).map { contact("Timo Richter", Self.monday + Int64($0) * 7 * Self.day + 9 * Self.hour) }
        let once = contact("Sam Okafor", Self.monday + 2 * Self.day + 18 * Self.hour)
        let input = StageTests.input(StageTests.nights + weekly + [once])
        var claims = Claims(), found: [Moment] = []
        StandaloneMoments().run(input, claims: &claims, found: &found)
        #expect(found.filter { $0.kind == .contact }.map { $0.items[0].id } == [once.id])
        // In two weeks only: not yet routine.
        var two: [Moment] = []
        StandaloneMoments().run(StageTests.input(StageTests.nights + weekly.prefix(2)), claims: &claims, found: &two)
        #expect(two.filter { $0.kind == .contact }.count == 2)
        // Nor does the weekly meeting, whose only person is the colleague, make a moment.
        let meetings = weekly.map { EventSpan(id: "team|\($0.startMs)", title: "Team-Weekly", startMs: $0.startMs, endMs: $0.startMs + Self.hour, allDay: false) }
        let dinner = EventSpan(id: "dinner", title: "Dinner with Sam", startMs: once.startMs - Self.hour, endMs: once.startMs + 2 * Self.hour, allDay: false)
        let withEvents = StageInput(timeline: Timeline(StageTests.nights + weekly + [once]), whereabouts: input.whereabouts, time: input.time,
                                    events: meetings + [dinner], tuning: .standard)
        var fresh = Claims(), events: [Moment] = []
        PhotoMoments().run(withEvents, claims: &fresh, found: &events)
        #expect(events.map(\.kind) == [.contact])
        #expect(events.first?.items.map(\.id) == [once.id])
    }

    @Test("a day at work is no outing for the colleague met most weeks; it is for a friend who drops by")
    func colleagueAtWork() {
        func contact(_ name: String, _ time: Int64) -> LibraryItem {
            LibraryItem(id: UUID(), asset: .contact(Contact(name: name)), startMs: time)
        }
        let weekly = (0..<3).map { contact("Timo Richter", Self.monday - 7 * Self.day + Int64($0) * 7 * Self.day + 10 * Self.hour) }
        let friend = contact("Sam Okafor", Self.monday + 3 * Self.day + 15 * Self.hour)
        var claims = Claims(), found: [Moment] = []
        OutingMoments().run(StageTests.input(Self.life + weekly + [friend]), claims: &claims, found: &found)
        #expect(found.flatMap(\.items).filter { $0.kind == .contact }.map(\.id) == [friend.id])
    }

    static func song(_ time: Int64, artist: String, title: String = "Track", album: String = "Album") -> LibraryItem {
        LibraryItem(id: UUID(), asset: .song(Song(song: title, artist: artist, album: album)), startMs: time, endMs: time + 4 * minute)
    }

    static func listening(_ items: [LibraryItem], events: [EventSpan] = []) -> [Moment] {
        let input = StageInput(timeline: Timeline(StageTests.nights + items),
                               whereabouts: SuggestionBuilder.Whereabouts(StageTests.nights, home: HomeBase(coordinate: home), timeZone: utc),
                               time: LocalTime(timeZone: utc), events: events, tuning: .standard)
        var claims = Claims(), found: [Moment] = []
        ListeningMoments().run(input, claims: &claims, found: &found)
        return found.filter { $0.anchor == monday }
    }

    /// Three weeks of everyday listening before `monday` (two songs a day of four artists).
    static var history: [LibraryItem] {
        let artists = ["Bonobo", "Caribou", "Kiasmos", "Tycho"]
        var songs: [LibraryItem] = []
        for d in 1...21 {
            for n in 0..<2 {
                let time: Int64 = monday - Int64(d) * day + Int64(8 + 10 * n) * hour
                songs.append(song(time, artist: artists[(d + n) % 4]))
            }
        }
        return songs
    }

    @Test("a week of everyday listening is no suggestion; an album played through, a new artist and a concert's artist are")
    func listening() {
        let everyday = (0..<7).map { Self.song(Self.monday + Int64($0) * Self.day + 8 * Self.hour, artist: "Bonobo") }
        #expect(Self.listening(Self.history + everyday).isEmpty)
        // Five tracks of one album in an evening.
        let album = (0..<5).map { Self.song(Self.monday + 20 * Self.hour + Int64($0) * 5 * Self.minute, artist: "Caribou", title: "t\($0)", album: "Suddenly") }
        #expect(Self.listening(Self.history + album).map(\.place) == ["|song|Caribou"])
        // Three plays of someone never heard in the three weeks before.
        let new = (0..<3).map { Self.song(Self.monday + Int64($0) * Self.day + 9 * Self.hour, artist: "Arlo Parks") }
        #expect(Self.listening(Self.history + new).map(\.place) == ["|song|Arlo Parks"])
        // …but in a library's first weeks every artist is new, and none stands out.
        #expect(Self.listening(new).isEmpty)
        // The artist of the week's concert.
        let concert = EventSpan(id: "c", title: "Bonobo live at Tempodrom", startMs: Self.monday + 4 * Self.day + 20 * Self.hour,
                                endMs: Self.monday + 4 * Self.day + 23 * Self.hour, allDay: false)
        #expect(Self.listening(Self.history + everyday, events: [concert]).map(\.place) == ["|song|Bonobo"])
    }

    @Test("every HealthKit activity type is titled as people say it, never \"activity\"")
    func activityTitles() {
        func title(_ type: UInt32, _ name: String = "") -> String {
            SuggestionBuilder.activityTitle(WorkoutDetails(activityType: type, localizedName: name), part: "Morning")
        }
        #expect(title(37) == "Morning run")
        #expect(title(13) == "Morning ride")
        #expect(title(61) == "Ski day")
        #expect(title(9) == "Climbing")
        #expect(title(31) == "Paddling")
        #expect(title(50) == "Weight training")
        #expect(title(3000, "Kayaking") == "Morning kayaking")
        #expect(title(3000, "Other") == "Morning workout")
        // An app's name that says a part of the day already says it once, from when it started.
        #expect(title(3000, "Morning Run") == "Morning run")
        #expect(title(3000, "Evening  Ride") == "Morning ride")
        #expect(title(3000, "Lunch") == "Morning workout")
        #expect(SuggestionBuilder.activityTitle(nil, part: "Evening") == "Evening workout")
        for type in UInt32(1)...84 where type != 81 {
            #expect(!title(type).lowercased().contains("activity"), "type \(type)")
            #expect(SuggestionBuilder.activityWords[type] != nil, "type \(type) has no words")
        }
    }

    @Test("Recommended holds highlights: never a week of one artist's songs, a day's steps, photos or a mood alone")
    func highlights() {
        func suggestion(_ kind: SuggestionKind, _ categories: Set<PickerdWire.Category>) -> StoredSuggestion {
            var s = StoredSuggestion(id: UUID(), title: "\(kind) \(categories.count) \(UUID())", kind: kind, startMs: 0, endMs: 0, score: 3, itemIDs: [UUID()])
            s.categoryMask = Store.mask(categories)
            return s
        }
        let song = suggestion(.media, [.media]), steps = suggestion(.motion, [.activity]), photos = suggestion(.photos, [.photos])
        let run = suggestion(.workout, [.activity, .significantLocations]), week = suggestion(.weeklySummary, [.activity])
        let trip = suggestion(.trip, [.significantLocations]), mood = suggestion(.stateOfMind, [.stateOfMind])
        let secondMood = suggestion(.stateOfMind, [.stateOfMind])
        let chosen = Set(SuggestionBuilder().recommended([song, steps, photos, run, week, trip, mood, secondMood], newest: 0).map(\.id))
        #expect(chosen == [run.id, week.id, trip.id], "a mood alone is Recent's, as a song or a day's steps are")
        // A trip stands for the outings during it.
        var hamburg = suggestion(.trip, [.significantLocations, .photos])
        (hamburg.startMs, hamburg.endMs) = (0, 3 * Self.day)
        var sight = suggestion(.outing, [.significantLocations, .photos])
        (sight.startMs, sight.endMs) = (Self.day, Self.day + 2 * Self.hour)
        #expect(SuggestionBuilder().recommended([hamburg, sight], newest: 0).map(\.id) == [hamburg.id])
    }
}
