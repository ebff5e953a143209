import Foundation
import PickerdStore
public import PickerdImport

/// The newer on-device Timeline export (`Timeline.json`, from Android's Settings → Location →
/// Timeline → Export, since Google moved Timeline off its servers in 2024): `semanticSegments`, each
/// a visit, an activity or a stretch of `timelinePath`; then `rawSignals` and `userLocationProfile`,
/// which are skipped (streamed past, never held).
///
/// The shape (as Android writes it):
/// ```
/// {"semanticSegments": [
///   {"startTime": "2024-05-04T00:00:00.000-04:00", "endTime": "2024-05-04T08:00:00.000-04:00",
///    "startTimeTimezoneUtcOffsetMinutes": -240, "endTimeTimezoneUtcOffsetMinutes": -240,
///    "visit": {"hierarchyLevel": 0, "probability": 0.9,
///              "topCandidate": {"placeId": "ChIJ…", "semanticType": "HOME", "probability": 0.8,
///                               "placeLocation": {"latLng": "40.7829000°, -73.9654000°"}}}},
///   {"startTime": "…", "endTime": "…",
///    "activity": {"start": {"latLng": "…"}, "end": {"latLng": "…"}, "distanceMeters": 1510.2,
///                 "probability": 0.97, "topCandidate": {"type": "WALKING", "probability": 0.9}}},
///   {"startTime": "…", "endTime": "…",
///    "timelinePath": [{"point": "40.7801000°, -73.9612000°", "time": "2024-05-04T08:05:00.000-04:00"}]}
/// ],
///  "rawSignals": […], "userLocationProfile": {…}}
/// ```
///
/// **The reverse-geocoding gap**: this format has no place names or addresses, only Google's place
/// ids and coordinates, and pickerd has no geocoder (no network by design); its visits carry
/// `placeID` and `home`/`work` labels (`HOME`, `WORK`, `INFERRED_HOME`, `INFERRED_WORK`) but no
/// `placeName`. A Semantic history visit of the same stay, when the person has one, brings the name.
///
/// Walking, running, cycling and hiking activities become ``ImportedWorkout``s (format `takeout`),
/// their route the start, the `timelinePath` points inside their time, and the end. The file is
/// read twice, both times streamed: visits and workouts first, then the path points for them.
public enum TakeoutTimeline {
    /// Reads a Timeline.json.
    /// - Parameter path: the file.
    /// - Returns: its visits and workouts.
    /// - Throws: ``ImportError`` naming the file and line (bad JSON, truncation) or the segment
    ///   (`semanticSegments[12]`) with a coordinate or time that cannot be read.
    public static func read(path: String) throws(ImportError) -> ImportedData {
        var data = ImportedData()
        try withJSONFile(path) { parser in
            let found = try forEachElement(of: "semanticSegments", in: &parser) { parser, index, line in
                let segment = try parser.readValue()
                let context = SemanticLocationHistory.Context(file: path, location: "semanticSegments[\(index)] (line \(line))")
                if let visit = segment["visit"] {
                    let (start, end) = try span(segment, context)
                    let candidate = visit["topCandidate"]
                    guard let text = (candidate?["placeLocation"]?["latLng"] ?? candidate?["placeLocation"])?.string else {
                        throw context.fail("a visit without placeLocation")
                    }
                    guard let c = LocationHistory.coordinate(latLng: text) else { throw context.fail("placeLocation \"\(text)\" is not a coordinate in range") }
                    data.visits.append(ImportedVisit(startMs: start, endMs: end, coordinate: c,
                                                     semantic: LocationHistory.semantic(google: candidate?["semanticType"]?.string),
                                                     placeID: candidate?["placeId"]?.string ?? candidate?["placeID"]?.string))
                } else if let activity = segment["activity"] {
                    guard let type = LocationHistory.workoutType(google: activity["topCandidate"]?["type"]?.string ?? "") else { return }
                    let (start, end) = try span(segment, context)
                    guard LocationHistory.isWorkout(activity: type, durationMs: end - start, distanceM: activity["distanceMeters"]?.double) else { return }
                    var route: [LocationPoint] = []
                    for (key, t) in [("start", start), ("end", end)] {
                        guard let text = (activity[key]?["latLng"] ?? activity[key])?.string else { continue }
                        guard let c = LocationHistory.coordinate(latLng: text) else { throw context.fail("activity \(key) \"\(text)\" is not a coordinate in range") }
                        route.append(LocationPoint(timeMs: t, latitude: c.latitude, longitude: c.longitude))
                    }
                    data.workouts.append(ImportedWorkout(activityType: type, startMs: start, endMs: end,
                                                         distanceMeters: activity["distanceMeters"]?.double, route: route, format: "takeout"))
                } else {
                    _ = try span(segment, context)
                }
            }
            guard found else { throw ImportError(file: path, "has no \"semanticSegments\" array: not a Timeline.json") }
        }
        guard !data.workouts.isEmpty else { return data }

        // The second pass: timelinePath points inside a workout's time join its route.
        let windows = data.workouts.enumerated().map { ($0.element.startMs, $0.element.endMs, $0.offset) }.sorted { $0.0 < $1.0 }
        var inside: [Int: [LocationPoint]] = [:]
        try withJSONFile(path) { parser in
            _ = try forEachElement(of: "semanticSegments", in: &parser) { parser, index, line in
                let segment = try parser.readValue()
                guard let stretch = segment["timelinePath"]?.array else { return }
                let context = SemanticLocationHistory.Context(file: path, location: "semanticSegments[\(index)] (line \(line))")
                for p in stretch {
                    guard let text = p["point"]?.string, let timeText = p["time"]?.string else { continue }
                    guard let t = LocationHistory.milliseconds(iso: timeText) else { throw context.fail("timelinePath time \"\(timeText)\" is not ISO 8601") }
                    guard let c = LocationHistory.coordinate(latLng: text) else { throw context.fail("timelinePath point \"\(text)\" is not a coordinate in range") }
                    // The last window starting at or before t.
                    var lo = 0, hi = windows.count
                    while lo < hi { let mid = (lo + hi) / 2; if windows[mid].0 <= t { lo = mid + 1 } else { hi = mid } }
                    var k = lo - 1
                    while k >= 0 {
                        if windows[k].1 >= t { inside[windows[k].2, default: []].append(LocationPoint(timeMs: t, latitude: c.latitude, longitude: c.longitude)) }
                        if windows[k].0 < t - 86_400_000 { break }
                        k -= 1
                    }
                }
            }
        }
        for (i, points) in inside {
            var route = data.workouts[i].route
            let w = data.workouts[i]
            let endsAtEnd = route.count == 2 || (route.count == 1 && route[0].timeMs == w.endMs && w.startMs != w.endMs)
            let end = endsAtEnd ? route.removeLast() : nil
            route += points.sorted { ($0.timeMs ?? 0) < ($1.timeMs ?? 0) }
            if let end { route.append(end) }
            data.workouts[i].route = route
        }
        return data
    }

    private static func span(_ segment: JSONValue, _ context: SemanticLocationHistory.Context) throws(ImportError) -> (Int64, Int64) {
        guard let s = segment["startTime"]?.string, let e = segment["endTime"]?.string else {
            throw context.fail("a segment without startTime and endTime")
        }
        guard let start = LocationHistory.milliseconds(iso: s) else { throw context.fail("startTime \"\(s)\" is not ISO 8601") }
        guard let end = LocationHistory.milliseconds(iso: e) else { throw context.fail("endTime \"\(e)\" is not ISO 8601") }
        guard end >= start else { throw context.fail("a segment that ends before it starts") }
        return (start, end)
    }
}
