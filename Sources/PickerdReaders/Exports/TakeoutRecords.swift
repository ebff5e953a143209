import Glibc
public import PickerdImport

/// Google Takeout's `Location History/Records.json` (also `Location History (Timeline)/Records.json`):
/// every raw fix the phone recorded, often hundreds of MB and a million points. The file is
/// streamed: read in 64 KiB chunks and parsed in place, one location object at a time, so memory
/// stays flat whatever its size.
///
/// The shape (as Takeout writes it; older exports have `timestampMs`, newer `timestamp`):
/// ```
/// {
///   "locations": [{
///     "latitudeE7": 407829000,
///     "longitudeE7": -739654000,
///     "accuracy": 12,
///     "altitude": 35,
///     "activity": [{ "activity": [{ "type": "STILL", "confidence": 100 }], "timestamp": "…" }],
///     "source": "WIFI",
///     "deviceTag": 123456789,
///     "timestamp": "2024-05-04T10:11:12.345Z"
///   }, …]
/// }
/// ```
/// Members other than those read here (activity guesses, velocity, heading, Wi-Fi scans) are skipped.
/// A location without coordinates or time, or with coordinates out of range, is an error naming its
/// record (1-based) and line: nothing of a broken file is imported.
public enum TakeoutRecords {
    /// Streams `path`'s locations.
    /// - Parameters:
    ///   - path: a Records.json.
    ///   - onPoint: called with each location in file order (throwing stops the read).
    /// - Throws: ``ImportError`` naming the file and the line or record: unreadable, empty, not
    ///   JSON or truncated (with the line), a record without coordinates or time or with coordinates
    ///   out of range (with the record), no `locations` array; or what `onPoint` threw.
    public static func stream(path: String, onPoint: (LocationPoint) throws -> Void) throws(ImportError) {
        try withJSONFile(path) { parser in
            var found = false
            try parser.beginObject()
            while try parser.nextKey() {
                guard parser.keyIs("locations") else { try parser.skipValue(); continue }
                found = true
                try parser.beginArray()
                var record = 0
                while try parser.nextElement() {
                    record += 1
                    let line = parser.line
                    let point = try readLocation(&parser, path: path, record: record, line: line)
                    do {
                        try onPoint(point)
                    } catch let e as ImportError {
                        throw e
                    } catch {
                        throw ImportError(file: path, location: "record \(record) (line \(line))", "\(error)")
                    }
                }
            }
            try parser.finish()
            guard found else { throw ImportError(file: path, "has no \"locations\" array: not a Records.json") }
        }
    }

    private static func readLocation(_ parser: inout JSONPullParser, path: String, record: Int, line: Int) throws -> LocationPoint {
        func fail(_ message: String) -> ImportError { ImportError(file: path, location: "record \(record) (line \(line))", message) }
        guard try parser.peekKind() == .object else { throw fail("a location that is not an object") }
        try parser.beginObject()
        var lat: Int64?, lon: Int64?, time: Int64?
        var acc: Double?, alt: Double?
        while try parser.nextKey() {
            if parser.keyIs("latitudeE7") {
                guard let v = try parser.readInt64() else { throw fail("latitudeE7 is not a whole number") }
                lat = v
            } else if parser.keyIs("longitudeE7") {
                guard let v = try parser.readInt64() else { throw fail("longitudeE7 is not a whole number") }
                lon = v
            } else if parser.keyIs("timestamp") {
                guard try parser.peekKind() == .string else { throw fail("timestamp is not a string") }
                try parser.readStringBytes()
                guard let t = LocationHistory.milliseconds(iso: parser.scratch) else {
                    throw fail("timestamp \"\(String(decoding: parser.scratch, as: UTF8.self))\" is not an ISO 8601 time")
                }
                time = t
            } else if parser.keyIs("timestampMs") {
                guard let t = try parser.readInt64() else { throw fail("timestampMs is not a whole number") }
                if time == nil { time = t }
            } else if parser.keyIs("accuracy"), try parser.peekKind() == .number {
                acc = try parser.readDouble()
            } else if parser.keyIs("altitude"), try parser.peekKind() == .number {
                alt = try parser.readDouble()
            } else {
                try parser.skipValue()
            }
        }
        guard let lat, let lon else { throw fail("a location without latitudeE7 and longitudeE7") }
        guard let time else { throw fail("a location without a timestamp") }
        guard let latitude = LocationHistory.degrees(e7: lat, limit: 90) else { throw fail("latitudeE7 \(lat) is out of range (−90…90°)") }
        guard let longitude = LocationHistory.degrees(e7: lon, limit: 180) else { throw fail("longitudeE7 \(lon) is out of range (−180…180°)") }
        return LocationPoint(timeMs: time, latitude: latitude, longitude: longitude, elevation: alt, accuracy: acc)
    }

    /// Reads `path` into visits: its points streamed through a ``StayDetector``, then the
    /// ``StayDetector/significantPlaces(from:radiusMeters:)`` of those visits (Records.json has no
    /// labels: the place with the most time is home) and the visits labelled by them. The raw points
    /// are not kept (a million of them would be the memory streaming avoids); `points` is empty.
    /// Records.json has no place names either: the visits are coordinates only (the
    /// reverse-geocoding gap; Semantic history's visits of the same stays carry names).
    /// - Parameters:
    ///   - path: a Records.json.
    ///   - parameters: how stays are told.
    ///   - progress: told the number of points read, every 10 000 points and at the end.
    /// - Returns: the visits and significant places.
    /// - Throws: as ``stream(path:onPoint:)``.
    public static func read(path: String, parameters: StayDetector.Parameters = .init(),
                            progress: (Int) -> Void = { _ in }) throws(ImportError) -> ImportedData {
        var detector = StayDetector(parameters)
        var visits: [ImportedVisit] = []
        var count = 0
        try stream(path: path) { point in
            if let v = detector.add(point) { visits.append(v) }
            count += 1
            if count % 10_000 == 0 { progress(count) }
        }
        progress(count)
        visits += detector.finish()
        let places = StayDetector.significantPlaces(from: visits)
        return ImportedData(visits: StayDetector.labeled(visits, by: places), places: places)
    }
}
