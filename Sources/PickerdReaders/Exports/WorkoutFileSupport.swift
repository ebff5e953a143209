internal import CMedia
import Glibc
import PickerdMoments
import PickerdStore
public import PickerdImport

/// What the workout readers share: distances on the sphere, ISO 8601 times, coordinate checks, and
/// gzip (Strava's bulk export stores `activities/*.fit.gz`, `*.gpx.gz`, `*.tcx.gz`).
public enum WorkoutFiles {
    /// The largest output ``gunzip(_:file:limit:)`` accepts by default: 64 MiB, far above any real
    /// activity file, far below what a gzip bomb would need to hurt.
    public static let maximumInflatedSize = 64 << 20

    /// The great-circle distance between two points in metres (haversine): the store's
    /// ``Coordinate/distance(to:)``, which every other distance in pickerd is.
    public static func haversine(_ a: LocationPoint, _ b: LocationPoint) -> Double {
        Coordinate(latitude: a.latitude, longitude: a.longitude).distance(to: Coordinate(latitude: b.latitude, longitude: b.longitude))
    }

    /// The radius a stop's fixes stay within, in metres (``length(of:)``): above what a phone's or
    /// watch's fixes wander while standing still under open sky (3–5 m per fix, rarely 10 m from
    /// the true place), so a stop is not broken up by its own jitter.
    public static let stopRadiusMeters = 20.0
    /// How long fixes must stay within ``stopRadiusMeters`` to be a stop, in ms: a pause at a
    /// crossing already counts (a run's 20 s of jitter at 1 Hz adds tens of metres).
    public static let stopMinimumMs: Int64 = 20_000
    /// How much longer than its net displacement a stop's point-to-point path must be for it to be
    /// jitter rather than slow walking: a walk, however slow or winding, goes on in one direction
    /// within 20 m (its path is 1–1.5 times its chord); fixes wandering about one place go back and
    /// forth (their path is many times it).
    public static let stopPathRatio = 2.0
    /// The most points one stop is looked for over (a stop longer than this is taken in pieces):
    /// keeps the scan linear in the route's length.
    static let maximumStopPoints = 10_000

    /// The length of a route in metres, as fitness apps measure it: the sum of the haversine
    /// distances between its points, except where the person stood still. Standing still, a GPS
    /// receiver's fixes still wander a few metres each, so summing them adds distance that was
    /// never covered: a 30-minute stop fixed every 5 s with 4 m of jitter a fix adds about 1.4 km,
    /// 14 % of a 10 km hike (and far more at 1 Hz). Fitness apps pause there (Garmin's and
    /// Strava's auto-pause, by speed) or keep only fixes some metres beyond the last one kept
    /// (GPS loggers' distance filter); this does the first by distance and time, as stay-point
    /// detection does (Li et al. 2008):
    ///
    /// - From each point, the longest run of following points that stay within
    ///   ``stopRadiusMeters`` of it (or of the two points' stated accuracies summed, when larger)
    ///   is a **stop** when it lasts at least ``stopMinimumMs`` and its own path is more than
    ///   ``stopPathRatio`` times the straight line from its first point to its last.
    /// - A stop counts only that straight line (where the person went, at most the radius), and
    ///   the walk goes on from its last point; everything else counts point to point (a run of
    ///   points that lasts as long but is no stop, a slow walk, is then passed in one step).
    ///
    /// A run or a ride never stays within 20 m for 20 s, and a slow walk does so without going
    /// back and forth, so a moving track's length is its points' sum, exactly as before (a run at
    /// 3 m/s fixed every second, straight, winding or round a 400 m track, with a receiver's slow
    /// drift of about 1 m, is within 0.5 % of its true length). Points
    /// without times are never a stop. Linear in the route's length: a run of points as long as a
    /// stop is scanned once (at most ``maximumStopPoints`` of them), and a shorter one is at most a
    /// few points at a moving person's pace.
    /// - Parameter route: the points, in order.
    /// - Returns: the length in metres (0 for fewer than two points).
    public static func length(of route: [LocationPoint]) -> Double {
        guard route.count > 1 else { return 0 }
        var total = 0.0
        var i = 0
        while i < route.count - 1 {
            // The run of points after route[i] that stay within the radius of it, and its path.
            var j = i
            var path = 0.0
            while j + 1 < route.count, j + 1 - i <= maximumStopPoints {
                let radius = max(stopRadiusMeters, (route[i].accuracy ?? 0) + (route[j + 1].accuracy ?? 0))
                guard haversine(route[i], route[j + 1]) <= radius else { break }
                path += haversine(route[j], route[j + 1])
                j += 1
            }
            if j > i + 1, let start = route[i].timeMs, let end = route[j].timeMs, end - start >= stopMinimumMs {
                // Long enough: a stop counts its chord; a slow walk its path, as point by point,
                // and the scan goes on from its end (fixes repeated unchanged would otherwise be
                // scanned again from each of them).
                let chord = haversine(route[i], route[j])
                total += path > stopPathRatio * chord ? chord : path
                i = j
            } else {
                total += haversine(route[i], route[i + 1])
                i += 1
            }
        }
        return total
    }

