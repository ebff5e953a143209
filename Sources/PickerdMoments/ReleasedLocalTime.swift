import Foundation
import PickerdPlaces
public import PickerdStore
import PickerdWire

/// The local time an app's outcome may carry: each released item's offset from UTC where it
/// happened (`Item.local_utc_offset_s`), so an app writes "Saturday 11 April, 14:01" for a Kyoto
/// afternoon instead of its own zone's "05:01".
///
/// An offset tells a region, so it leaves only with a place the person kept (a `Location` or
/// `LocationGroup` item among the released ones), as a photo's GPS and a workout's route do; without
/// one no item has an offset. With one, an item's offset is, in this order:
/// 1. its own, recorded with it (``LibraryItem/utcOffsetSeconds``: a photo's EXIF `OffsetTime*`, an
///    export's own offset, the zone an import gave a track or visit from its first point): the
///    clock the device showed there, which a nearest-city zone can get wrong near a zone's border;
/// 2. the time zone of its own place (``LibraryItem/coordinate``, the gazetteer's IANA zone of the
///    nearest city) at its start, so daylight saving is the one in force then;
/// 3. else that of the released place nearest it in time (a song played that afternoon in Kyoto
///    was played in Kyoto's time), by 1 and 2;
/// and none when nothing gives it (a place with no coordinate and no offset).
public enum ReleasedLocalTime {
    /// The offsets of `items`, in their order.
    /// - Parameters:
    ///   - items: the items being released.
    ///   - zone: the offset from UTC in seconds of the time zone at a place and instant (ms since
    ///     1970), or `nil` when unknown; the gazetteer's by default.
    /// - Returns: one offset (seconds east of UTC) or `nil` per item; all `nil` when no place is
    ///   among `items`.
    public static func offsets(of items: [LibraryItem],
                               zone: (Coordinate, Int64) -> Int32? = gazetteerOffset) -> [Int32?] {
        let isPlace = { (item: LibraryItem) in item.kind == .location || item.kind == .locationGroup }
        guard items.contains(where: isPlace) else { return items.map { _ in nil } }
        let own = items.map { item in item.utcOffsetSeconds ?? item.coordinate.flatMap { zone($0, item.startMs) } }
        let places = items.indices.filter { isPlace(items[$0]) && own[$0] != nil }
        return items.indices.map { index in
            if let offset = own[index] { return offset }
            let item = items[index]
            // Nearest in time: the gap between the two spans, zero when they overlap; ties to the earlier place.
            let nearest = places.min { a, b in gap(item, items[a]) < gap(item, items[b]) }
            return nearest.flatMap { own[$0] }
        }
    }

    /// The gazetteer's offset at a place and instant (ms since 1970): its nearest city's IANA zone.
    /// - Parameters:
    ///   - coordinate: the place.
    ///   - timeMs: the instant.
    /// - Returns: seconds east of UTC, or `nil` when the gazetteer knows no zone there.
    @Sendable public static func gazetteerOffset(_ coordinate: Coordinate, _ timeMs: Int64) -> Int32? {
        guard let zone = Gazetteer.shared.timeZone(latitude: coordinate.latitude, longitude: coordinate.longitude) else { return nil }
        return Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(timeMs) / 1000)))
    }

    private static func gap(_ a: LibraryItem, _ b: LibraryItem) -> Int64 {
        max(0, max(a.startMs, b.startMs) - min(a.endMs, b.endMs))
    }
}
