import CGeonames

/// The neighbourhoods of large cities: inside Tokyo, Berlin or Melbourne, the city's name says
/// nothing to the person who lives there ("Afternoon in Tokyo"), so a place there is named by the
/// neighbourhood it lies in ("Afternoon in Ueno", "Morning run in Kreuzberg").
///
/// The places are GeoNames' cities500 (places of 500 people or more, CC BY 4.0, geonames.org) that
/// lie inside a city of 250,000 people or more: about 21,000, compiled into pickerd
/// (`Sources/CGeonames/neighbourhoods.c`, made by `Tools/generate-neighbourhoods`). GeoNames gives
/// each a centre, not a boundary, so a place is in the neighbourhood whose centre is nearest, within
/// ``reach`` (the cells of a Voronoi diagram over the centres, as offline reverse geocoders do):
/// Tokyo's chō are a few hundred metres apart, Berlin's Ortsteile two or three kilometres.
extension Gazetteer {
    /// The neighbourhoods, read on first use.
    public static let neighbourhoods = Gazetteer(cities: readNeighbourhoods())

    /// How far a neighbourhood's centre may be for a place to be named by it, in metres.
    public static let reach = 3_000.0

    /// The neighbourhoods' names, folded (case and accents aside): a place named so is an area, which
    /// a title says a moment was "in", not "at".
    static let areaNames: Set<String> = Set(neighbourhoods.cities.map { fold($0.name) })

    /// Whether `name` is a neighbourhood's name (so a title says "in Ueno", not "at Ueno").
    public static func isArea(_ name: String) -> Bool { areaNames.contains(fold(name)) }

    /// The neighbourhood a coordinate lies in: the one whose centre is nearest, within ``reach``.
    /// Only large cities have neighbourhoods here; elsewhere, `nil`.
    public static func neighbourhood(latitude: Double, longitude: Double) -> String? {
        guard let (place, distance) = neighbourhoods.nearest(latitude: latitude, longitude: longitude), distance <= reach else { return nil }
        return place.name
    }

    /// Parses the compiled list: "name\tlatitude\tlongitude\tpopulation\n" per place; a line that
    /// does not read is passed over.
    static func readNeighbourhoods() -> [City] {
        let bytes = UnsafeRawBufferPointer(start: pickerd_neighbourhoods(), count: Int(pickerd_neighbourhoods_size()))
        var places: [City] = []
        places.reserveCapacity(22_000)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count == 4, let latitude = Double(String(decoding: fields[1], as: UTF8.self)),
                  let longitude = Double(String(decoding: fields[2], as: UTF8.self)),
                  let population = Int(String(decoding: fields[3], as: UTF8.self)) else { continue }
            places.append(City(name: String(decoding: fields[0], as: UTF8.self), region: "", country: "", countryCode: "", timeZone: "",
                               latitude: latitude, longitude: longitude, population: population))
        }
        return places
    }
}
