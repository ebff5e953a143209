import Foundation
import Glibc
import PickerdMoments

/// Dates as files write them.
enum MediaDates {
    /// An EXIF date ("YYYY:MM:DD HH:MM:SS") in ms since 1970: read at `offset` seconds from UTC when
    /// given, else in `timeZone`. `nil` for an empty or impossible date ("0000:00:00 00:00:00").
    static func exif(_ text: String, subSeconds: String?, offset: Int32?, timeZone: TimeZone) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 19, let fields = dateFields(b) else { return nil }
        var ms = localSeconds(fields) * 1000 + Int64(fraction(subSeconds.map { Array($0.utf8) } ?? []))
        if let offset {
            ms -= Int64(offset) * 1000
        } else {
            ms = utcMs(localMs: ms, in: timeZone)
        }
        return ms
    }

    /// An ISO 8601 date ("2024-05-04T10:11:13+0200", "2024-05-04T08:11:13.000000Z") in ms since
    /// 1970, with the offset it states; a date without an offset is read in `timeZone` (offset `nil`).
    static func iso8601(_ text: String, timeZone: TimeZone) -> (ms: Int64, offset: Int32?)? {
        let b = Array(text.utf8)
        guard b.count >= 19, let fields = dateFields(b) else { return nil }
        var at = 19
        var fractionDigits: [UInt8] = []
        if at < b.count, b[at] == UInt8(ascii: ".") || b[at] == UInt8(ascii: ",") {
            at += 1
            while at < b.count, (48...57).contains(b[at]) { fractionDigits.append(b[at]); at += 1 }
        }
        let local = localSeconds(fields) * 1000 + Int64(fraction(fractionDigits))
        let rest = String(decoding: b[at...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return (utcMs(localMs: local, in: timeZone), nil) }
        guard let offset = offsetSeconds(rest) else { return nil }
        return (local - Int64(offset) * 1000, offset)
    }

    /// "+02:00", "+0200", "-07", "Z" in seconds east of UTC.
    static func offsetSeconds(_ text: String) -> Int32? {
        let b = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        if b == [UInt8(ascii: "Z")] || b == [UInt8(ascii: "z")] { return 0 }
        guard let sign = b.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let d = digits.map { Int32($0 - 48) }
        let hours = d[0] * 10 + d[1], minutes = d.count == 4 ? d[2] * 10 + d[3] : 0
        guard hours <= 18, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Year, month, day, hour, minute, second from "YYYY?MM?DD?HH?MM?SS" (any separators).
    private static func dateFields(_ b: [UInt8]) -> [Int]? {
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19) else { return nil }
        guard y >= 1800, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s <= 60 else { return nil }
        return [y, mo, d, h, mi, s]
    }

    /// Seconds since 1970 of a date and time read as if in UTC.
    private static func localSeconds(_ f: [Int]) -> Int64 {
        Int64(Civil.days(year: f[0], month: f[1], day: f[2])) * 86_400 + Int64(f[3] * 3600 + f[4] * 60 + f[5])
    }

    /// Milliseconds from a second's fraction digits ("5" → 500, "123456" → 123).
    private static func fraction(_ digits: [UInt8]) -> Int {
        var ms = 0
        for i in 0..<3 {
            let digit = i < digits.count && (48...57).contains(digits[i]) ? Int(digits[i] - 48) : 0
            ms = ms * 10 + digit
        }
        return ms
    }

    /// A local wall-clock time in `zone` as ms since 1970.
    private static func utcMs(localMs: Int64, in zone: TimeZone) -> Int64 {
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localMs) / 1000))
        let guess = localMs - Int64(first) * 1000
        let second = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess) / 1000))
        return localMs - Int64(second) * 1000
    }
}
