import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire
import Testing

/// The local time an outcome's items carry: only with a kept place, and from the item's own offset,
/// then its place's zone at its instant, then the nearest kept place's.
@Suite("An outcome's local time: only with a kept place, in its order of sources")
struct ReleasedLocalTimeTests {
    static let kyoto = Coordinate(latitude: 35.0116, longitude: 135.7681)
    static let sydney = Coordinate(latitude: -33.8688, longitude: 151.2093)
    /// Saturday 11 April 2026, 05:01 UTC: 14:01 in Kyoto.
    static let kyotoAfternoon: Int64 = 1_775_883_660_000
    static let minute: Int64 = 60_000

    static func place(_ name: String, at c: Coordinate?, _ start: Int64, _ end: Int64, offset: Int32? = nil) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .location(Location(place: name, location: c.map { GeoLocation(latitude: $0.latitude, longitude: $0.longitude) })),
                    startMs: start, endMs: end, utcOffsetSeconds: offset, coordinate: c)
    }

    static func photo(_ time: Int64, at c: Coordinate?, offset: Int32? = nil) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .photo(Photo(date: Timestamp(unixMs: time))), startMs: time, utcOffsetSeconds: offset, coordinate: c)
    }

    static func song(_ time: Int64) -> LibraryItem {
        LibraryItem(id: UUID(), asset: .song(Song(song: "Kyoto", artist: "Phoebe Bridgers")), startMs: time, endMs: time + 4 * minute)
    }

    @Test("without a kept place no item has an offset, not even a photo's own EXIF one")
    func noPlaceNoOffset() {
        let items = [Self.photo(Self.kyotoAfternoon, at: Self.kyoto, offset: 32_400), Self.song(Self.kyotoAfternoon)]
        #expect(ReleasedLocalTime.offsets(of: items) == [nil, nil])
    }

    @Test("a Kyoto afternoon with its place kept: +09:00 for the place, a photo with no EXIF offset and a song played there")
    func kyotoFromTheGazetteer() {
        let items = [Self.place("Fushimi Inari", at: Self.kyoto, Self.kyotoAfternoon, Self.kyotoAfternoon + 90 * Self.minute),
                     Self.photo(Self.kyotoAfternoon + 10 * Self.minute, at: Self.kyoto),
                     Self.song(Self.kyotoAfternoon + 20 * Self.minute)]
        #expect(ReleasedLocalTime.offsets(of: items) == [32_400, 32_400, 32_400])
    }

    @Test("the item's own offset wins over its place's zone (the device's clock there)")
    func ownOffsetFirst() {
        let items = [Self.place("Kyoto Station", at: Self.kyoto, Self.kyotoAfternoon, Self.kyotoAfternoon + Self.minute),
                     Self.photo(Self.kyotoAfternoon, at: Self.kyoto, offset: 28_800)]
        #expect(ReleasedLocalTime.offsets(of: items) == [32_400, 28_800])
    }

    @Test("the zone is the one in force at the item's instant: Sydney is +11:00 in January, +10:00 in July")
    func daylightSavingAtTheInstant() {
        let january: Int64 = 1_768_435_200_000, july: Int64 = 1_784_073_600_000
        let items = [Self.place("Bondi", at: Self.sydney, january, january + Self.minute),
                     Self.photo(july, at: Self.sydney)]
        #expect(ReleasedLocalTime.offsets(of: items) == [39_600, 36_000])
    }

    @Test("an item with no place of its own takes the kept place nearest it in time; none when nothing gives one")
    func nearestPlaceInTime() {
        // A zone by longitude alone, so only the order is tested here.
        let zone: (Coordinate, Int64) -> Int32? = { c, _ in c.longitude > 140 ? 39_600 : 32_400 }
        let t = Self.kyotoAfternoon
        let kyoto = Self.place("Kyoto", at: Self.kyoto, t, t + 60 * Self.minute)
        let sydney = Self.place("Sydney", at: Self.sydney, t + 600 * Self.minute, t + 700 * Self.minute)
        let nearKyoto = Self.song(t + 90 * Self.minute), nearSydney = Self.song(t + 500 * Self.minute), during = Self.song(t + 650 * Self.minute)
        #expect(ReleasedLocalTime.offsets(of: [kyoto, nearKyoto, sydney, nearSydney, during], zone: zone) == [32_400, 32_400, 39_600, 39_600, 39_600])
        // A kept place with neither coordinate nor offset gives nothing to the song beside it.
        let unknown = Self.place("Somewhere", at: nil, t, t + Self.minute)
        #expect(ReleasedLocalTime.offsets(of: [unknown, Self.song(t)], zone: zone) == [nil, nil])
    }
}
