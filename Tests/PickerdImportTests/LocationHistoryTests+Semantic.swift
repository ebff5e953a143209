import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import Testing

extension LocationHistoryTests {
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

}