    /// Whether the bytes start with gzip's magic number (1F 8B).
    public static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B }

    /// Inflates gzip (every member, CRC-checked) or zlib data through zlib, refusing output over
    /// `limit` bytes: a file that expands further is an error naming it, and nothing is kept.
    public static func gunzip(_ bytes: [UInt8], file: String, limit: Int = maximumInflatedSize) throws(ImportError) -> [UInt8] {
        switch BoundedInflate.run(bytes, raw: false, limit: limit) {
        case .inflated(let output): return output
        case .tooLarge: throw ImportError(file: file, "gzip data expanding past \(limit >> 20) MiB was refused (a gzip bomb?)")
        case .noMemory: throw ImportError(file: file, "out of memory while inflating gzip data")
        case .corrupt(let at): throw ImportError(file: file, location: "byte \(at)", "corrupt or truncated gzip data")
        }
    }

    /// The bytes, inflated first when they are gzip.
    static func inflatedIfGzip(_ bytes: [UInt8], file: String) throws(ImportError) -> [UInt8] {
        isGzip(bytes) ? try gunzip(bytes, file: file) : bytes
    }

    /// Checks a coordinate: both finite, latitude within −90…90, longitude within −180…180.
    static func checkCoordinate(latitude: Double, longitude: Double, file: String, location: @autoclosure () -> String, what: String) throws(ImportError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw ImportError(file: file, location: location(), "\(what)'s latitude \(latitude) is out of range (−90…90)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw ImportError(file: file, location: location(), "\(what)'s longitude \(longitude) is out of range (−180…180)")
        }
    }

    /// Reads an ISO 8601 / XML Schema date-time ("2024-05-04T11:30:00Z", "…00.250Z",
    /// "…07:30:00-04:00"; without a zone, UTC) as ms since 1970; `nil` when it is not one.
    public static func parseISO8601(_ text: String) -> Int64? {
        let s = Array(text.workoutTrimmed().utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                guard (48...57).contains(s[i]) else { return nil }
                value = value * 10 + Int(s[i] - 48)
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard i < s.count, s[i] == byte else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), i < s.count, s[i] == UInt8(ascii: "T") || s[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59, second <= 60 else { return nil }
        var milliseconds = 0
        if i < s.count, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 100
            let start = i
            while i < s.count, (48...57).contains(s[i]) {
                milliseconds += Int(s[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetSeconds = 0
        if i < s.count {
            if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
                i += 1
            } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let offsetHours = number(2) else { return nil }
                _ = expect(UInt8(ascii: ":"))
                guard let offsetMinutes = number(2) else { return nil }
                offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            }
            guard i == s.count else { return nil }
        }
        let days = Civil.days(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return seconds * 1000 + Int64(milliseconds)
    }

    /// The mean of the values, `nil` when there are none.
    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

}

/// zlib's inflate with its output bounded (CMedia's `pm_gunzip` and `pm_inflate_raw`), for gzip
/// files and zip entries alike: the bytes, or why not. Callers say what it means for their file.
enum BoundedInflate {
    /// The inflated bytes.
    case inflated([UInt8])
    /// The output would pass the limit: nothing was kept.
    case tooLarge
    /// Memory ran out, at this input offset.
    case noMemory(at: Int)
    /// Not deflate data, a bad checksum, or data that ends early, at this input offset.
    case corrupt(at: Int)

    /// Inflates `bytes`: gzip or zlib data, or with `raw` one raw deflate stream (a zip entry's).
    static func run(_ bytes: [UInt8], raw: Bool, limit: Int) -> BoundedInflate {
        var output: UnsafeMutablePointer<UInt8>?
        var outputLength = 0
        var failedAt = 0
        let status = bytes.withUnsafeBufferPointer { input in
            raw ? pm_inflate_raw(input.baseAddress, input.count, limit, &output, &outputLength, &failedAt)
                : pm_gunzip(input.baseAddress, input.count, limit, &output, &outputLength, &failedAt)
        }
        switch status {
        case PM_GUNZIP_OK:
            defer { pm_gunzip_free(output) }
            guard let output else { return .inflated([]) }
            return .inflated(Array(UnsafeBufferPointer(start: output, count: outputLength)))
        case PM_GUNZIP_TOO_LARGE: return .tooLarge
        case PM_GUNZIP_NO_MEMORY: return .noMemory(at: failedAt)
        default: return .corrupt(at: failedAt)
        }
    }
}
