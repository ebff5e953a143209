import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

// MARK: - The cast

/// A city abroad the person travels to.
struct Destination: Sendable {
    var city: String
    var zone: ZoneRule
    /// The IANA name of its time zone (the tests check ``zone`` against it).
    var zoneIdentifier: String
    var flightHours: Double
    var hotel: Place
    var airport: Place
    var sights: [Place]
    var food: [Place]
}
