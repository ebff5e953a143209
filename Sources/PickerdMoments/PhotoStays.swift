import Foundation
public import PickerdPlaces
public import PickerdStore
import PickerdWire

/// Stays from photos: the timeline's last source. Where none of the person's location sources (a
/// location history, OwnTracks, a visit an app recorded, a workout's route) says where they were,
/// the places their photos were taken at are stays: a person who keeps only a Pictures folder, or
/// whose location history stops (Google's Timeline left the cloud in 2024), still has trips titled
/// by where they went and outings named by their place.
///
/// How (``derive(from:owning:)``):
/// - the photos and videos with a position (not a screenshot, scan or other not-a-memory), in time
///   order, that no location item covers: none starts or ends within ``coverage`` (3 hours) of the
///   photo, so a location history's own stays always win;
/// - grouped as stays are found in points (`StayDetector`, after Li et al. 2008): a photo joins the
///   stay while it lies within ``radius`` (250 m) of the stay's centre and within ``gap`` (2 hours)
///   of the stay's last photo; a stay needs ``minimumPhotos`` (3), as a run of photos does to be a
///   moment, so a walk photographed along the way makes no stay at every corner;
/// - a stay runs from its first photo to its last, at its photos' mean position, named by its
///   photos' own place (``LibraryItem/filePlaceName``: their IPTC/XMP location, the person's data, the
///   one most of its photos name, the earliest on a tie), else by the gazetteer (its neighbourhood
///   inside a large city, else its city or "near …"); where neither names anything, no stay. The
///   person's own names come over both where items are read (`PersonsNames`).
///
/// They are stored as Location items of source ``source`` (``Store/replaceDerivedItems(source:startingIn:with:)``),
/// so the person keeps or leaves out the place like any other, and the engine derives them again
/// whenever the photos of their days change. Their ids come from their first photo's, so deriving
/// them again gives the same items.
public enum PhotoStays {
    /// The `source` of a stay from photos.
    public static let source = LibraryItem.photoStaySource
    /// How near a location item's start or end must be for a photo to be covered, in ms.
    public static let coverage = Duration.hours(3).ms
    /// How far from a stay's centre a photo is still in it, in metres.
    public static let radius = 250.0
    /// The longest pause between two photos of one stay, in ms.
    public static let gap = Duration.hours(2).ms
    /// The fewest photos a stay holds.
    public static let minimumPhotos = 3

    /// The stays `items`' photos make that start in `window`.
    /// - Parameters:
    ///   - items: the library around the window (its photos, videos and location items).
    ///   - window: start times, ms since 1970, of the stays wanted.
    ///   - gazetteer: names places; `nil` for the shared one.
    /// - Returns: Location items of source ``source``, in time order.
    public static func derive(from items: [LibraryItem], owning window: Range<Int64>, gazetteer: Gazetteer? = nil) -> [LibraryItem] {
        // The times location items cover, widened by `coverage`, merged and in order.
        var covered: [(Int64, Int64)] = []
        for item in items where item.kind == .location && item.source != source {
            covered.append((item.startMs - coverage, item.endMs + coverage))
        }
        covered.sort { $0.0 < $1.0 }
        var merged: [(Int64, Int64)] = []
        for span in covered {
            if let last = merged.last, span.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, span.1) } else { merged.append(span) }
        }
        func isCovered(_ t: Int64) -> Bool {
            var low = 0, high = merged.count
            while low < high {
                let mid = (low + high) / 2
                if merged[mid].1 < t { low = mid + 1 } else { high = mid }
            }
            return low < merged.count && merged[low].0 <= t
        }
        let photos = items.filter { [.photo, .livePhoto, .video].contains($0.kind) && $0.coordinate != nil && $0.notAMemory == nil
            && !$0.excludedFromSuggestions && !isCovered($0.startMs) }
            .sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }
        var stays: [LibraryItem] = []
        var group: [LibraryItem] = []
        var latitude = 0.0, longitude = 0.0
        func close() {
            defer { group = [] }
            guard group.count >= minimumPhotos, let first = group.first, let last = group.last, window.contains(first.startMs) else { return }
            let centre = Coordinate(latitude: latitude, longitude: longitude)
            let named = (gazetteer ?? Gazetteer.shared).name(latitude: latitude, longitude: longitude)
            let own = ownPlace(of: group)
            guard let place = own?.place ?? named?.place else { return }
            let location = Location(place: place, city: own?.city ?? named?.city.name ?? "",
                                    location: GeoLocation(latitude: latitude, longitude: longitude), date: Timestamp(unixMs: first.startMs))
            stays.append(LibraryItem(id: SuggestionBuilder.stableID("photo-stay|\(first.id.uuidString)"), asset: .location(location),
                                     startMs: first.startMs, endMs: max(first.startMs, last.startMs), source: source,
                                     utcOffsetSeconds: first.utcOffsetSeconds, coordinate: centre))
        }
        for photo in photos {
            let at = photo.coordinate!
            if let last = group.last, photo.startMs - last.startMs <= gap,
               Coordinate(latitude: latitude, longitude: longitude).distance(to: at) <= radius {
                group.append(photo)
                let n = Double(group.count)
                latitude += (at.latitude - latitude) / n
                longitude += (at.longitude - longitude) / n
                continue
            }
            close()
            group = [photo]
            latitude = at.latitude
            longitude = at.longitude
        }
        close()
        return stays
    }

    /// The place most of `photos` name themselves (``LibraryItem/filePlaceName``), the earliest named
    /// on a tie, with its city; `nil` when none names one.
    static func ownPlace(of photos: [LibraryItem]) -> (place: String, city: String?)? {
        var counts: [String: (count: Int, first: Int, city: String?)] = [:]
        for (index, photo) in photos.enumerated() {
            guard let name = photo.filePlaceName else { continue }
            let seen = counts[name]
            counts[name] = ((seen?.count ?? 0) + 1, seen?.first ?? index, seen?.city ?? photo.filePlaceCity)
        }
        return counts.min { ($1.value.count, $0.value.first) < ($0.value.count, $1.value.first) }
            .map { ($0.key, $0.value.city) }
    }
}
