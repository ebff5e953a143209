import Foundation
import PickerdStore
import PickerdImport

/// Google Maps' own Timeline export on iOS (Maps → Settings → Personal content → Export Timeline
/// data: `location-history.json`): a JSON array of segments, each a visit, an activity or a stretch
/// of `timelinePath`, every number written as a string and every place as a `geo:` URI. (A file of
/// one segment is an object, not an array; both are read.) The shape:
/// ```
/// [{"startTime": "2024-05-04T08:00:00.000-04:00", "endTime": "2024-05-04T12:00:00.000-04:00",
///   "visit": {"hierarchyLevel": "0", "probability": "0.91",
///             "topCandidate": {"semanticType": "Home", "probability": "0.80",
///                              "placeID": "ChIJ…", "placeLocation": "geo:40.782900,-73.965400"}}},
///  {"startTime": "…", "endTime": "…",
///   "activity": {"start": "geo:…", "end": "geo:…", "distanceMeters": "1510.0", "probability": "0.97",
///                "topCandidate": {"type": "walking", "probability": "0.90"}}},
///  {"startTime": "…", "endTime": "…",
///   "timelinePath": [{"point": "geo:40.780100,-73.961200", "durationMinutesOffsetFromStartTime": "5"}]}]
/// ```
/// Visits become ``ImportedVisit``s (with `home`/`work` when labelled, Google's place id, no name:
/// the export has none); running, cycling and hiking activities, and walks of 45 minutes and 3 km or
/// more (``LocationHistory/isWorkout(activity:durationMs:distanceM:)``, as in Takeout's histories),
/// become workouts (format `takeout`) whose route is the start, the `timelinePath` points inside
/// their time, and the end.
/// The file is read whole (bounded by ``ExportImporter/maximumWholeFile``).
enum GoogleMapsLocationHistory {
    /// Reads a `location-history.json`.
    /// - Parameters:
    ///   - path: the file.
    ///   - name: its name, for errors.
    /// - Returns: its visits and workouts.
    /// - Throws: ``ImportError`` naming the segment (`segment 12`) whose time or place cannot be
    ///   read, or the line where the JSON breaks.
    static func read(path: String, name: String) throws(ImportError) -> ImportedData {
        let bytes = try ExportReaders.whole(path, name: name, what: "a location history")
        let root: JSONValue
        do {
            var parser = JSONPullParser(bytes: bytes)
            root = try parser.readValue()
            try parser.finish()
        } catch {
            throw ImportError(file: name, location: "line \(error.line)", error.message)
        }
        let segments: [JSONValue]
        if let array = root.array {
            segments = array
        } else if isSegment(root) {
            segments = [root]
        } else {
            throw ImportError(file: name, "neither an array of Timeline segments nor one segment")
        }
        var data = ImportedData()
        var paths: [(Int64, Coordinate)] = []
        for (index, segment) in segments.enumerated() {
            func fail(_ message: String) -> ImportError { ImportError(file: name, location: "segment \(index)", message) }
            guard let s = segment["startTime"]?.string, let e = segment["endTime"]?.string else {
                throw fail("a segment without startTime and endTime")
            }
            guard let start = LocationHistory.milliseconds(iso: s) else { throw fail("startTime \"\(s)\" is not ISO 8601") }
            guard let end = LocationHistory.milliseconds(iso: e) else { throw fail("endTime \"\(e)\" is not ISO 8601") }
            guard end >= start else { throw fail("a segment that ends before it starts") }
            func place(_ value: JSONValue?, _ what: String) throws(ImportError) -> Coordinate? {
                guard let text = (value?["latLng"] ?? value)?.string else { return nil }
                guard let c = LocationHistory.coordinate(latLng: text) else { throw fail("\(what) \"\(text)\" is not a coordinate in range") }
                return c
            }
            if let visit = segment["visit"] {
                let candidate = visit["topCandidate"]
                guard let c = try place(candidate?["placeLocation"], "placeLocation") else { throw fail("a visit without placeLocation") }
                data.visits.append(ImportedVisit(startMs: start, endMs: end, coordinate: c,
                                                 semantic: LocationHistory.semantic(google: candidate?["semanticType"]?.string?.uppercased()),
                                                 placeID: candidate?["placeID"]?.string ?? candidate?["placeId"]?.string))
            } else if let activity = segment["activity"] {
                let kind = (activity["topCandidate"]?["type"]?.string ?? "").uppercased()
                guard let type = LocationHistory.workoutType(google: kind) else { continue }
                // The same rule as Takeout's and Android's Timeline: a walk is a workout only when
                // long (the way to work or the shops is routine, whichever export recorded it).
                guard LocationHistory.isWorkout(activity: type, durationMs: end - start, distanceM: activity["distanceMeters"]?.double) else { continue }
                var route: [LocationPoint] = []
                for (key, t) in [("start", start), ("end", end)] {
                    if let c = try place(activity[key], "activity \(key)") { route.append(LocationPoint(timeMs: t, latitude: c.latitude, longitude: c.longitude)) }
                }
                data.workouts.append(ImportedWorkout(activityType: type, startMs: start, endMs: end,
                                                     distanceMeters: activity["distanceMeters"]?.double, route: route, format: "takeout"))
            } else if let stretch = segment["timelinePath"]?.array {
                for point in stretch {
                    guard let c = try place(point["point"], "timelinePath point") else { continue }
                    let minutes = point["durationMinutesOffsetFromStartTime"]?.double ?? 0
                    paths.append((start + Int64((minutes * 60_000).rounded()), c))
                }
            }
        }
        // Path points inside a workout's time join its route, between its start and its end.
        for index in data.workouts.indices {
            let w = data.workouts[index]
            let inside = paths.filter { $0.0 > w.startMs && $0.0 < w.endMs }.sorted { $0.0 < $1.0 }
                .map { LocationPoint(timeMs: $0.0, latitude: $0.1.latitude, longitude: $0.1.longitude) }
            guard !inside.isEmpty else { continue }
            var route = w.route
            let last = route.count == 2 ? route.removeLast() : nil
            route += inside
            if let last { route.append(last) }
            data.workouts[index].route = route
        }
        return data
    }

    /// Whether a JSON object is one Timeline segment: times and a visit, an activity or a path.
    static func isSegment(_ value: JSONValue) -> Bool {
        value["startTime"] != nil && value["endTime"] != nil
            && (value["visit"] != nil || value["activity"] != nil || value["timelinePath"] != nil)
    }
}
