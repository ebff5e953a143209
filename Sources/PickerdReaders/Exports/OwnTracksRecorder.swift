import Foundation
import Glibc
public import PickerdStore
public import PickerdImport

/// OwnTracks Recorder's month files (`rec/USER/DEVICE/YYYY-MM.rec`): one message per line, the time
/// it was stored, a tab, the topic (`*` for the device's own location, padded with spaces), a tab,
/// and the message's JSON as the app published it. The shape (from the Recorder's storage code and
/// its README, "The .rec files"):
/// ```
/// 2024-05-04T10:11:12Z	*                 	{"_type":"location","tid":"ph","lat":40.78,"lon":-73.96,"tst":1714817472,"acc":12,"alt":35,"batt":80,"vel":0}
/// 2024-05-04T10:11:20Z	lwt               	{"_type":"lwt","tst":1714817400}
/// ```
/// Lines whose fields are separated by spaces instead of tabs are read too. `location` messages
/// become points (`tst` in seconds, `acc`, `alt`); `waypoint` messages (a region the person named in
/// the app: `desc`, `lat`, `lon`, `rad` in metres) name the stays inside them; every other `_type`
/// (`lwt`, `transition`, `card`, `status`) is skipped. The file is read in chunks, a line at a time.
public enum OwnTracksRecorder {
    /// A region the person named in OwnTracks (a `waypoint` message).
    public struct Waypoint: Sendable, Hashable {
        /// Its name ("Home", "Kissa Marunouchi").
        public var name: String
        /// Its centre.
        public var coordinate: Coordinate
        /// Its radius, metres (OwnTracks' `rad`; 0 when it has none).
        public var radiusM: Double
    }

    /// How near a stay must be to a waypoint without a radius to take its name, metres.
    static let waypointReach = 100.0

    /// Streams `path`'s location points in file order.
    /// - Parameters:
    ///   - path: a `.rec` file.
    ///   - onPoint: called with each point (throwing stops the read).
    /// - Throws: ``ImportError`` naming the file and line: a line that is not time, tab, topic, tab,
    ///   JSON; a location without `lat`/`lon`/`tst` or out of range; an empty file.
    public static func stream(path: String, onPoint: (LocationPoint) throws -> Void,
                              onWaypoint: (Waypoint) -> Void = { _ in }) throws(ImportError) {
        let fd = try openForReading(path)
        defer { close(fd) }
        var source = ChunkSource(fd: fd)
        var line: [UInt8] = []
        var number = 0, sawContent = false
        func handle(_ bytes: [UInt8]) throws {
            number += 1
            var text = bytes[...]
            if text.last == 0x0D { text = text.dropLast() }
            guard text.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            sawContent = true
            let message = try parse(text, path: path, line: number)
            if let waypoint = message.waypoint { onWaypoint(waypoint) }
            guard let point = message.point else { return }
            do {
                try onPoint(point)
            } catch let e as ImportError {
                throw e
            } catch {
                throw ImportError(file: path, location: "line \(number)", "\(error)")
            }
        }
        do {
            while try source.fill() {
                let chunk = UnsafeBufferPointer(start: source.storage.pointer, count: source.count)
                var from = 0
                while let nl = chunk[from...].firstIndex(of: 0x0A) {
                    line.append(contentsOf: chunk[from..<nl])
                    try handle(line)
                    line.removeAll(keepingCapacity: true)
                    from = nl + 1
                }
                line.append(contentsOf: chunk[from...])
                guard line.count <= 1 << 20 else { throw ImportError(file: path, location: "line \(number + 1)", "a line longer than 1 MiB") }
            }
            if !line.isEmpty { try handle(line) }
        } catch let e as ImportError {
            throw e
        } catch let e as JSONError {
            throw ImportError(file: path, e.message)
        } catch {
            throw ImportError(file: path, "\(error)")
        }
        guard sawContent else { throw ImportError(file: path, "the file is empty") }
    }

