import Foundation
import PickerdStore

/// ISO 6709 locations ("+45.5000-122.6000+012.3/", also degrees-minutes and
/// degrees-minutes-seconds forms: "+4530.00-12236.00/", "+453000-1223600/").
enum ISO6709 {
    /// The coordinate `text` states, `nil` when it is malformed, out of range or exactly 0,0.
    static func parse(_ text: String) -> Coordinate? {
        let b = Array(text.utf8)
        var at = 0
        func component(integerDigitsForDegrees: Int) -> Double? {
            guard at < b.count, b[at] == UInt8(ascii: "+") || b[at] == UInt8(ascii: "-") else { return nil }
            let negative = b[at] == UInt8(ascii: "-")
            at += 1
            var integer: [UInt8] = [], fraction: [UInt8] = []
            while at < b.count, (48...57).contains(b[at]) { integer.append(b[at]); at += 1 }
            if at < b.count, b[at] == UInt8(ascii: ".") {
                at += 1
                while at < b.count, (48...57).contains(b[at]) { fraction.append(b[at]); at += 1 }
            }
            let n = integerDigitsForDegrees
            guard [n, n + 2, n + 4].contains(integer.count) else { return nil }
            func value(_ digits: ArraySlice<UInt8>) -> Double { digits.reduce(0) { $0 * 10 + Double($1 - 48) } }
            let fractionValue = fraction.isEmpty ? 0 : value(fraction[...]) / pow(10, Double(fraction.count))
            var degrees: Double
            switch integer.count - n {
            case 0: degrees = value(integer[...]) + fractionValue
            case 2: degrees = value(integer[0..<n]) + (value(integer[n...]) + fractionValue) / 60
            default:
                degrees = value(integer[0..<n]) + value(integer[n..<(n + 2)]) / 60 + (value(integer[(n + 2)...]) + fractionValue) / 3600
            }
            return negative ? -degrees : degrees
        }
        guard let latitude = component(integerDigitsForDegrees: 2), let longitude = component(integerDigitsForDegrees: 3) else {
            return nil
        }
        return validated(latitude: latitude, longitude: longitude)
    }

    /// The coordinate when it is on Earth and not exactly 0,0 (cameras write 0,0 without a fix).
    static func validated(latitude: Double, longitude: Double) -> Coordinate? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              !(latitude == 0 && longitude == 0) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
