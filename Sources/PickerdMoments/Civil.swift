/// Proleptic Gregorian dates as days since 1970-01-01, without Foundation's calendars (too slow
/// for a hundred thousand photos). The importers read files' dates with it too.
public enum Civil {
    /// Days since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
    /// - Parameters:
    ///   - year: the year (proleptic Gregorian).
    ///   - month: 1…12.
    ///   - day: 1…31.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    public static func date(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 for Sunday … 6 for Saturday.
    public static func weekday(_ days: Int) -> Int { ((days + 4) % 7 + 7) % 7 }

    /// The `nth` Sunday (1-based) of a month.
    public static func sunday(_ year: Int, _ month: Int, nth: Int) -> Int {
        let first = days(year: year, month: month, day: 1)
        return first + (7 - weekday(first)) % 7 + 7 * (nth - 1)
    }

    /// The last Sunday of a month.
    public static func lastSunday(_ year: Int, _ month: Int) -> Int {
        let last = days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) - 1
        return last - weekday(last)
    }

    /// `a / b` rounded towards negative infinity.
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `a` modulo `b`, in 0..<b for a positive `b`.
    public static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }

    /// "YYYY:MM:DD HH:MM:SS" for seconds since 1970 in local time (an EXIF `DateTimeOriginal`).
    public static func exifDate(localSeconds: Int64) -> String {
        let day = floorDiv(localSeconds, 86_400)
        let second = Int(localSeconds - day * 86_400)
        let date = date(Int(day))
        var bytes = [UInt8](repeating: 0x3A, count: 19)  // ":"
        func put(_ value: Int, at: Int, width: Int) {
            var value = value
            for i in stride(from: at + width - 1, through: at, by: -1) {
                bytes[i] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(date.year, at: 0, width: 4)
        put(date.month, at: 5, width: 2)
        put(date.day, at: 8, width: 2)
        bytes[10] = 0x20
        put(second / 3600, at: 11, width: 2)
        put(second / 60 % 60, at: 14, width: 2)
        put(second % 60, at: 17, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
