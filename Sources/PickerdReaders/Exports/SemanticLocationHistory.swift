import Foundation
import PickerdStore
public import PickerdImport

/// Google Takeout's `Location History/Semantic Location History/YYYY/YYYY_MONTH.json`: Google's own
/// reading of a month, as `timelineObjects` that are each a `placeVisit` or an `activitySegment`.
///
/// The shape (as Takeout writes it; older months have `startTimestampMs`/`endTimestampMs` strings):
/// ```
/// {"timelineObjects": [
///   {"placeVisit": {
///     "location": {"latitudeE7": 407794000, "longitudeE7": -739632000, "placeId": "ChIJ…",
///                  "address": "1000 5th Ave, New York, NY 10028, USA", "name": "The Met",
///                  "semanticType": "TYPE_HOME", "sourceInfo": {"deviceTag": 1}, "locationConfidence": 91.2},
///     "duration": {"startTimestamp": "2024-05-04T13:00:00.000Z", "endTimestamp": "2024-05-04T17:00:00Z"},
///     "placeConfidence": "HIGH_CONFIDENCE", "centerLatE7": 407794100, "centerLngE7": -739632100,
///     "otherCandidateLocations": […], "childVisits": […]}},
///   {"activitySegment": {
///     "startLocation": {"latitudeE7": …, "longitudeE7": …}, "endLocation": {…},
///     "duration": {"startTimestamp": "…", "endTimestamp": "…"},
///     "distance": 1510, "activityType": "WALKING", "confidence": "HIGH",
///     "activities": [{"activityType": "WALKING", "probability": 92.1}, …],
///     "waypointPath": {"waypoints": [{"latE7": …, "lngE7": …}], "distanceMeters": 1498.2},
///     "simplifiedRawPath": {"points": [{"latE7": …, "lngE7": …, "accuracyMeters": 10, "timestamp": "…"}]}}}
/// ]}
/// ```
/// Visits become ``ImportedVisit``s with the place's name, address, id and `home`/`work` label
/// (`TYPE_HOME`/`TYPE_WORK`); `childVisits` (a shop inside a mall already visited) are left out so
/// no time counts twice. Running, cycling and hiking segments, and walks of 45 minutes and 3 km or
/// more, become ``ImportedWorkout``s (format `takeout`; route: the start, the waypoints or timed raw
/// path, the end); shorter walks (the way to the café), vehicles, flights, being still and any
/// segment of 12 hours or more are not workouts and are left out.
public enum SemanticLocationHistory {
    /// Reads a month file.
    /// - Parameter path: the file.
    /// - Returns: its visits and workouts.
    /// - Throws: ``ImportError`` naming the file and line (bad JSON, truncation) or the timeline
    ///   object (`timelineObjects[3]`) with a coordinate out of range or a time that is not ISO 8601.
    public static func read(path: String) throws(ImportError) -> ImportedData {
        var data = ImportedData()
        try withJSONFile(path) { parser in
            let found = try forEachElement(of: "timelineObjects", in: &parser) { parser, index, line in
                let object = try parser.readValue()
                let context = Context(file: path, location: "timelineObjects[\(index)] (line \(line))")
                if let visit = object["placeVisit"] {
                    if let v = try context.visit(visit) { data.visits.append(v) }
                } else if let segment = object["activitySegment"] {
                    if let w = try context.workout(segment) { data.workouts.append(w) }
                }
            }
            guard found else { throw ImportError(file: path, "has no \"timelineObjects\" array: not a Semantic Location History month") }
        }
        return data
    }

    /// Reading one timeline object, with where it is for errors.
    struct Context {
        var file: String
        var location: String

        func fail(_ message: String) -> ImportError { ImportError(file: file, location: location, message) }

        /// A coordinate from an object with `latitudeE7`/`longitudeE7` (or `latE7`/`lngE7`).
        func coordinate(_ value: JSONValue?, _ what: String) throws(ImportError) -> Coordinate? {
            guard let value else { return nil }
            guard let lat = (value["latitudeE7"] ?? value["latE7"])?.int64,
                  let lon = (value["longitudeE7"] ?? value["lngE7"])?.int64 else { return nil }
            guard let latitude = LocationHistory.degrees(e7: lat, limit: 90) else { throw fail("\(what) latitudeE7 \(lat) is out of range (−90…90°)") }
            guard let longitude = LocationHistory.degrees(e7: lon, limit: 180) else { throw fail("\(what) longitudeE7 \(lon) is out of range (−180…180°)") }
            return Coordinate(latitude: latitude, longitude: longitude)
        }

