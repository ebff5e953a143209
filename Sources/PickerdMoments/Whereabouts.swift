import Foundation
import PickerdStore
import PickerdWire

extension SuggestionBuilder {
    /// Where a window's items were, against the person's known places (``KnownPlaces``, found from
    /// the window's visits, the person's corrections winning): home at each moment (a person who moves house has the new home from
    /// the first night there), and the routine places (work, and places visited on many days).
    ///
    /// A visit is at a known place when it lies within ``radius`` of the place's centre: the
    /// places are clusters of visits by distance, so the bar round the corner is not home and the
    /// café visited every morning is routine however its fixes scatter.
    struct Whereabouts {
        /// How far from a known place's centre a visit is still there, in metres
        /// (``MomentTuning/knownPlaceRadius``).
        let radius: Double

        /// The homes, in time order, with when each was home.
        let homes: [KnownPlaces.Place]
        /// Work and frequent places.
        let routine: [KnownPlaces.Place]
        /// The store's home, for a window without nights to tell one.
        let fallback: HomeBase

        init(_ items: [LibraryItem], home: HomeBase, timeZone: TimeZone, corrections: [KnownPlaces.Correction] = [],
             radius: Double = MomentTuning.standard.knownPlaceRadius) {
            self.radius = radius
            let known = KnownPlaces.find(in: items, timeZone: timeZone, corrections: corrections)
            var homes = known.places.filter { $0.role == .home }
            // A new home is home from the first visit there after the last night at the old one
            // (moving day, the week's home still being the old one), not from its first whole week;
            // a home the person dated holds from their day.
            for index in homes.indices.dropFirst() where !homes[index].isPersonsWord {
                guard let until = homes[index - 1].until else { continue }
                let first = items.lazy.filter { $0.kind == .location && $0.startMs >= until }
                    .filter { visit in SuggestionBuilder.position(visit).map { $0.distance(to: homes[index].coordinate) <= radius } ?? false }
                    .map(\.startMs).min()
                if let first, first < (homes[index].from ?? .max) { homes[index].from = first }
            }
            self.homes = homes
            // A place the person only named is no more routine than it was before they named it.
            routine = known.places.filter { $0.role == .work || $0.role == .frequent }
            fallback = home
        }

        /// Where home was at `timeMs`: the home whose time holds it, else the nearest in time,
        /// else the store's.
        func home(at timeMs: Int64) -> Coordinate? {
            if homes.isEmpty { return fallback.coordinate }
            if let current = homes.last(where: { ($0.from ?? .min) <= timeMs }) {
                return current.coordinate
            }
            return homes[0].coordinate
        }

        /// Whether a visit is at home (its name says so within reach of home, or it lies within
        /// ``radius`` of where home was then).
        func isHome(_ visit: LibraryItem) -> Bool {
            guard case .location(let l) = visit.asset else { return false }
            guard let there = SuggestionBuilder.position(visit) else { return fallback.isHome(l) }
            if let home = home(at: visit.startMs), home.distance(to: there) <= radius { return true }
            return fallback.isHome(l) && homes.isEmpty
        }

        /// Whether a visit is at a routine place: work (as the data marks it, or weekday daytime)
        /// or a place visited on many days.
        func isRoutine(_ visit: LibraryItem) -> Bool {
            if case .location(let l) = visit.asset, l.isWorkLocation == true { return true }
            guard let there = SuggestionBuilder.position(visit) else { return false }
            return routine.contains { $0.coordinate.distance(to: there) <= radius }
        }

        /// Which known place `coordinate` is at, at `timeMs`: `"home"` within `within` metres of the
        /// home of that time, else `"place N"` for the nearest work or frequent place within it, else
        /// `nil`. A key for telling one route between known places from another, never shown.
        func knownPlace(at coordinate: Coordinate, time timeMs: Int64, within: Double) -> String? {
            if let home = home(at: timeMs), home.distance(to: coordinate) <= within { return "home" }
            let nearest = routine.indices.map { ($0, routine[$0].coordinate.distance(to: coordinate)) }
                .filter { $0.1 <= within }.min { ($0.1, $0.0) < ($1.1, $1.0) }
            return nearest.map { "place \($0.0)" }
        }

        /// What a ``knownPlace(at:time:within:)`` key is to the person, as a week's summary says
        /// it: "home", "work", a frequent place's own name, else `nil`.
        func placeWords(_ key: String) -> String? {
            if key == "home" { return "home" }
            guard key.hasPrefix("place "), let index = Int(key.dropFirst(6)), routine.indices.contains(index) else { return nil }
            let place = routine[index]
            return place.role == .work ? "work" : place.name.isEmpty ? nil : place.name
        }

        /// Whether a visit is at home or a routine place.
        func isKnown(_ visit: LibraryItem) -> Bool { isHome(visit) || isRoutine(visit) }

        /// Whether `coordinate` was within 1.5 km of home at `timeMs` (home unknown: near).
        func isNearHome(_ coordinate: Coordinate, at timeMs: Int64) -> Bool {
            HomeBase(coordinate: home(at: timeMs)).isNear(coordinate)
        }
    }
}
