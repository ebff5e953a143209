import PickerdImport

/// Apple Health's dates, `2024-05-04 07:05:00 -0400` (local time and its offset), read straight from
/// bytes: an export has millions of them, and Foundation's formatters cost microseconds each.
enum HealthDates {
    /// Milliseconds since 1970 (UTC) and the offset in seconds, `nil` when the text is not
    /// `YYYY-MM-DD hh:mm:ss ±hhmm`. A `T` between date and time, `Z`, and `±hh:mm` are read too.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> (ms: Int64, offset: Int32)? {
        guard b.count >= 19 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for i in at..<(at + count) {
                let d = Int(b[i]) - 48
                guard d >= 0, d <= 9 else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == 0x20 || b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 100
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        while i < b.count, b[i] == 0x20 { i += 1 }
        var offset = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") {
                i += 1
            } else {
                guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 5 <= b.count, let hh = digits(i + 1, 2) else { return nil }
                let colon = b[i + 3] == UInt8(ascii: ":") ? 1 : 0
                guard i + 5 + colon <= b.count, let mm = digits(i + 3 + colon, 2), hh <= 18, mm < 60 else { return nil }
                offset = (hh * 3600 + mm * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
                i += 5 + colon
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return ((local - Int64(offset)) * 1000 + Int64(fraction), Int32(offset))
    }

    /// `parse` for a string (tests, and the rare value read as one).
    static func parse(_ text: String) -> (ms: Int64, offset: Int32)? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
