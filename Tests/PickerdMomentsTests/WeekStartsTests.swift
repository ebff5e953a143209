import Foundation
import PickerdDemoLibrary  // SeededRandom
@testable import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// The shortcuts the stages take through a window: a week's start kept from one instant to the next
/// (``LocalTime/WeekStarts``) and the positions of the items starting in a range
/// (``Timeline/indices(startingIn:_:)``), each held against the plain way on awkward input.
@Suite("A week's start kept, a window's range of items")
struct WeekStartsTests {
    /// Zones whose clocks change in awkward ways: at midnight (São Paulo until 2019, so a day
    /// begins at 01:00), by half an hour (Lord Howe), a day skipped (Apia, December 2011), a
    /// standard offset moved (Caracas, 2007 and 2016), none at all (Kolkata).
    static let zones = ["Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe", "Pacific/Apia", "America/Caracas", "Asia/Kolkata"]

    @Test("a week's start kept from one instant to the next is the week's start, in order, out of order, with and without offsets of their own", arguments: zones)
    func weekStarts(_ zone: String) {
        let time = LocalTime(timeZone: TimeZone(identifier: zone)!)
        var random = SeededRandom(seed: 7)
        // Every 37 minutes over four years (each clock change passed at a different minute), then
        // the same instants shuffled, with an offset of their own now and then.
        let from: Int64 = 1_293_840_000_000  // 2011-01-01
        var instants = stride(from: from, to: from + 4 * 365 * 86_400_000, by: 37 * 60_000).map { ($0, Int32?.none) }
        instants += instants.shuffled(using: &random).prefix(20_000).map { ($0.0, Bool.random(using: &random) ? Int32(3_600) : nil) }
        var weeks = LocalTime.WeekStarts(time)
        for (instant, offset) in instants {
            #expect(weeks.start(of: instant, offset: offset) == time.week(of: instant, offset: offset).start, "\(zone) \(instant) \(String(describing: offset))")
        }
    }

    @Test("the items starting in a range are those the plain walk finds: empty windows, ranges before, after, between and on equal starts, reversed, to the end of time")
    func indices() {
        var random = SeededRandom(seed: 11)
        for size in [0, 1, 2, 7, 100] {
            let starts = (0..<size).map { _ in Int64.random(in: 0...20, using: &random) * 1_000 }
            let timeline = Timeline(starts.map { LibraryItem(id: UUID(), asset: .photo(Photo()), startMs: $0) })
            let bounds: [Int64] = [Int64.min, -1, 0, 1, 999, 1_000, 5_000, 19_999, 20_000, 20_001, Int64.max]
            for start in bounds {
                for end in bounds {
                    let plain = timeline.items.indices.filter { timeline.items[$0].startMs >= start && timeline.items[$0].startMs <= end }
                    #expect(Array(timeline.indices(startingIn: start, end)) == plain, "\(size) items, \(start)…\(end)")
                    #expect(timeline.within(start, end, kinds: [.photo]).map(\.id) == plain.map { timeline.items[$0].id })
                }
            }
        }
    }
}
