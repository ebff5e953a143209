import Foundation
import Logging
import PickerdLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl places`: the person's known places (home, work, frequent), found in their visits.
extension ControlHandler {
    /// How much of the library is read at a time while looking for visits: a month, so a library of
    /// photos is never held whole (only its Location items are kept).
    static let placesReadSpanMs: Int64 = 31 * 86_400_000

    func places(_ request: PlacesRequest) throws -> Envelope.Body {
        let timeZone = TimeZone.current
        var visits: [LibraryItem] = []
        if let range = try broker.store.libraryRange() {
            var from = range.lowerBound
            while from <= range.upperBound {
                let to = min(range.upperBound, from + Self.placesReadSpanMs - 1)
                visits += try broker.store.items(startingFrom: from, to: to).filter { $0.kind == .location }
                from = to + 1
            }
        }
        let known = KnownPlaces.find(in: visits, timeZone: timeZone)
        logger.info("known places listed", metadata: ["visits": "\(visits.count)", "places": "\(known.places.count)"])
        return .placesReply(PlacesReply(places: known.places.map { place in
            KnownPlace(role: place.role.rawValue, name: place.name, city: place.city, latitude: place.coordinate.latitude,
                       longitude: place.coordinate.longitude, fromMs: place.from, untilMs: place.until, days: UInt32(clamping: place.days))
        }, timeZone: timeZone.identifier))
    }
}
