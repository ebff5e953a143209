import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
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

    /// A folder of its own for each test.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "pickerd-location-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
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

    // MARK: Semantic Location History

    /// A month as Takeout writes it (`Semantic Location History/2024/2024_MAY.json`, 2023–2024
    /// shape: RFC 3339 `startTimestamp`, `semanticType` on `location`, `waypointPath`), from Google
    /// Takeout exports and the field list in Google's "Location History" data description.
    static let semanticMonth = """
    {
      "timelineObjects": [
        {
          "placeVisit": {
            "location": {
              "latitudeE7": 407870000,
              "longitudeE7": -739754000,
              "placeId": "ChIJhomeHOMEhome",
              "address": "101 W 86th St\\nNew York, NY 10024\\nUSA",
              "semanticType": "TYPE_HOME",
              "sourceInfo": { "deviceTag": 1978796627 },
              "locationConfidence": 94.5,
              "calibratedProbability": 94.5
            },
            "duration": { "startTimestamp": "2024-05-04T00:00:00Z", "endTimestamp": "2024-05-04T08:30:00.000Z" },
            "placeConfidence": "HIGH_CONFIDENCE",
            "centerLatE7": 407870100,
            "centerLngE7": -739754100,
            "visitConfidence": 95,
            "otherCandidateLocations": [
              { "latitudeE7": 407871000, "longitudeE7": -739755000, "placeId": "ChIJother", "locationConfidence": 2.1 }
            ],
            "editConfirmationStatus": "NOT_CONFIRMED",
            "placeVisitType": "SINGLE_PLACE",
            "placeVisitImportance": "MAIN"
          }
        },
        {
          "activitySegment": {
            "startLocation": { "latitudeE7": 407870000, "longitudeE7": -739754000, "sourceInfo": { "deviceTag": 1978796627 } },
            "endLocation": { "latitudeE7": 407527000, "longitudeE7": -739772000, "sourceInfo": { "deviceTag": 1978796627 } },
            "duration": { "startTimestamp": "2024-05-04T08:30:00Z", "endTimestamp": "2024-05-04T09:05:00Z" },
            "distance": 3850,
            "activityType": "WALKING",
            "confidence": "HIGH",
            "activities": [
              { "activityType": "WALKING", "probability": 91.3 },
              { "activityType": "IN_PASSENGER_VEHICLE", "probability": 5.2 }
            ],
            "waypointPath": {
              "waypoints": [ { "latE7": 407700000, "lngE7": -739800000 }, { "latE7": 407600000, "lngE7": -739790000 } ],
              "source": "INFERRED",
              "distanceMeters": 3812.4,
              "travelMode": "WALK",
              "confidence": 0.95
            },
            "editConfirmationStatus": "NOT_CONFIRMED"
          }
        },
        {
          "placeVisit": {
            "location": {
              "latitudeE7": 407527000,
              "longitudeE7": -739772000,
              "placeId": "ChIJworkWORKwork",
              "address": "89 E 42nd St, New York, NY 10017, USA",
              "name": "Grand Central Terminal",
              "semanticType": "TYPE_WORK",
              "sourceInfo": { "deviceTag": 1978796627 },
              "locationConfidence": 88.1
            },
            "duration": { "startTimestamp": "2024-05-04T09:05:00Z", "endTimestamp": "2024-05-04T17:30:00Z" },
            "placeConfidence": "HIGH_CONFIDENCE",
            "childVisits": [
              {
                "location": { "latitudeE7": 407528000, "longitudeE7": -739773000, "placeId": "ChIJcafe", "name": "A café" },
                "duration": { "startTimestamp": "2024-05-04T12:00:00Z", "endTimestamp": "2024-05-04T12:30:00Z" }
              }
            ]
          }
        },
        {
          "activitySegment": {
            "startLocation": { "latitudeE7": 407527000, "longitudeE7": -739772000 },
            "endLocation": { "latitudeE7": 407794000, "longitudeE7": -739632000 },
            "duration": { "startTimestampMs": "1714843800000", "endTimestampMs": "1714845600000" },
            "distance": 3300,
            "activityType": "IN_PASSENGER_VEHICLE",
            "confidence": "MEDIUM"
          }
        },
        {
          "placeVisit": {
            "location": {
              "latitudeE7": 407794000,
              "longitudeE7": -739632000,
              "placeId": "ChIJb8Jg9pZYwokR-qHGtvSkLzs",
              "address": "1000 5th Ave, New York, NY 10028, USA",
              "name": "The Metropolitan Museum of Art",
              "semanticType": "TYPE_SEARCHED_ADDRESS"
            },
            "duration": { "startTimestamp": "2024-05-04T18:00:00Z", "endTimestamp": "2024-05-04T20:00:00Z" }
          }
        }
      ]
    }
    """

    @Test func semanticHistoryVisitsAndWalkingSegment() throws {
        let root = try Self.folder() + "/Takeout/Location History (Timeline)/Semantic Location History/2024"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Self.semanticMonth.write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let data = try SemanticLocationHistory.read(path: root + "/2024_MAY.json")

        #expect(data.visits.count == 3)
        guard data.visits.count == 3 else { return }
        let (home, work, met) = (data.visits[0], data.visits[1], data.visits[2])
        #expect(home.semantic == "home" && home.placeID == "ChIJhomeHOMEhome" && home.placeName == nil)
        #expect(home.startMs == Self.day && home.endMs == Self.day + 510 * Self.minute)
        #expect(home.address == "101 W 86th St, New York, NY 10024, USA")
        #expect(home.coordinate.distance(to: Self.home) < 1)
        #expect(work.semantic == "work" && work.placeName == "Grand Central Terminal")
        #expect(work.startMs == Self.day + 545 * Self.minute && work.endMs == Self.day + 1050 * Self.minute)
        #expect(met.semantic == nil && met.placeName == "The Metropolitan Museum of Art")
        #expect(met.coordinate.distance(to: Self.museum) < 1)

        // The 35-minute walk to work is the way there, not a workout; the car ride is not one either.
        #expect(data.workouts.isEmpty, "\(data.workouts)")
        // The same segment run instead of walked is a workout, with its route.
        try Self.semanticMonth.replacingOccurrences(of: "\"WALKING\"", with: "\"RUNNING\"")
            .write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let ran = try SemanticLocationHistory.read(path: root + "/2024_MAY.json")
        #expect(ran.workouts.count == 1)
        let walk = try #require(ran.workouts.first)
        #expect(walk.activityType == 37 && walk.format == "takeout")
        #expect(walk.startMs == Self.day + 510 * Self.minute && walk.endMs == Self.day + 545 * Self.minute)
        #expect(walk.distanceMeters == 3850)
        #expect(walk.route.count == 4)
        #expect(walk.route.first?.timeMs == walk.startMs && walk.route.last?.timeMs == walk.endMs)
        #expect(walk.route[1].latitude == 40.77 && walk.route[1].timeMs == nil)
    }

    // MARK: Timeline.json

    /// The on-device export (Android, Settings → Location → Timeline → Export, 2024 on): shape from
    /// real `Timeline.json` files as published in the open-source converters that read them
    /// (e.g. the "semanticSegments" readers of Dawarich and timeline-viewer projects).
    static let timelineJSON = """
    {
      "semanticSegments": [
        {
          "startTime": "2024-05-04T00:00:00.000-04:00",
          "endTime": "2024-05-04T08:30:00.000-04:00",
          "startTimeTimezoneUtcOffsetMinutes": -240,
          "endTimeTimezoneUtcOffsetMinutes": -240,
          "visit": {
            "hierarchyLevel": 0,
            "probability": 0.85,
            "topCandidate": {
              "placeId": "ChIJhomeHOMEhome",
              "semanticType": "HOME",
              "probability": 0.93,
              "placeLocation": { "latLng": "40.7870000°, -73.9754000°" }
            }
          }
        },
        {
          "startTime": "2024-05-04T08:30:00.000-04:00",
          "endTime": "2024-05-04T09:00:00.000-04:00",
          "startTimeTimezoneUtcOffsetMinutes": -240,
          "endTimeTimezoneUtcOffsetMinutes": -240,
          "activity": {
            "start": { "latLng": "40.7870000°, -73.9754000°" },
            "end": { "latLng": "40.7794000°, -73.9632000°" },
            "distanceMeters": 1310.5,
            "probability": 0.97,
            "topCandidate": { "type": "WALKING", "probability": 0.91 }
          }
        },
        {
          "startTime": "2024-05-04T08:00:00.000-04:00",
          "endTime": "2024-05-04T10:00:00.000-04:00",
          "timelinePath": [
            { "point": "40.7850000°, -73.9720000°", "time": "2024-05-04T08:40:00.000-04:00" },
            { "point": "40.7820000°, -73.9680000°", "time": "2024-05-04T08:50:00.000-04:00" },
            { "point": "40.7794000°, -73.9632000°", "time": "2024-05-04T09:30:00.000-04:00" }
          ]
        },
        {
          "startTime": "2024-05-04T09:00:00.000-04:00",
          "endTime": "2024-05-04T17:00:00.000-04:00",
          "visit": {
            "hierarchyLevel": 0,
            "probability": 0.7,
            "topCandidate": {
              "placeId": "ChIJb8Jg9pZYwokR-qHGtvSkLzs",
              "semanticType": "INFERRED_WORK",
              "probability": 0.6,
              "placeLocation": { "latLng": "40.7794000°, -73.9632000°" }
            }
          }
        },
        {
          "startTime": "2024-05-04T17:00:00.000-04:00",
          "endTime": "2024-05-04T17:20:00.000-04:00",
          "activity": {
            "start": { "latLng": "40.7794000°, -73.9632000°" },
            "end": { "latLng": "40.7870000°, -73.9754000°" },
            "distanceMeters": 2100.0,
            "topCandidate": { "type": "IN_PASSENGER_VEHICLE", "probability": 0.8 }
          }
        }
      ],
      "rawSignals": [
        { "position": { "LatLng": "40.7870100°, -73.9754100°", "accuracyMeters": 13, "altitudeMeters": 30.2, "source": "WIFI", "timestamp": "2024-05-04T07:59:00.000-04:00", "speedMetersPerSecond": 0.0 } },
        { "activityRecord": { "probableActivities": [ { "type": "STILL", "confidence": 0.98 } ], "timestamp": "2024-05-04T07:59:30.000-04:00" } }
      ],
      "userLocationProfile": {
        "frequentPlaces": [ { "placeId": "ChIJhomeHOMEhome", "placeLocation": "40.7870000°, -73.9754000°", "label": "HOME" } ]
      }
    }
    """

    @Test func timelineVisitsWithLabelsAndNoNames() throws {
        let root = try Self.folder()
        try Self.timelineJSON.write(toFile: root + "/Timeline.json", atomically: true, encoding: .utf8)
        var data = try TakeoutTimeline.read(path: root + "/Timeline.json")
        // The half-hour walk of 1.3 km from home to work is the way there, not a workout.
        #expect(data.workouts.isEmpty, "\(data.workouts)")
        // Run instead, the same segment is one.
        try Self.timelineJSON.replacingOccurrences(of: "\"type\": \"WALKING\"", with: "\"type\": \"RUNNING\"")
            .write(toFile: root + "/Timeline.json", atomically: true, encoding: .utf8)
        data = try TakeoutTimeline.read(path: root + "/Timeline.json")
        #expect(data.visits.count == 2)
        guard data.visits.count == 2 else { return }
        // -04:00: midnight in New York is 04:00 UTC.
        #expect(data.visits[0].startMs == Self.day + 240 * Self.minute)
        #expect(data.visits[0].endMs == Self.day + 750 * Self.minute)
        #expect(data.visits[0].semantic == "home" && data.visits[0].placeID == "ChIJhomeHOMEhome")
        #expect(data.visits[0].coordinate.distance(to: Self.home) < 1)
        #expect(data.visits[1].semantic == "work")
        #expect(data.visits.allSatisfy { $0.placeName == nil && $0.address == nil })

        #expect(data.workouts.count == 1)
        let walk = try #require(data.workouts.first)
        #expect(walk.activityType == 37 && walk.distanceMeters == 1310.5 && walk.format == "takeout")
        #expect(walk.startMs == Self.day + 750 * Self.minute && walk.endMs == Self.day + 780 * Self.minute)
        // Start, the two path points inside its half hour (not the one at 09:30), end.
        #expect(walk.route.count == 4)
        #expect(walk.route.map(\.timeMs) == [walk.startMs, Self.day + 760 * Self.minute, Self.day + 770 * Self.minute, walk.endMs])
    }

    // MARK: OwnTracks

    @Test func ownTracksRecorderPoints() throws {
        let root = try Self.folder() + "/rec/alice/phone"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // The Recorder's storage line: time, tab, topic ("*" padded to 18), tab, the app's JSON
        // (owntracks/recorder storage.c and README "The .rec files"; payload per the OwnTracks JSON
        // booklet's `_type: location`).
        var lines: [String] = []
        for i in 0..<16 {
            let tst = Int(Self.day / 1000) + 36_000 + i * 120
            let c = Self.offset(Self.museum, north: Double(i % 3) * 10, east: Double(i % 4) * 8)
            let iso = Self.iso(Int64(tst) * 1000)
            lines.append("\(iso)\t*                 \t{\"_type\":\"location\",\"acc\":12,\"alt\":35,\"batt\":80,\"bs\":1,\"conn\":\"w\",\"lat\":\(c.latitude),\"lon\":\(c.longitude),\"tid\":\"ph\",\"tst\":\(tst),\"vac\":3,\"vel\":0}")
            if i == 5 { lines.append("\(iso)\tlwt               \t{\"_type\":\"lwt\",\"tst\":\(tst)}") }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: root + "/2024-05.rec", atomically: true, encoding: .utf8)
        let data = try OwnTracksRecorder.read(path: root + "/2024-05.rec")
        #expect(data.points.count == 16)
        #expect(data.points.first?.timeMs == Self.day + 600 * Self.minute)
        #expect(data.points.first?.accuracy == 12 && data.points.first?.elevation == 35)
        #expect(data.visits.count == 1)
        #expect(data.visits.first.map { $0.endMs - $0.startMs } == 30 * Self.minute)
        #expect((data.visits.first?.coordinate.distance(to: Self.museum) ?? 1000) < 30)

        let prefix = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/2024-05.rec")).prefix(4096))
        #expect(ExportKind.detect(prefix, name: "2024-05.rec") == .owntracks)
    }

    @Test("OwnTracks waypoints the person named name the stays inside them; a stay outside any, or a malformed waypoint, names nothing")
    func ownTracksWaypoints() throws {
        let root = try Self.folder() + "/rec/alice/phone"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var lines: [String] = []
        let start = Int(Self.day / 1000) + 36_000
        // As the app publishes a region (the OwnTracks JSON booklet's `_type: waypoint`), stored by the Recorder.
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"Kissa Marunouchi\",\"lat\":\(Self.museum.latitude),\"lon\":\(Self.museum.longitude),\"rad\":80,\"tst\":\(start - 60)}")
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"\",\"lat\":1,\"lon\":2}")
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"Nowhere\",\"lat\":95,\"lon\":2}")
        // Half an hour inside the region, then half an hour 2 km away.
        for i in 0..<32 {
            let tst = start + i * 120
            let c = i < 16 ? Self.offset(Self.museum, north: Double(i % 3) * 10, east: Double(i % 4) * 8)
                : Self.offset(Self.museum, north: 2_000 + Double(i % 3) * 10, east: Double(i % 4) * 8)
            lines.append("\(Self.iso(Int64(tst) * 1000))\t*                 \t{\"_type\":\"location\",\"acc\":12,\"lat\":\(c.latitude),\"lon\":\(c.longitude),\"tst\":\(tst)}")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: root + "/2024-06.rec", atomically: true, encoding: .utf8)
        let data = try OwnTracksRecorder.read(path: root + "/2024-06.rec")
        #expect(data.points.count == 32, "waypoints are not points")
        try #require(data.visits.count == 2, "\(data.visits)")
        #expect(data.visits[0].placeName == "Kissa Marunouchi")
        #expect(data.visits[1].placeName == nil, "2 km away is outside the region")
    }

    // MARK: Detection

    @Test func detectionByContentNotName() throws {
        func kind(_ text: String, _ name: String = "foo.txt") -> ExportKind? { ExportKind.detect(Array(text.utf8), name: name) }
        let records = Self.recordsJSON(Array(Self.dayPoints().prefix(40)))
        #expect(kind(records) == .records)
        #expect(kind(String(records.prefix(100))) == .records)
        #expect(kind(Self.semanticMonth, "notes.json") == .semantic)
        #expect(kind(Self.timelineJSON, "export") == .timeline)
        // A key deeper down never counts; a top-level key after another member does.
        #expect(kind("{\"meta\": {\"locations\": []}, \"semanticSegments\": []}") == .timeline)
        #expect(kind("\u{FEFF}\n {\"locations\" : [ ]}") == .records)
        #expect(kind("{\"something\": 1}") == nil)
        #expect(kind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- made by hand -->\n<gpx version=\"1.1\" creator=\"x\">") == .gpx)
        #expect(kind("<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">") == .tcx)
        #expect(kind("<html><body>") == nil)
        #expect(ExportKind.detect([14, 0x20, 0x52, 0x08, 0, 0, 0, 0, 0x2E, 0x46, 0x49, 0x54, 0, 0], name: "a.bin") == .fit)
        #expect(ExportKind.detect([0x1F, 0x8B, 8, 0], name: "x") == .gzip)
        #expect(ExportKind.detect([0x50, 0x4B, 3, 4, 20, 0], name: "x") == .zip)
        #expect(ExportKind.detect([], name: "Records.json") == nil)
        #expect(kind("just some notes\nand more") == nil)
        #expect(kind("2024-05-04T10:11:12Z\t*                 \t{\"_type\":\"location\",\"lat\":1,\"lon\":2,\"tst\":3}\n") == .owntracks)
        // A prefix broken before any key: the name says which reader reports the break.
        #expect(kind("{\"locati", "Records.json") == .records)
        #expect(kind("{\"locati", "x.json") == nil)
    }

    @Test func isoTimesAgreeWithFoundation() {
        for text in ["2024-05-04T10:11:12Z", "2024-05-04T10:11:12.345Z", "2024-02-29T23:59:59.999999+05:30", "1999-12-31T20:00:00-0400",
                     "2024-05-04T10:11:12.1-04:00"] {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let g = ISO8601DateFormatter()
            let date = f.date(from: text) ?? g.date(from: text) ?? g.date(from: text.replacingOccurrences(of: "-0400", with: "-04:00"))
            let expected = date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
            #expect(LocationHistory.milliseconds(iso: text) == expected, "\(text)")
        }
        #expect(LocationHistory.milliseconds(iso: "2024-05-04T10:11:12") == nil)
        #expect(LocationHistory.milliseconds(iso: "2024-13-04T10:11:12Z") == nil)
    }

    // MARK: Bad input

    @Test func truncatedRecordsNamesTheLine() throws {
        let root = try Self.folder()
        let full = Self.recordsJSON(Array(Self.dayPoints().prefix(30)))
        let cut = String(full.prefix(full.count * 2 / 3))
        try cut.write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        let lines = cut.split(separator: "\n", omittingEmptySubsequences: false).count
        var seen = 0
        let error = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in seen += 1 } }
        #expect(error?.location == "line \(lines)")
        #expect(error?.message.contains("truncated") == true)
        #expect(error?.file == root + "/Records.json")
        #expect(throws: ImportError.self) { _ = try TakeoutRecords.read(path: root + "/Records.json") }

        // A Semantic month cut short says its line too.
        let month = String(Self.semanticMonth.prefix(700))
        try month.write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let semanticError = #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        #expect(semanticError?.location == "line \(month.split(separator: "\n", omittingEmptySubsequences: false).count)")

        // Broken syntax: a missing comma.
        try "{\n  \"locations\": [{\n    \"latitudeE7\": 1\n    \"longitudeE7\": 2\n  }]\n}".write(toFile: root + "/bad.json", atomically: true, encoding: .utf8)
        let syntax = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/bad.json") { _ in } }
        #expect(syntax?.location == "line 4")
    }

    @Test func outOfRangeCoordinateNamesTheRecord() throws {
        let root = try Self.folder()
        var points = Array(Self.dayPoints().prefix(5))
        points[2].1 = Coordinate(latitude: 95, longitude: -73.9)
        try Self.recordsJSON(points).write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        var seen = 0
        let error = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in seen += 1 } }
        #expect(error?.location?.hasPrefix("record 3 (line ") == true)
        #expect(error?.message.contains("latitudeE7 950000000 is out of range") == true)
        #expect(error?.description.hasPrefix(root + "/Records.json, record 3") == true)

        let month = Self.semanticMonth.replacingOccurrences(of: "\"longitudeE7\": -739772000,\n          \"placeId\": \"ChIJworkWORKwork\"",
                                                            with: "\"longitudeE7\": -1839772000,\n          \"placeId\": \"ChIJworkWORKwork\"")
        #expect(month != Self.semanticMonth)
        try month.write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let semantic = #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        #expect(semantic?.location?.hasPrefix("timelineObjects[2]") == true)
    }

    @Test func emptyAndWrongFiles() throws {
        let root = try Self.folder()
        try "".write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        let empty = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in } }
        #expect(empty?.message == "the file is empty")
        try "  \n".write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        try "".write(toFile: root + "/x.rec", atomically: true, encoding: .utf8)
        #expect(throws: ImportError.self) { _ = try OwnTracksRecorder.read(path: root + "/x.rec") }
        try "{\"semanticSegments\": []}".write(toFile: root + "/Records2.json", atomically: true, encoding: .utf8)
        let wrong = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records2.json") { _ in } }
        #expect(wrong?.message.contains("no \"locations\"") == true)
        let missing = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/nope.json") { _ in } }
        #expect(missing?.message.hasPrefix("cannot be opened") == true)
        // Empty arrays are fine: nothing to import.
        try "{\"locations\": []}".write(toFile: root + "/Records3.json", atomically: true, encoding: .utf8)
        #expect(try TakeoutRecords.read(path: root + "/Records3.json").visits.isEmpty)
        // A bad OwnTracks line names its line.
        try "2024-05-04T10:11:12Z\t*   \t{\"_type\":\"location\",\"lat\":91,\"lon\":2,\"tst\":3}\n".write(toFile: root + "/y.rec", atomically: true, encoding: .utf8)
        let own = #expect(throws: ImportError.self) { _ = try OwnTracksRecorder.read(path: root + "/y.rec") }
        #expect(own?.location == "line 1")
    }
}
