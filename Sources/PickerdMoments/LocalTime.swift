public import Foundation
public import PickerdStore
import PickerdWire

/// Local time as the person lived it: the engine's one model of days, hours and weeks, for the
/// known places (nights at home, weekday hours at work), the moments (a day away, a week) and the
/// titles ("Saturday afternoon").
///
/// An instant is reckoned in the offset from UTC its own data gives (a photo's EXIF offset, a
/// visit's time zone: a trip abroad is lived in local time), else in the person's time zone as it
/// was at that instant. Days are numbered from 1970-01-01 (``Civil``), without Foundation's
/// calendars: they are too slow for a hundred thousand photos, and their week arithmetic on Linux
/// does not agree with itself across versions.
public struct LocalTime: Sendable, Hashable {
    /// The person's time zone, for instants whose data gives no offset of their own.
    public let timeZone: TimeZone

    /// Local time in a time zone.
    /// - Parameter timeZone: the person's time zone.
    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// A day and an hour in ms, once (the engine reckons days for every item).
    static let dayMs = Duration.day.ms, hourMs = Duration.hour.ms

    /// The offset from UTC at `timeMs`, in ms: `own` (seconds) when the data gives it, else the
    /// time zone's at that instant.
    func offsetMs(at timeMs: Int64, own: Int32? = nil) -> Int64 {
        if let own { return Int64(own) * 1000 }
        return Int64(timeZone.secondsFromGMT(for: Date(unixMs: timeMs))) * 1000
    }

    /// The local day (days since 1970-01-01) `timeMs` falls on.
    /// - Parameters:
    ///   - timeMs: an instant, ms since 1970.
    ///   - own: its own offset from UTC in seconds, if its data gives one.
    public func day(_ timeMs: Int64, offset own: Int32? = nil) -> Int {
        Int(Civil.floorDiv(timeMs + offsetMs(at: timeMs, own: own), Self.dayMs))
    }

    /// The local day `item` starts on, in its own offset when it has one.
    public func day(of item: LibraryItem) -> Int { day(item.startMs, offset: item.utcOffsetSeconds) }

    /// The local hour (0…23) of `timeMs`.
    func hour(_ timeMs: Int64, offset own: Int32? = nil) -> Int {
        Int(Civil.floorMod(timeMs + offsetMs(at: timeMs, own: own), Self.dayMs) / Self.hourMs)
    }

    /// The instant of `hour`:00 local time on `day`: in offset `own` when given, else in the time
    /// zone as it is then (a clock change that day moves the instant, not the hour).
    /// - Parameters:
    ///   - day: days since 1970-01-01.
    ///   - hour: 0…23 (24 is the next day's midnight).
    ///   - own: an offset from UTC in seconds, if the data gives one.
    /// - Returns: ms since 1970.
    public func ms(day: Int, hour: Int, offset own: Int32? = nil) -> Int64 {
        let local = Int64(day) * 86_400 + Int64(hour) * 3_600
        if let own { return (local - Int64(own)) * 1000 }
        let guess = local - Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local))))
        return (local - Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess))))) * 1000
    }

    /// The instant a local day begins.
    func midnight(_ day: Int, offset own: Int32? = nil) -> Int64 { ms(day: day, hour: 0, offset: own) }

    /// The Monday-to-Sunday week holding `timeMs`, as [start, end) in ms, and its Monday's day.
    /// Each edge is at its own local midnight: a week that holds a clock change is 167 or 169 hours
    /// long, and one week ends where the next begins.
    /// - Parameters:
    ///   - timeMs: an instant, ms since 1970.
    ///   - own: its own offset from UTC in seconds, if its data gives one.
    public func week(of timeMs: Int64, offset own: Int32? = nil) -> (start: Int64, end: Int64, monday: Int) {
        let monday = monday(of: timeMs, offset: own)
        return (midnight(monday, offset: own), midnight(monday + 7, offset: own), monday)
    }

    /// The day of the Monday that begins the week holding `timeMs`.
    func monday(of timeMs: Int64, offset own: Int32? = nil) -> Int {
        let day = day(timeMs, offset: own)
        return day - (Civil.weekday(day) + 6) % 7
    }

    /// ``week(of:offset:)``'s start for one instant after another, the last week's kept: a week's
    /// start is its Monday's midnight in the offset, so instants of the same Monday and offset (a
    /// window's items in time order, mostly) take the time zone's word once, not three times each.
    struct WeekStarts {
        let time: LocalTime
        private var last: (monday: Int, offset: Int32?, start: Int64)?

        init(_ time: LocalTime) { self.time = time }

        /// The start of the week holding `timeMs` (as ``LocalTime/week(of:offset:)`` gives it).
        mutating func start(of timeMs: Int64, offset own: Int32?) -> Int64 {
            let monday = time.monday(of: timeMs, offset: own)
            if let last, last.monday == monday, last.offset == own { return last.start }
            let start = time.midnight(monday, offset: own)
            last = (monday, own, start)
            return start
        }
    }

    // MARK: Words

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                 "October", "November", "December"]

    /// The name of the weekday `item` starts on ("Saturday").
    func weekdayName(_ item: LibraryItem) -> String { Self.weekdays[Civil.weekday(day(of: item))] }

    /// A day as "13 November".
    func dayAndMonth(_ day: Int) -> String {
        let (_, month, dayOfMonth) = Civil.date(day)
        return "\(dayOfMonth) \(Self.months[month - 1])"
    }

    /// The part of the day `item` starts in: "Morning" (5–12), "Afternoon" (12–17), "Evening"
    /// (17–22) or "Night".
    func partOfDay(_ item: LibraryItem) -> String {
        switch hour(item.startMs, offset: item.utcOffsetSeconds) {
        case 5..<12: "Morning"
        case 12..<17: "Afternoon"
        case 17..<22: "Evening"
        default: "Night"
        }
    }

    /// Month × 100 + day of the month `item` starts on ("on this day").
    func monthDay(_ item: LibraryItem) -> Int {
        let (_, month, day) = Civil.date(day(of: item))
        return month * 100 + day
    }

    /// The year `item` starts in.
    func year(_ item: LibraryItem) -> Int { Civil.date(day(of: item)).year }
}

extension Duration {
    /// A minute.
    static let minute = Duration.seconds(60)
    /// An hour.
    static let hour = Duration.seconds(3_600)
    /// A calendar day's length where no clock changes (civil days are ``LocalTime``'s).
    static let day = Duration.seconds(86_400)

    /// `count` minutes.
    static func minutes(_ count: Int) -> Duration { .seconds(60 * count) }
    /// `count` hours.
    static func hours(_ count: Int) -> Duration { .seconds(3_600 * count) }
    /// `count` days of 24 hours.
    static func days(_ count: Int) -> Duration { .seconds(86_400 * count) }

    /// This duration in whole milliseconds, as ``LibraryItem``'s times are.
    var ms: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
