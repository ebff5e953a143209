public import Foundation

/// What a place is called when the person's own data gives it no name: the neighbourhood it lies in
/// inside a large city ("Kreuzberg"), else the city it lies in, or the town it is near ("Porto",
/// "near Arcos de Valdevez").
public struct PlaceName: Sendable, Hashable {
    /// The name a title uses: a large city's neighbourhood, else a city's name when the place lies
    /// within it, else "near <town>".
    public let place: String
    /// The nearest city (the one the place is in, or near).
    public let city: City
    /// Whether the place lies within the city (within ``City/radiusM`` of its centre).
    public let isInCity: Bool
    /// How far the city's centre is, in metres.
    public let distanceM: Double
}

extension Gazetteer {
    /// How far a town may be for a place to be "near" it: beyond, a place is named by its region.
    public static let nearDistance = 60_000.0

    /// What a place with no name of its own is called.
    /// - Parameters:
    ///   - latitude: degrees.
    ///   - longitude: degrees.
    /// - Returns: "Kreuzberg" inside Berlin, "Porto" inside Porto, "near Buckow" in the countryside, "Brandenburg" (the
    ///   region) far from any town; `nil` without a gazetteer.
    public func name(latitude: Double, longitude: Double) -> PlaceName? {
        name(latitude: latitude, longitude: longitude, neighbourhoods: nil)
    }

    /// ``name(latitude:longitude:)`` with the given neighbourhoods (tests give their own, or none);
    /// `nil`: ``neighbourhoods``, read only when a place lies in a city.
    func name(latitude: Double, longitude: Double, neighbourhoods: Gazetteer?) -> PlaceName? {
        guard let (city, distance) = nearest(latitude: latitude, longitude: longitude) else { return nil }
        if distance <= city.radiusM {
            // Inside a large city, its neighbourhood: "Ueno", not "Tokyo".
            let place = Self.neighbourhood(latitude: latitude, longitude: longitude, in: neighbourhoods ?? Self.neighbourhoods) ?? city.name
            return PlaceName(place: place, city: city, isInCity: true, distanceM: distance)
        }
        let place = distance <= Self.nearDistance || city.region.isEmpty ? "near \(city.name)" : city.region
        return PlaceName(place: place, city: city, isInCity: false, distanceM: distance)
    }

    /// The city an address names, as the person's own data writes it, checked against the gazetteer:
    /// the part of the address that is a city near the place ("Oranienstraße 12, 10999 Berlin" →
    /// "Berlin", "Rua da Junqueira, 1400-206 Lisboa, Portugal" → "Lisboa" when it is near Lisbon's
    /// name or no part is a known city). Addresses come in every form: with or without a country,
    /// postcode before or after the city, in the local language.
    /// - Parameters:
    ///   - address: the address, parts separated by commas or new lines.
    ///   - latitude: where the place is, degrees.
    ///   - longitude: where the place is, degrees.
    /// - Returns: the city, or `nil` when the address has none to read.
    public func city(fromAddress address: String, latitude: Double, longitude: Double) -> String? {
        let parts = address.split(whereSeparator: { $0 == "," || $0 == "\n" })
            .map { $0.split(separator: " ").filter { !$0.contains(where: \.isNumber) }.joined(separator: " ").trimmingCharacters(in: .whitespaces) }
        guard parts.count >= 2 else { return nil }
        // A part that is a city near the place, by name (accents and case aside).
        let near = cities(near: latitude, longitude, within: Self.nearDistance)
        let names = Set(near.map { Self.fold($0.name) })
        if let part = parts.last(where: { names.contains(Self.fold($0)) }) { return part }
        // Else the address's shape: "street number, city" (two parts) names the city last; with a
        // country after it, the part before the country, or before a state's two letters.
        var index = parts.count == 2 ? 1 : parts.count - 2
        if parts[index].count <= 2, parts[index].allSatisfy(\.isUppercase), index > 1 { index -= 1 }
        return parts[index].isEmpty ? nil : parts[index]
    }

    /// The time zone of the place: its nearest city's (GeoNames' IANA zone).
    public func timeZone(latitude: Double, longitude: Double) -> TimeZone? {
        nearest(latitude: latitude, longitude: longitude).flatMap { TimeZone(identifier: $0.city.timeZone) }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
