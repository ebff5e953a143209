import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

/// A time zone's offset from UTC by its daylight-saving rule (the rules in force since 2007).
enum ZoneRule: Sendable {
    /// No daylight saving.
    case fixed(Int32)
    /// The US and Canada: second Sunday of March 2:00 to first Sunday of November 2:00, local.
    case northAmerica(Int32)
    /// The EU: last Sunday of March to last Sunday of October, 01:00 UTC.
    case europe(Int32)
    /// Mexico until 2022: first Sunday of April to last Sunday of October, 2:00 local; none since.
    case mexico(Int32)
    /// South-east Australia: first Sunday of October 2:00 to first Sunday of April 3:00, local.
    case australia(Int32)

    /// The offset in seconds at an instant.
    /// - Parameter seconds: seconds since 1970, UTC.
    func offset(atUTC seconds: Int64) -> Int32 {
        let hour: Int64 = 3600
        func year(_ standard: Int32) -> Int { Civil.date(Int(Civil.floorDiv(seconds + Int64(standard), 86_400))).year }
        func at(_ day: Int) -> Int64 { Int64(day) * 86_400 }
        switch self {
        case .fixed(let standard):
            return standard
        case .northAmerica(let standard):
            let y = year(standard), std = Int64(standard)
            let start = at(Civil.sunday(y, 3, nth: 2)) + 2 * hour - std
            let end = at(Civil.sunday(y, 11, nth: 1)) + 2 * hour - std - hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .europe(let standard):
            let y = year(standard)
            let start = at(Civil.lastSunday(y, 3)) + hour, end = at(Civil.lastSunday(y, 10)) + hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .mexico(let standard):
            let y = year(standard), std = Int64(standard)
            guard y < 2023 else { return standard }
            let start = at(Civil.sunday(y, 4, nth: 1)) + 2 * hour - std
            let end = at(Civil.lastSunday(y, 10)) + 2 * hour - std - hour
            return seconds >= start && seconds < end ? standard + 3600 : standard
        case .australia(let standard):
            let y = year(standard), std = Int64(standard)
            let end = at(Civil.sunday(y, 4, nth: 1)) + 3 * hour - std - hour
            let start = at(Civil.sunday(y, 10, nth: 1)) + 2 * hour - std
            return seconds < end || seconds >= start ? standard + 3600 : standard
        }
    }

    /// The offset at noon, local time, of a day.
    /// - Parameter date: days since 1970-01-01 in local time.
    func offset(atNoonOf date: Int) -> Int32 {
        let noon = Int64(date) * 86_400 + 43_200
        return offset(atUTC: noon - Int64(offset(atUTC: noon)))
    }
}
