import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl places`: the person's known places (home, work, frequent), found in their visits, and
/// the person's word on where home and work are (`set-home`, `set-work`, `unset`, `reset`) and on
/// what a place is called (`name` and `unname`: role `name`), which
/// wins over what was found and rebuilds the moments it touches.
extension ControlHandler {
    func places(_ request: PlacesRequest) throws -> Envelope.Body {
        .placesReply(try placesReply(weeksRebuilt: 0))
    }

    /// The places as they are now: found in the visits, the person's corrections winning.
    /// - Throws: ``StoreError`` (`.corrupt` names a correction that cannot be read).
    private func placesReply(weeksRebuilt: Int) throws -> PlacesReply {
        let timeZone = broker.builder.timeZone
        let known = try knownPlaces()
        return PlacesReply(places: known.places.map { place in
            KnownPlace(role: place.role.rawValue, name: place.name, city: place.city, latitude: place.coordinate.latitude,
                       longitude: place.coordinate.longitude, fromMs: place.from, untilMs: place.until, days: UInt32(clamping: place.days),
                       personsWord: place.isPersonsWord || place.isPersonsName)
        }, timeZone: timeZone.identifier, weeksRebuilt: UInt32(clamping: weeksRebuilt))
    }

    /// The known places: found in the visits, the person's corrections and names winning.
    /// - Throws: ``StoreError`` (`.corrupt` names a correction that cannot be read).
    private func knownPlaces() throws -> KnownPlaces {
        let known = try PlaceNaming.knownPlaces(store: broker.store, timeZone: broker.builder.timeZone)
        logger.info("known places listed", metadata: ["places": "\(known.places.count)"])
        return known
    }

    /// A role the person may declare, or a typed refusal.
    private func correctedRole(_ text: String) -> Result<StoredPlaceCorrection.Role, PlacesRefusal> {
        guard let role = StoredPlaceCorrection.Role(rawValue: text) else {
            return .failure(PlacesRefusal("a place the person sets is home or work, or names (name), not '\(text)'"))
        }
        return .success(role)
    }

    /// A day as the person wrote it (YYYY-MM-DD), or `nil` for none; a typed refusal when it is not a date.
    private func correctedDay(_ text: String) -> Result<Int?, PlacesRefusal> {
        guard !text.isEmpty else { return .success(nil) }
        guard let day = StoredHiddenRule.day(iso: text) else { return .failure(PlacesRefusal("a day is YYYY-MM-DD: '\(text)' is not a date")) }
        return .success(day)
    }

    func placesSet(_ request: PlacesSetRequest) throws -> Envelope.Body {
        let role: StoredPlaceCorrection.Role, day: Int?
        switch (correctedRole(request.role), correctedDay(request.fromDay)) {
        case (.failure(let refusal), _), (_, .failure(let refusal)): return refusal.body
        case (.success(let r), .success(let d)): (role, day) = (r, d)
        }
        guard request.latitude.isFinite, request.longitude.isFinite, abs(request.latitude) <= 90, abs(request.longitude) <= 180 else {
            return PlacesRefusal("\(request.latitude),\(request.longitude) is not a place on Earth").body
        }
        let coordinate = Coordinate(latitude: request.latitude, longitude: request.longitude)
        if role == .name {
            // `pickerctl places name|unname`: the name of the known place there; "" takes it back.
            guard day == nil else { return PlacesRefusal("a name holds always: it takes no day").body }
            let naming = PlaceNaming(store: broker.store, builder: broker.builder, nowMs: broker.configuration.clock.now().unixMs)
            switch try naming.name(request.name, at: coordinate) {
            case .refused(let error):
                return .error(error)
            case .named(let name, let weeks):
                logger.info("place named by the person", metadata: ["named": "\(!name.isEmpty)", "weeks": "\(weeks)"])
                return .placesReply(try placesReply(weeksRebuilt: weeks))
            }
        }
        let stored = try broker.store.setPlaceCorrection(StoredPlaceCorrection(
            role: role, coordinate: coordinate, name: request.name, fromDay: day, createdMs: broker.configuration.clock.now().unixMs))
        let weeks = try MomentEngine(store: broker.store, builder: broker.builder).refresh(correctedFrom: [stored.fromDay])
        logger.info("known place set by the person", metadata: ["role": "\(role.rawValue)", "from": "\(request.fromDay)", "weeks": "\(weeks)"])
        return .placesReply(try placesReply(weeksRebuilt: weeks))
    }

    func placesUnset(_ request: PlacesUnsetRequest) throws -> Envelope.Body {
        let engine = MomentEngine(store: broker.store, builder: broker.builder)
        guard !request.role.isEmpty else {
            // Every correction, readable or not: the moments of the whole library are built again.
            let removed = try broker.store.removePlaceCorrections(role: nil)
            let weeks = removed == 0 ? 0 : try engine.refresh(correctedFrom: [nil])
            logger.info("known places reset by the person", metadata: ["removed": "\(removed)", "weeks": "\(weeks)"])
            return .placesReply(try placesReply(weeksRebuilt: weeks))
        }
        let role: StoredPlaceCorrection.Role, day: Int?
        switch (correctedRole(request.role), correctedDay(request.fromDay)) {
        case (.failure(let refusal), _), (_, .failure(let refusal)): return refusal.body
        case (.success(let r), .success(let d)): (role, day) = (r, d)
        }
        let before = try broker.store.readablePlaceCorrections().filter { $0.role == role && (day == nil || $0.fromDay == day) }
        guard !before.isEmpty else {
            return .error(ErrorInfo(code: .notFound, message: "you have not set \(role.rawValue)\(request.fromDay.isEmpty ? "" : " from \(request.fromDay)")"))
        }
        try broker.store.removePlaceCorrections(role: role, fromDay: day.map { .some($0) })
        let weeks = try engine.refresh(correctedFrom: before.map(\.fromDay))
        logger.info("known place unset by the person", metadata: ["role": "\(role.rawValue)", "removed": "\(before.count)", "weeks": "\(weeks)"])
        return .placesReply(try placesReply(weeksRebuilt: weeks))
    }
}

/// A request about the person's places that cannot be carried out as asked: INVALID_ARGUMENT, with why.
struct PlacesRefusal: Error {
    let message: String
    init(_ message: String) { self.message = message }
    var body: Envelope.Body { .error(ErrorInfo(code: .invalidArgument, message: message)) }
}
