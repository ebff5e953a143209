import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

/// A large personal library, made up for benchmarks and tests: one to ten years of a life in
/// Portland, Oregon, with trips abroad, workouts, music, moods, friends and exactly as many photos
/// as asked for.
///
/// Deterministic: the same `photos` and `endingAtMs` give the same items, ids and file bytes every
/// time. The library is made month by month, so memory stays bounded by one month of it.
///
/// What it holds:
/// - a home ("Home"), an office on weekdays, a few dozen named places around Portland, day trips to
///   the coast and the Gorge, and three or four trips abroad a year (Lisbon, Tokyo, Kyoto, Mexico City,
///   Reykjavík, Montréal, Copenhagen, Honolulu, Sydney, Buenos Aires), each item in its own time zone;
/// - significant-location visits every day: nights at home or at a hotel, the office, outings;
/// - photos clustered at outings, walks, dinners and trips (much denser abroad), about 8 % Live
///   Photos and 4 % videos, most with GPS; about 5 % screenshots, a few scans and some bursts, marked
///   as not memories (``NotAMemory``);
/// - three or four workouts a week with routes and motion, a weekly workout summary on Sundays;
/// - songs, commute podcasts and book chapters; a daily mood most evenings and momentary ones after
///   outings and workouts; reflection prompts every few days; thirty contacts who come to dinner.
public struct ScaleLibrary: Sendable {
    /// How many photos, Live Photos and videos the library holds, exactly (screenshots, scans and
    /// the extra frames of bursts included).
    public let photos: Int
    /// How many years the library spans: one for every 20,000 photos, rounded up, from 1 to 10.
    public let years: Int
    /// When the library ends, ms since 1970: its last day is the Portland day before the one this
    /// falls on.
    let endingAtMs: Int64

    /// Describes a scale library; nothing is made until it is read.
    /// - Parameters:
    ///   - photos: how many photos, Live Photos and videos to make, 0 or more.
    ///   - endingAtMs: when the library ends, ms since 1970 (by default 21 November 2026, 00:00 UTC).
    public init(photos: Int, endingAtMs: Int64 = 1_795_132_800_000 /* 2026-11-21T00:00:00Z */) {
        precondition(photos >= 0, "a library cannot hold \(photos) photos")
        self.photos = photos
        self.years = max(1, min(10, Int((Double(photos) / 20_000).rounded(.up))))
        self.endingAtMs = endingAtMs
    }

    /// The library month by month, oldest first, each month's items sorted by start time.
    ///
    /// An item belongs to the month of the local day that made it (a week's workout summary to its
    /// Sunday, a trip's group of places to its last day), so a group's start may fall in an earlier
    /// month. Shared files (icons, artwork, contact photos) come with every item that uses them,
    /// under the same path. Calls `body` once per month, with a stage name such as "2024-07".
    /// - Parameter body: receives each month's stage name and items.
    /// - Throws: whatever `body` throws, which ends the walk.
    func forEachMonth(_ body: (_ stage: String, _ items: [GeneratedItem]) throws -> Void) rethrows {
        var maker = ScaleMaker(photos: photos, years: years, endingAtMs: endingAtMs)
        maker.plan()
        var month = Int.min
        var batch: [GeneratedItem] = []
        func stage(_ key: Int) -> String { "\(key / 12)-" + Civil.digits(key % 12 + 1, 2) }
        for index in maker.days.indices {
            let date = Civil.date(maker.days[index].date)
            let key = date.year * 12 + date.month - 1
            if key != month {
                if !batch.isEmpty {
                    batch.sort { $0.item.startMs < $1.item.startMs }
                    try body(stage(month), batch)
                    batch.removeAll(keepingCapacity: true)
                }
                month = key
            }
            maker.render(index, into: &batch)
        }
        if !batch.isEmpty {
            batch.sort { $0.item.startMs < $1.item.startMs }
            try body(stage(month), batch)
        }
    }
}