    /// One line's point or waypoint; neither for other messages.
    private static func parse(_ text: ArraySlice<UInt8>, path: String, line: Int) throws(ImportError)
        -> (point: LocationPoint?, waypoint: Waypoint?) {
        func fail(_ message: String) -> ImportError { ImportError(file: path, location: "line \(line)", message) }
        guard let fields = fields(text), LocationHistory.milliseconds(iso: Array(fields.time)) != nil else {
            throw fail("not an OwnTracks Recorder line (time, tab, topic, tab, JSON)")
        }
        var parser = JSONPullParser(bytes: fields.json)
        let message: JSONValue
        do {
            message = try parser.readValue()
            try parser.finish()
        } catch {
            throw fail("its JSON: \(error.message)")
        }
        if message["_type"]?.string == "waypoint" {
            // A region the person named: kept when it is whole; a malformed one names nothing.
            guard let name = message["desc"]?.string?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.count <= 200,
                  let lat = message["lat"]?.double, let lon = message["lon"]?.double, abs(lat) <= 90, abs(lon) <= 180 else { return (nil, nil) }
            let radius = max(0, min(message["rad"]?.double ?? 0, 10_000))
            return (nil, Waypoint(name: name, coordinate: Coordinate(latitude: lat, longitude: lon), radiusM: radius))
        }
        guard message["_type"]?.string == "location" else { return (nil, nil) }
        guard let lat = message["lat"]?.double, let lon = message["lon"]?.double else { throw fail("a location without lat and lon") }
        guard let tst = message["tst"]?.int64 else { throw fail("a location without tst") }
        guard abs(lat) <= 90 else { throw fail("lat \(lat) is out of range (−90…90°)") }
        guard abs(lon) <= 180 else { throw fail("lon \(lon) is out of range (−180…180°)") }
        return (LocationPoint(timeMs: tst * 1_000, latitude: lat, longitude: lon, elevation: message["alt"]?.double, accuracy: message["acc"]?.double), nil)
    }

    /// Stays named by the regions the person named: a stay inside a waypoint's radius (or within
    /// ``waypointReach`` of one without a radius) takes the nearest such waypoint's name.
    static func named(_ visits: [ImportedVisit], by waypoints: [Waypoint]) -> [ImportedVisit] {
        guard !waypoints.isEmpty else { return visits }
        return visits.map { visit in
            guard visit.placeName == nil else { return visit }
            let inside = waypoints.filter { $0.coordinate.distance(to: visit.coordinate) <= max($0.radiusM, Self.waypointReach) }
            guard let nearest = inside.min(by: { $0.coordinate.distance(to: visit.coordinate) < $1.coordinate.distance(to: visit.coordinate) })
            else { return visit }
            var named = visit
            named.placeName = nearest.name
            return named
        }
    }

    /// A Recorder line's time, topic and JSON: separated by tabs as the Recorder writes them, or by
    /// spaces (as a file that went through an editor or `expand`, or was written by another tool,
    /// has them). The JSON is the rest of the line from its first `{`. Nil when the line has no
    /// time, topic and JSON.
    static func fields(_ line: ArraySlice<UInt8>) -> (time: ArraySlice<UInt8>, topic: ArraySlice<UInt8>, json: ArraySlice<UInt8>)? {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        guard let timeEnd = line.firstIndex(where: blank) else { return nil }
        let afterTime = line[timeEnd...].drop(while: blank)
        guard let topicEnd = afterTime.firstIndex(where: blank) else { return nil }
        let json = afterTime[topicEnd...].drop(while: blank)
        guard json.first == UInt8(ascii: "{") else { return nil }
        return (line[..<timeEnd], afterTime[..<topicEnd], json)
    }

    /// Reads a `.rec` file: its points (a month's worth is small enough to keep), in time order, and
    /// the visits a ``StayDetector`` finds in them with their
    /// ``StayDetector/significantPlaces(from:radiusMeters:)`` (OwnTracks has no labels: the place
    /// with the most time is home; a stay is named only by a waypoint the person named around it).
    /// - Parameters:
    ///   - path: the file.
    ///   - parameters: how stays are told.
    /// - Returns: points, visits and places.
    /// - Throws: as ``stream(path:onPoint:)``.
    public static func read(path: String, parameters: StayDetector.Parameters = .init()) throws(ImportError) -> ImportedData {
        var points: [LocationPoint] = []
        var waypoints: [Waypoint] = []
        try stream(path: path, onPoint: { points.append($0) }, onWaypoint: { waypoints.append($0) })
        points.sort { ($0.timeMs ?? 0) < ($1.timeMs ?? 0) }
        let visits = named(StayDetector.visits(from: points, parameters: parameters), by: waypoints)
        let places = StayDetector.significantPlaces(from: visits)
        return ImportedData(visits: StayDetector.labeled(visits, by: places), points: points, places: places)
    }
}
