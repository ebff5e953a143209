internal import CMedia
import Glibc

/// What the workout readers share: distances on the sphere, ISO 8601 times, coordinate checks, and
/// gzip (Strava's bulk export stores `activities/*.fit.gz`, `*.gpx.gz`, `*.tcx.gz`).
public enum WorkoutFiles {
    /// The mean Earth radius (IUGG), metres.
    static let earthRadius = 6_371_008.8

    /// The largest output ``gunzip(_:file:limit:)`` accepts by default: 64 MiB, far above any real
    /// activity file, far below what a gzip bomb would need to hurt.
    public static let maximumInflatedSize = 64 << 20

    /// The great-circle distance between two points in metres (haversine).
    public static func haversine(_ a: LocationPoint, _ b: LocationPoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h = sin2(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin2(dLon / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// The length of a route in metres: the sum of the haversine distances between its points.
    public static func length(of route: [LocationPoint]) -> Double {
        var total = 0.0
        for index in route.indices.dropFirst() { total += haversine(route[index - 1], route[index]) }
        return total
    }

    /// Whether the bytes start with gzip's magic number (1F 8B).
    public static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B }

    /// Inflates gzip (every member, CRC-checked) or zlib data through zlib, refusing output over
    /// `limit` bytes: a file that expands further is an error naming it, and nothing is kept.
    public static func gunzip(_ bytes: [UInt8], file: String, limit: Int = maximumInflatedSize) throws(ImportError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var outputLength = 0
        var failedAt = 0
        let status = bytes.withUnsafeBufferPointer { input in
            pm_gunzip(input.baseAddress, input.count, limit, &output, &outputLength, &failedAt)
        }
        switch status {
        case PM_GUNZIP_OK:
            defer { pm_gunzip_free(output) }
            guard let output else { return [] }
            return Array(UnsafeBufferPointer(start: output, count: outputLength))
        case PM_GUNZIP_TOO_LARGE:
            throw ImportError(file: file, "gzip data expanding past \(limit >> 20) MiB was refused (a gzip bomb?)")
        case PM_GUNZIP_NO_MEMORY:
            throw ImportError(file: file, "out of memory while inflating gzip data")
        default:
            throw ImportError(file: file, location: "byte \(failedAt)", "corrupt or truncated gzip data")
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
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return seconds * 1000 + Int64(milliseconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The mean of the values, `nil` when there are none.
    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    private static func sin2(_ x: Double) -> Double { let s = sin(x); return s * s }
}
