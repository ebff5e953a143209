import Foundation
import PickerdMoments
import PickerdStore
import PickerdImport

/// What the location-history readers share: times as Google and OwnTracks write them, E7
/// coordinates, activity types.
enum LocationHistory {
    /// Milliseconds since 1970 of an ISO 8601 / RFC 3339 time: `2024-05-04T10:11:12Z`,
    /// `2024-05-04T10:11:12.345Z`, `2024-05-04T10:11:12.000-04:00` (a fraction of any length; the
    /// zone `Z`, `±HH:MM` or `±HHMM`). A time without a zone is refused (nil): it would be a guess.
    static func milliseconds(iso bytes: [UInt8]) -> Int64? {
        let n = bytes.count
        guard n >= 20 else { return nil }
        func num(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for k in at..<(at + count) {
                let d = bytes[k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        guard let year = num(0, 4), bytes[4] == UInt8(ascii: "-"), let month = num(5, 2), bytes[7] == UInt8(ascii: "-"),
              let day = num(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              let hour = num(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = num(14, 2), bytes[16] == UInt8(ascii: ":"),
              let second = num(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        var i = 19, millis = 0
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                if digits < 3 { millis = millis * 10 + Int(bytes[i] - UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        guard i < n else { return nil }
        var offsetMinutes = 0
        switch bytes[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            guard i + 3 <= n, let h = num(i + 1, 2) else { return nil }
            i += 3
            if i < n, bytes[i] == UInt8(ascii: ":") { i += 1 }
            guard i + 2 <= n, let m = num(i, 2), h < 24, m < 60 else { return nil }
            i += 2
            offsetMinutes = sign * (h * 60 + m)
        default:
            return nil
        }
        guard i == n else { return nil }
        let days = Civil.days(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1_000 + Int64(millis)
    }

    /// ``milliseconds(iso:)`` of a string.
    static func milliseconds(iso string: String) -> Int64? { milliseconds(iso: Array(string.utf8)) }

    /// Degrees of an E7 value (degrees × 10⁷) as Google writes them. Some Records.json files hold
    /// values written as unsigned 32-bit numbers (a known Takeout bug: 4 294 967 296 too many);
    /// those are corrected. nil when the result is outside `limit` (90 for latitudes, 180 for
    /// longitudes).
    static func degrees(e7: Int64, limit: Double) -> Double? {
        var v = e7
        if v > Int64(Int32.max), v <= Int64(UInt32.max) { v -= 1 << 32 }
        let d = Double(v) / 1e7
        return abs(d) <= limit ? d : nil
    }

    /// HealthKit's `HKWorkoutActivityType` raw value for a Google activity type, or nil when it is
    /// not a workout (vehicles, flights, being still).
    static func workoutType(google: String) -> UInt32? {
        switch google {
        case "WALKING", "ON_FOOT", "WALKING_NORDIC": return HealthKitActivity.walking
        case "RUNNING": return HealthKitActivity.running
        case "CYCLING", "ON_BICYCLE": return HealthKitActivity.cycling
        case "HIKING": return HealthKitActivity.hiking
        default: return nil
        }
    }

    /// Whether a segment of Google's location history is a workout: its activity is one (see
    /// ``workoutType(google:)``), it lasts less than 12 hours, and a walk is long (45 minutes and
    /// 3 km): Google's segments are every way from A to B, and the walk to the café is routine.
    /// - Parameters:
    ///   - activity: the HealthKit activity type of the segment.
    ///   - durationMs: how long it lasted.
    ///   - distanceM: how far it went, when the export says.
    static func isWorkout(activity: UInt32, durationMs: Int64, distanceM: Double?) -> Bool {
        if durationMs >= 12 * 3_600_000 { return false }
        return activity != HealthKitActivity.walking || (durationMs >= 45 * 60_000 && (distanceM ?? 0) >= 3_000)
    }

    /// `home` or `work` for Google's semantic types (`TYPE_HOME`, `HOME`, `INFERRED_HOME`, …).
    static func semantic(google: String?) -> String? {
        switch google {
        case "TYPE_HOME", "HOME", "INFERRED_HOME": return "home"
        case "TYPE_WORK", "WORK", "INFERRED_WORK": return "work"
        default: return nil
        }
    }

    /// A coordinate from Timeline.json's text: `"40.7829000°, -73.9654000°"`, or `"geo:40.78,-73.96"`.
    static func coordinate(latLng text: String) -> Coordinate? {
        var s = Substring(text)
        if s.hasPrefix("geo:") { s = s.dropFirst(4) }
        let parts = s.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func value(_ part: Substring) -> Double? {
            Double(part.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "°", with: ""))
        }
        guard let lat = value(parts[0]), let lon = value(parts[1]), abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

/// Reads a file made of top-level members, handing each element of the array under `arrayKey` to
/// `element` whole (a timeline object, a semantic segment) and skipping every other member.
/// - Returns: whether the array was there.
func forEachElement(of arrayKey: StaticString, in parser: inout JSONPullParser,
                    _ element: (inout JSONPullParser, _ index: Int, _ line: Int) throws -> Void) throws -> Bool {
    try parser.beginObject()
    var found = false
    while try parser.nextKey() {
        if parser.keyIs(arrayKey), try parser.peekKind() == .array {
            found = true
            try parser.beginArray()
            var index = 0
            while try parser.nextElement() {
                _ = try parser.peekKind()
                try element(&parser, index, parser.line)
                index += 1
            }
        } else {
            try parser.skipValue()
        }
    }
    try parser.finish()
    return found
}
