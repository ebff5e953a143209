import Foundation
public import PickerdStore
import PickerdWire

/// The person's own names for places (`pickerctl places name`, a picker's "Name this place"): the
/// first word on what a place is called. Places are named, in this order, by the person's name,
/// then by the person's data (a location history's or OwnTracks' place, a calendar event's
/// `LOCATION`, a track's own name), then by the gazetteer. The data and the gazetteer have already
/// named the place items when they come from the store; ``applied(to:)`` puts the person's names
/// over them wherever items are read to be titled, listed or released, so a name holds in titles
/// and items from then on.
///
/// A name reaches an app only inside the place item the person keeps: it is written into place
/// items alone, and a released title is made again from the kept items.
public struct PersonsNames: Sendable, Hashable {
    /// The names (role ``KnownPlaces/Role/named``), oldest first.
    public let names: [KnownPlaces.Correction]

    /// The names among the person's corrections.
    /// - Parameter corrections: the person's word on places (home and work corrections are passed over).
    public init(_ corrections: [KnownPlaces.Correction]) {
        names = corrections.filter { $0.role == .named && !$0.name.isEmpty }
    }

    /// The person's names as the store holds them (one that cannot be read is passed over).
    /// - Parameter store: the store.
    /// - Throws: ``StoreError`` `.unreadable`.
    public init(store: Store) throws(StoreError) {
        self.init(try store.readablePlaceCorrections().filter { $0.role == .name }.map(KnownPlaces.Correction.init))
    }

    /// Whether the person named no place.
    public var isEmpty: Bool { names.isEmpty }

    /// The name nearest `coordinate` within ``KnownPlaces/correctionRadius`` (the engine's "at a known
    /// place"), with its index in ``names``.
    func nearest(to coordinate: Coordinate) -> (Int, KnownPlaces.Correction)? {
        names.indices.map { ($0, names[$0].coordinate.distance(to: coordinate)) }
            .filter { $0.1 <= KnownPlaces.correctionRadius }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }
            .map { ($0.0, names[$0.0]) }
    }

    /// What the person calls the place at `coordinate`, or `nil`.
    /// - Parameter coordinate: where.
    public func name(at coordinate: Coordinate) -> String? {
        nearest(to: coordinate)?.1.name
    }

    /// `items` with the person's names on their place items: a Location item (a visit, a stay from
    /// photos, where a workout went) within reach of a name is called by it; its city stays. Other
    /// items are as they were.
    /// - Parameter items: items, any order.
    /// - Returns: the same items in the same order.
    public func applied(to items: [LibraryItem]) -> [LibraryItem] {
        guard !isEmpty else { return items }
        return items.map { item in
            guard case .location(var location) = item.asset, let there = SuggestionBuilder.position(item),
                  let name = name(at: there), location.place != name else { return item }
            location.place = name
            var named = item
            named.asset = .location(location)
            return named
        }
    }
}
