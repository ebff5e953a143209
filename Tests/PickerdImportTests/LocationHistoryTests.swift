import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// The location-history readers on small fixtures written here in the exact shapes the exporters
/// write (each shape's source is cited on its fixture): Google Takeout's Records.json, a Semantic
/// Location History month, the on-device Timeline.json, an OwnTracks Recorder `.rec` file; stay
/// detection, format detection by content, and bad input.
@Suite("Location history: Takeout, Timeline, OwnTracks")
struct LocationHistoryTests {
    // A day in New York (UTC times, to keep the arithmetic plain): home on the Upper West Side,
    // a walk across the park, an afternoon at the Met, back home.
    static let home = Coordinate(latitude: 40.7870, longitude: -73.9754)
    static let museum = Coordinate(latitude: 40.7794, longitude: -73.9632)
    /// 2024-05-04T00:00:00Z.
    static let day: Int64 = 1_714_780_800_000
    static let minute: Int64 = 60_000

    /// A folder of its own for each test, removed when the test process exits.
    static func folder() throws -> String {
        try TemporaryDirectory.forThisRun(prefix: "pickerd-location")
    }

    static func iso(_ ms: Int64, fraction: Bool = false) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = fraction ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// A point `metres` north and east of `c` (deterministic jitter).
    static func offset(_ c: Coordinate, north: Double, east: Double) -> Coordinate {
        Coordinate(latitude: c.latitude + north / 111_320, longitude: c.longitude + east / (111_320 * cos(c.latitude * .pi / 180)))
    }