        /// A time: an ISO 8601 string, or milliseconds as a string of digits.
        func time(_ value: JSONValue?, _ what: String) throws(ImportError) -> Int64? {
            guard let value else { return nil }
            if let s = value.string, let t = LocationHistory.milliseconds(iso: s) { return t }
            if let t = value.int64 { return t }
            throw fail("\(what) is not an ISO 8601 time")
        }

        /// A duration's start and end.
        func span(_ duration: JSONValue?) throws(ImportError) -> (Int64, Int64) {
            guard let duration,
                  let start = try time(duration["startTimestamp"] ?? duration["startTimestampMs"], "startTimestamp"),
                  let end = try time(duration["endTimestamp"] ?? duration["endTimestampMs"], "endTimestamp") else {
                throw fail("a duration without startTimestamp and endTimestamp")
            }
            guard end >= start else { throw fail("a duration that ends before it starts") }
            return (start, end)
        }

        func visit(_ visit: JSONValue) throws(ImportError) -> ImportedVisit? {
            let location = visit["location"]
            let (start, end) = try span(visit["duration"])
            var found = try coordinate(location, "location")
            if found == nil { found = try coordinate(centre(visit), "centre") }
            guard let coordinate = found else { throw fail("a placeVisit without a location") }
            let address = location?["address"]?.string.map { $0.split(separator: "\n").joined(separator: ", ") }
            return ImportedVisit(startMs: start, endMs: end, coordinate: coordinate, placeName: location?["name"]?.string.flatMap(nonEmpty),
                                 address: address.flatMap(nonEmpty), semantic: LocationHistory.semantic(google: location?["semanticType"]?.string),
                                 placeID: location?["placeId"]?.string.flatMap(nonEmpty))
        }

        private func centre(_ visit: JSONValue) -> JSONValue? {
            guard let lat = visit["centerLatE7"], let lon = visit["centerLngE7"] else { return nil }
            return .object(["latitudeE7": lat, "longitudeE7": lon])
        }

        private func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

        func workout(_ segment: JSONValue) throws(ImportError) -> ImportedWorkout? {
            let type = segment["activityType"]?.string ?? segment["activities"]?.array?.first?["activityType"]?.string ?? ""
            guard let activity = LocationHistory.workoutType(google: type) else { return nil }
            let (start, end) = try span(segment["duration"])
            let distance = segment["distance"]?.double ?? segment["waypointPath"]?["distanceMeters"]?.double
            guard LocationHistory.isWorkout(activity: activity, durationMs: end - start, distanceM: distance) else { return nil }
            var route: [LocationPoint] = []
            if let s = try coordinate(segment["startLocation"], "startLocation") {
                route.append(LocationPoint(timeMs: start, latitude: s.latitude, longitude: s.longitude))
            }
            if let raw = segment["simplifiedRawPath"]?["points"]?.array, !raw.isEmpty {
                var points: [LocationPoint] = []
                for p in raw {
                    guard let c = try coordinate(p, "simplifiedRawPath point") else { continue }
                    let t = try time(p["timestamp"] ?? p["timestampMs"], "simplifiedRawPath timestamp")
                    points.append(LocationPoint(timeMs: t, latitude: c.latitude, longitude: c.longitude, accuracy: p["accuracyMeters"]?.double))
                }
                route += points.sorted { ($0.timeMs ?? 0) < ($1.timeMs ?? 0) }
            } else if let waypoints = segment["waypointPath"]?["waypoints"]?.array {
                for p in waypoints {
                    guard let c = try coordinate(p, "waypoint") else { continue }
                    route.append(LocationPoint(timeMs: nil, latitude: c.latitude, longitude: c.longitude))
                }
            }
            if let e = try coordinate(segment["endLocation"], "endLocation") {
                route.append(LocationPoint(timeMs: end, latitude: e.latitude, longitude: e.longitude))
            }
            return ImportedWorkout(activityType: activity, startMs: start, endMs: end, distanceMeters: distance, route: route, format: "takeout")
        }
    }
}
