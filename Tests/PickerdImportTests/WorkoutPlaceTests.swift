import Foundation
@testable import PickerdImport
import PickerdMoments
import PickerdPlaces
import PickerdStore
import PickerdWire
import Testing

/// Issue 42: a workout is titled by where it went, the place most of its route lies in
/// (`ExportItems.routePlace`), not the point it turned at.
@Suite("Where a workout went")
struct WorkoutPlaceTests {
    /// A straight line of `count` points from `a` to `b`, one every 10 s from `startMs`.
    static func line(_ a: (Double, Double), _ b: (Double, Double), count: Int, from startMs: Int64) -> [LocationPoint] {
        (0..<count).map { i in
            let f = Double(i) / Double(count - 1)
            return LocationPoint(timeMs: startMs + Int64(i) * 10_000, latitude: a.0 + (b.0 - a.0) * f, longitude: a.1 + (b.1 - a.1) * f)
        }
    }

    @Test("an out-and-back run along the Yarra from Richmond is in Richmond, where most of it ran, not Burnley where it turned and stood")
    func mostOfTheRoute() throws {
        // From Lennox St (Richmond's centre lies 0.4 km away) east along the river to past
        // Burnley's centre (1.4 km from Richmond's), ten minutes standing at the turn, and back:
        // 60 % of the way lies nearer Richmond's centre.
        let home = (-37.8193, 144.9979), turn = (-37.8243, 145.0167)
        let out = Self.line(home, turn, count: 80, from: 0)
        let stand = (1...60).map { LocationPoint(timeMs: out.last!.timeMs! + Int64($0) * 10_000, latitude: turn.0, longitude: turn.1) }
        let back = Self.line(turn, home, count: 80, from: stand.last!.timeMs! + 10_000)
        let route = out + stand + back
        // Where the route is half-way in time (the old rule), and where it turned, is Burnley.
        #expect(Gazetteer.shared.name(latitude: turn.0, longitude: turn.1)?.place == "Burnley")
        let (named, point) = try #require(ExportItems.routePlace(route))
        #expect(named.place == "Richmond")
        #expect(named.city.name == "Melbourne")
        // The point given is on the route, in the part it is named by.
        #expect(route.contains { abs($0.latitude - point.latitude) < 0.0015 && abs($0.longitude - point.longitude) < 0.0015 })
        #expect(Gazetteer.shared.name(latitude: point.latitude, longitude: point.longitude)?.place == "Richmond")

        let workout = ImportedWorkout(activityType: 37, startMs: 0, endMs: back.last!.timeMs!, route: route, format: "gpx")
        let item = try #require(ExportItems.workoutPlace(workout, id: UUID()))
        guard case .location(let location) = item.asset else { Issue.record("\(item.asset)"); return }
        #expect(location.place == "Richmond")
        #expect(item.externalID == SuggestionBuilder.workoutPlaceTag)
    }

    @Test("a run that goes mostly beyond the neighbourhood it started in is named where it went")
    func wentSomewhere() throws {
        // From Richmond south over the river into South Yarra, then twice round a block 400 m
        // across there: most of it lies nearer South Yarra's centre than any other.
        let start = (-37.8193, 144.9979), centre = (-37.8410, 144.9915), d = 0.002
        let corners = [(centre.0 - d, centre.1 - d), (centre.0 - d, centre.1 + d), (centre.0 + d, centre.1 + d), (centre.0 + d, centre.1 - d)]
        var route = Self.line(start, corners[0], count: 150, from: 0)
        for lap in 0..<8 {
            route += Self.line(corners[lap % 4], corners[(lap + 1) % 4], count: 30, from: route.last!.timeMs! + 10_000)
        }
        #expect(Gazetteer.shared.name(latitude: start.0, longitude: start.1)?.place == "Richmond")
        let named = try #require(ExportItems.routePlace(route)).0
        #expect(named.place == "South Yarra", "\(named) \(Gazetteer.shared.name(latitude: centre.0, longitude: centre.1)!)")
    }

    @Test("a GPS fix hundreds of kilometres off (a cold start) does not name the run after where it fell")
    func glitch() throws {
        // The Yarra run again, its 40th point a fix near Canberra (470 km away; among the points
        // the route is cut at): two stretches of 470 km, which by length alone would name it.
        var route = Self.line((-37.8193, 144.9979), (-37.8243, 145.0167), count: 80, from: 0)
        route += Self.line((-37.8243, 145.0167), (-37.8193, 144.9979), count: 80, from: route.last!.timeMs! + 10_000)
        route[39] = LocationPoint(timeMs: route[39].timeMs, latitude: -35.2809, longitude: 149.1300)
        #expect(try #require(ExportItems.routePlace(route)).0.place == "Richmond")
    }

    @Test("a route across the antimeridian is named where it is, not halfway round the world")
    func antimeridian() throws {
        // Off Taveuni, Fiji, where 180° runs: a boat out from 179.95° E to 179.95° W and back. Each
        // stretch's middle, averaged naively, is at 0°: the Atlantic.
        let route = [179.95, -179.95, 179.95].enumerated().map { LocationPoint(timeMs: Int64($0.offset) * 600_000, latitude: -16.8, longitude: $0.element) }
        let named = try #require(ExportItems.routePlace(route)).0
        #expect(named.city.country == "Fiji", "\(named)")
    }

    @Test("no route, no place; one point, that point's")
    func edges() {
        #expect(ExportItems.routePlace([]) == nil)
        let one = [LocationPoint(timeMs: 0, latitude: -37.8193, longitude: 144.9979)]
        #expect(ExportItems.routePlace(one)?.0.place == "Richmond")
        // A track that never moved: its one place.
        let still = (0..<100).map { LocationPoint(timeMs: Int64($0) * 1000, latitude: -37.8193, longitude: 144.9979) }
        #expect(ExportItems.routePlace(still)?.0.place == "Richmond")
    }
}