    /// The day's raw points: home 00:00–12:30 every 10 min, a walk 12:30–12:50 a fix a minute, the
    /// Met 12:50–17:00 every 5 min (with one wild fix 400 m off at 15:00), the walk back 17:00–17:20,
    /// home 17:20–23:50.
    static func dayPoints() -> [(Int64, Coordinate, Int)] {
        var out: [(Int64, Coordinate, Int)] = []
        func jitter(_ i: Int) -> (Double, Double) { (Double((i * 37) % 41) - 20, Double((i * 53) % 43) - 21) }
        func stay(_ c: Coordinate, from: Int64, to: Int64, every: Int64) {
            var t = from, i = 0
            while t <= to {
                let (n, e) = jitter(i)
                out.append((day + t * minute, offset(c, north: n, east: e), 15))
                t += every
                i += 1
            }
        }
        func walk(_ a: Coordinate, _ b: Coordinate, from: Int64) {
            for k in 1..<20 {
                let f = Double(k) / 20
                out.append((day + (from + Int64(k)) * minute,
                            Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * f, longitude: a.longitude + (b.longitude - a.longitude) * f), 8))
            }
        }
        stay(home, from: 0, to: 750, every: 10)
        walk(home, museum, from: 750)
        stay(museum, from: 770, to: 1020, every: 5)
        out.removeAll { $0.0 == day + 900 * minute }
        out.append((day + 900 * minute, offset(museum, north: 400, east: 0), 30))
        out.sort { $0.0 < $1.0 }
        walk(museum, home, from: 1020)
        stay(home, from: 1040, to: 1430, every: 10)
        return out
    }

    /// Records.json as Takeout writes it (two-space indent, `}, {` between records, `timestamp` in
    /// RFC 3339 with or without milliseconds, an `activity` array on moving fixes). Shape: Google
    /// Takeout "Location History (Timeline)/Records.json", as documented by Google's
    /// "Location History JSON" support page and seen in real exports since 2022.
    static func recordsJSON(_ points: [(Int64, Coordinate, Int)]) -> String {
        var s = "{\n  \"locations\": ["
        for (i, (t, c, acc)) in points.enumerated() {
            s += i == 0 ? "{\n" : ", {\n"
            s += "    \"latitudeE7\": \(Int((c.latitude * 1e7).rounded())),\n"
            s += "    \"longitudeE7\": \(Int((c.longitude * 1e7).rounded())),\n"
            s += "    \"accuracy\": \(acc),\n"
            if acc == 8 {
                s += "    \"activity\": [{\n      \"activity\": [{\n        \"type\": \"WALKING\",\n        \"confidence\": 92\n      }, {\n"
                s += "        \"type\": \"ON_FOOT\",\n        \"confidence\": 92\n      }],\n      \"timestamp\": \"\(iso(t, fraction: true))\"\n    }],\n"
            }
            s += "    \"source\": \"WIFI\",\n    \"deviceTag\": 1978796627,\n"
            s += "    \"timestamp\": \"\(iso(t, fraction: i % 2 == 0))\"\n  }"
        }
        return s + "]\n}\n"
    }

    // MARK: Records.json

    @Test func recordsStreamEveryPointAndStaysBecomeVisits() throws {
        let root = try Self.folder()
        let points = Self.dayPoints()
        try Self.recordsJSON(points).write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)

        var streamed: [LocationPoint] = []
        try TakeoutRecords.stream(path: root + "/Records.json") { streamed.append($0) }
        #expect(streamed.count == points.count)
        #expect(streamed[0].timeMs == Self.day)
        #expect(abs(streamed[0].latitude - points[0].1.latitude) < 1e-7)
        #expect(streamed[0].accuracy == 15)
        #expect(streamed.last?.timeMs == Self.day + 1430 * Self.minute)

        let data = try TakeoutRecords.read(path: root + "/Records.json")
        #expect(data.points.isEmpty)
        #expect(data.visits.count == 3, "\(data.visits)")
        guard data.visits.count == 3 else { return }
        let (morning, met, evening) = (data.visits[0], data.visits[1], data.visits[2])
        // Home until the walk; the Met from arrival to leaving, one visit despite the wild fix.
        #expect(morning.startMs == Self.day)
        #expect(abs(morning.endMs - (Self.day + 751 * Self.minute)) <= Self.minute)
        #expect(morning.coordinate.distance(to: Self.home) < 25)
        #expect(abs(met.startMs - (Self.day + 770 * Self.minute)) <= 2 * Self.minute)
        #expect(abs(met.endMs - (Self.day + 1020 * Self.minute)) <= 2 * Self.minute)
        #expect(met.coordinate.distance(to: Self.museum) < 25)
        #expect(evening.coordinate.distance(to: Self.home) < 25)
        #expect(evening.endMs == Self.day + 1430 * Self.minute)
        // No labels in Records.json: the place with the most time is home.
        #expect(morning.semantic == "home" && evening.semantic == "home")
        #expect(met.semantic == nil && met.placeName == nil)
        #expect(data.places.count == 2)
        #expect(data.places.first?.semantic == "home" && data.places.first?.semanticInferred == true)
        #expect(data.places.first?.visitCount == 2)
    }

    @Test func stayDetectionTurnsTheMuseumAfternoonIntoOneVisit() {
        let points = Self.dayPoints().map { LocationPoint(timeMs: $0.0, latitude: $0.1.latitude, longitude: $0.1.longitude, accuracy: Double($0.2)) }
        let visits = StayDetector.visits(from: points)
        let atMet = visits.filter { $0.coordinate.distance(to: Self.museum) < 100 }
        #expect(atMet.count == 1)
        #expect((atMet.first.map { $0.endMs - $0.startMs } ?? 0) >= 245 * Self.minute)
        // The walks are never stays.
        #expect(visits.allSatisfy { $0.endMs - $0.startMs >= 10 * Self.minute })
        #expect(visits.count == 3)

        // Streaming one point at a time gives the same visits.
        var detector = StayDetector()
        var streamed: [ImportedVisit] = []
        for p in points { if let v = detector.add(p) { streamed.append(v) } }
        streamed += detector.finish()
        #expect(streamed == visits)

        // A 5-minute stop is not a visit; points without time or out of order are skipped.
        let short = (0..<6).map { LocationPoint(timeMs: Self.day + Int64($0) * Self.minute, latitude: 40.7, longitude: -73.9) }
        #expect(StayDetector.visits(from: short).isEmpty)
        var d = StayDetector()
        _ = d.add(LocationPoint(timeMs: Self.day, latitude: 1, longitude: 1))
        _ = d.add(LocationPoint(timeMs: Self.day - 1, latitude: 1, longitude: 1))
        _ = d.add(LocationPoint(timeMs: nil, latitude: 1, longitude: 1))
        #expect(d.skippedPoints == 2)
    }

    @Test func significantPlacesKeepTheExportsLabels() {
        let work = Coordinate(latitude: 40.7527, longitude: -73.9772)
        let visits = [
            ImportedVisit(startMs: 0, endMs: 10 * 3_600_000, coordinate: work, semantic: "work"),
            ImportedVisit(startMs: 11 * 3_600_000, endMs: 12 * 3_600_000, coordinate: Self.offset(work, north: 60, east: 40)),
            ImportedVisit(startMs: 13 * 3_600_000, endMs: 20 * 3_600_000, coordinate: Self.home),
        ]
        let places = StayDetector.significantPlaces(from: visits)
        #expect(places.count == 2)
        #expect(places[0].semantic == "work" && places[0].semanticInferred == false && places[0].visitCount == 2)
        #expect(places[1].semantic == "home" && places[1].semanticInferred)
        let labelled = StayDetector.labeled(visits, by: places)
        #expect(labelled.map(\.semantic) == ["work", "work", "home"])
    }

    @Test func olderRecordsWithTimestampMs() throws {
        let root = try Self.folder()
        // The pre-2022 shape: `timestampMs` first, as a string of milliseconds, ` : ` separators.
        let text = """
        {
          "locations" : [ {
            "timestampMs" : "1714817472345",
            "latitudeE7" : 407829000,
            "longitudeE7" : -739654000,
            "accuracy" : 12,
            "altitude" : 35,
            "verticalAccuracy" : 2
          }, {
            "timestampMs" : "1714817532345",
            "latitudeE7" : 3956279296,
            "longitudeE7" : 3555313296,
            "accuracy" : 1400
          } ]
        }
        """
        try text.write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        var points: [LocationPoint] = []
        try TakeoutRecords.stream(path: root + "/Records.json") { points.append($0) }
        #expect(points.count == 2)
        #expect(points[0].timeMs == 1_714_817_472_345)
        #expect(points[0].latitude == 40.7829 && points[0].longitude == -73.9654 && points[0].elevation == 35)
        // Takeout's unsigned-overflow bug: values 2³² too large are read back as negatives.
        #expect(abs(points[1].latitude - -33.8688) < 1e-9 && abs(points[1].longitude - -73.9654) < 1e-9)
    }

}
