import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire

/// The person names a place ("the Tan track", "Nonna's"): `pickerctl places name` and a picker's
/// "Name this place" go through this one rule. The name is stored as the person's word (a place
/// correction of role `name`), wins over every other name in titles and items from then on
/// (``PersonsNames``), and the moments it touches are built again before the answer.
struct PlaceNaming {
    let store: Store
    let builder: SuggestionBuilder
    /// Now, ms since 1970: when the person said so.
    let nowMs: Int64

    /// The longest name a person may give a place, in characters (a title must still fit a line).
    static let longestName = 80

    /// What naming did, or why it was refused.
    enum Outcome {
        /// The name as stored (trimmed; empty when it was taken back) and how many weeks were built again.
        case named(String, weeksRebuilt: Int)
        case refused(ErrorInfo)
    }

    /// Names the place at `coordinate`: the known place within the engine's reach of it
    /// (``KnownPlaces/correctionRadius``), else that spot. An empty name takes the person's name of
    /// that place back.
    /// - Parameters:
    ///   - text: what the person calls it (trimmed here); empty: unname.
    ///   - coordinate: where, from pickerd's own data or the person's `pickerctl` words.
    /// - Returns: the outcome.
    /// - Throws: ``StoreError``.
    func name(_ text: String, at coordinate: Coordinate) throws -> Outcome {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= Self.longestName else {
            return .refused(ErrorInfo(code: .invalidArgument, message: "a place's name is at most \(Self.longestName) characters"))
        }
        var at = coordinate
        if let known = try Self.knownPlaces(store: store, timeZone: builder.timeZone).places.filter({ $0.role != .named })
            .map({ ($0.coordinate, $0.coordinate.distance(to: coordinate)) })
            .filter({ $0.1 <= KnownPlaces.correctionRadius }).min(by: { $0.1 < $1.1 }) {
            at = known.0
        }
        if name.isEmpty, try PersonsNames(store: store).name(at: at) == nil {
            return .refused(ErrorInfo(code: .notFound, message: "you have not named a place at \(coordinate.latitude),\(coordinate.longitude)"))
        }
        let stored = try store.setPlaceCorrection(StoredPlaceCorrection(role: .name, coordinate: at, name: name, fromDay: nil, createdMs: nowMs))
        let weeks = try MomentEngine(store: store, builder: builder).refresh(namedAt: stored.coordinate)
        return .named(name, weeksRebuilt: weeks)
    }

    /// How much of the library is read at a time while looking for visits: a month, so a library of
    /// photos is never held whole (only its Location items are kept).
    static let readSpanMs: Int64 = 31 * 86_400_000

    /// The known places: found in the library's visits, the person's corrections and names winning.
    /// - Throws: ``StoreError`` (`.corrupt` names a correction that cannot be read).
    static func knownPlaces(store: Store, timeZone: TimeZone) throws -> KnownPlaces {
        let corrections = try store.placeCorrections().map(KnownPlaces.Correction.init)
        var visits: [LibraryItem] = []
        if let range = try store.libraryRange() {
            var from = range.lowerBound
            while from <= range.upperBound {
                let to = min(range.upperBound, from + readSpanMs - 1)
                visits += try store.items(startingFrom: from, to: to).filter { $0.kind == .location }
                from = to + 1
            }
        }
        return KnownPlaces.find(in: visits, timeZone: timeZone, corrections: corrections)
    }
}
