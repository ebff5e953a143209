import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import Testing

extension LocationHistoryTests {
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

}
