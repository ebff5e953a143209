import Foundation
@testable import JournalingSuggestions
import PickerdWire
import Testing

/// What an app reads of an item's local time: the offset pickerd sent (only with a kept place), as
/// seconds and as a time zone to format its dates in.
@Suite("An item's local time in the Swift library")
struct LocalTimeTests {
    let conversion = WireConversion(file: { _ in nil })
    /// Saturday 11 April 2026, 05:01 UTC.
    let kyotoAfternoon = Date(timeIntervalSince1970: 1_775_883_660)

    func converted(offset: Int64?) -> ItemContent? {
        conversion.item(Item(id: UUID().uuidString, localUtcOffsetS: offset,
                             asset: .song(Song(song: "Kyoto", date: Timestamp(unixMs: 1_775_883_660_000)))))
    }

    @Test("a Kyoto item's offset reads as +09:00: its song played at 14:01 there")
    func kyoto() throws {
        let item = try #require(converted(offset: 32_400))
        #expect(item.secondsFromGMT == 32_400)
        let zone = try #require(item.timeZone)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEEE d MMMM, HH:mm"
        #expect(formatter.string(from: kyotoAfternoon) == "Saturday 11 April, 14:01")
    }

    @Test("no offset sent, or one no zone has (beyond ±18 h): none, and the app shows its own zone")
    func absent() throws {
        let unsent = try #require(converted(offset: nil)), nonsense = try #require(converted(offset: 19 * 3600))
        #expect(unsent.secondsFromGMT == nil && unsent.timeZone == nil)
        #expect(nonsense.secondsFromGMT == nil && nonsense.timeZone == nil)
    }
}
