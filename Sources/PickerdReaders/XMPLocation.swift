import PickerdImport

/// The place a photo's own metadata names: the person's data (their camera's, their photo manager's
/// or their own words) on where it was taken, which names a stay from photos above the gazetteer.
///
/// Read from the XMP packet (found as ``XMPPeople`` finds it) as photo managers write it:
/// - IPTC Core's legacy fields on the `rdf:Description`, as attributes (Lightroom, Adobe's XMP
///   toolkit: `Iptc4xmpCore:Location="Rue Vignon" photoshop:City="Paris"`) or as elements
///   (digiKam, exiftool: `<photoshop:City>Paris</photoshop:City>`): `Iptc4xmpCore:Location` (the
///   sublocation), `photoshop:City`, `photoshop:State`, `photoshop:Country`;
/// - IPTC Extension's `Iptc4xmpExt:LocationCreated` (where it was taken) and `LocationShown` (what
///   it shows), each a structure or an `rdf:Bag`/`rdf:Seq` of them whose first entry is read, its
///   fields as attributes of the `rdf:li` (exiftool, the IPTC reference image), as elements of an
///   `rdf:li rdf:parseType="Resource"`, or inside an `rdf:Description` of the `rdf:li` (digiKam):
///   `Sublocation`, `City`, `ProvinceState`, `CountryName`, and `LocationName` (an `rdf:Alt` by
///   `xml:lang`, its `x-default` first).
///
/// And from IPTC-IIM, which cameras' and older tools' JPEGs hold in APP13 (Photoshop's "Photoshop
/// 3.0" image resources, resource 0x0404): 2:92 Sub-location, 2:90 City, 2:95 Province/State,
/// 2:101 Country.
///
/// Where taken wins over what is shown: LocationCreated, then IPTC Core's fields (which cameras and
/// Lightroom fill with where the photo was taken), then LocationShown, then IIM. Every value is
/// trimmed and at most ``maximumLength`` characters; the packet is at most ``maximumPacketBytes``
/// (a larger one names nothing), parsed by ``ExportXML``, which expands no entity but XML's own.
public struct XMPLocation: Sendable, Hashable {
    /// The most bytes of an XMP packet read for a place (a JPEG's XMP segment holds at most 64 KiB;
    /// a HEIC's or WebP's packet naming a place is a few KiB).
    public static let maximumPacketBytes = 1 << 20
    /// The longest name kept, in characters.
    public static let maximumLength = 128

    /// The place within a city (`Iptc4xmpCore:Location`, `Sublocation`, IIM 2:92).
    public var sublocation: String?
    /// The city (`photoshop:City`, `City`, IIM 2:90).
    public var city: String?
    /// The province or state (`photoshop:State`, `ProvinceState`, IIM 2:95).
    public var state: String?
    /// The country (`photoshop:Country`, `CountryName`, IIM 2:101).
    public var country: String?

    /// Creates a place from its fields.
    public init(sublocation: String? = nil, city: String? = nil, state: String? = nil, country: String? = nil) {
        self.sublocation = sublocation
        self.city = city
        self.state = state
        self.country = country
    }

    /// Whether no field names anything.
    public var isEmpty: Bool { sublocation == nil && city == nil && state == nil && country == nil }

    /// The name a stay from photos takes: the sublocation, else the city. A state or a country alone
    /// names no place (the gazetteer's nearest town says more).
    public var placeName: String? { sublocation ?? city }

    /// Fills the fields `self` lacks from `other`, when `other` names the same city or `self` none.
    mutating func fill(from other: XMPLocation) {
        if city != nil, other.city != nil, city != other.city { return }
        sublocation = sublocation ?? other.sublocation
        city = city ?? other.city
        state = state ?? other.state
        country = country ?? other.country
    }

    /// A field's value as kept: trimmed, non-empty, at most ``maximumLength`` characters, no control
    /// characters.
    static func cleaned(_ value: String?) -> String? {
        guard let value else { return nil }
        let flat = String(value.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        let trimmed = flat.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(maximumLength))
    }

    // MARK: XMP

    /// The place an XMP packet names.
    /// - Parameter packet: an XMP packet (`<x:xmpmeta>` … or a bare `<rdf:RDF>`).
    /// - Returns: the place; `nil` when it names none, is over ``maximumPacketBytes`` or cannot be read as XML.
    public static func read(packet: [UInt8]) -> XMPLocation? {
        guard packet.count <= maximumPacketBytes, let root = try? ExportXML.parse(packet, file: "XMP") else { return nil }
        return read(root: root)
    }

    /// The place a parsed XMP packet names (``read(packet:)``, whose size bound the caller keeps),
    /// for a probe that also reads the packet's people (``XMPPeople``) from the same parse.
    static func read(root: ExportXML.Element) -> XMPLocation? {
        var created = XMPLocation(), core = XMPLocation(), shown = XMPLocation()
        // The properties of every rdf:Description (a packet may split them over several, one per
        // namespace, as Adobe's toolkit and exiftool do).
        func walk(_ element: ExportXML.Element, depth: Int) {
            guard depth < 16 else { return }
            if element.name == "Description" {
                core.fill(from: XMPLocation(sublocation: property(element, "Location"), city: property(element, "City"),
                                            state: property(element, "State"), country: property(element, "Country")))
                if let structure = element.child("LocationCreated").flatMap(firstStructure) { created.fill(from: details(structure)) }
                if let structure = element.child("LocationShown").flatMap(firstStructure) { shown.fill(from: details(structure)) }
                return
            }
            for child in element.children { walk(child, depth: depth + 1) }
        }
        walk(root, depth: 0)
        var place = created
        place.fill(from: core)
        place.fill(from: shown)
        return place.isEmpty ? nil : place
    }

    /// A simple property of a description, as an attribute or as a child element (its text, or an
    /// `rdf:Alt`'s `x-default` item, else its first).
    private static func property(_ element: ExportXML.Element, _ name: String) -> String? {
        if let value = cleaned(element.attribute(name)) { return value }
        guard let child = element.child(name) else { return nil }
        if let value = cleaned(child.value) { return value }
        return alternative(child)
    }

    /// An `rdf:Alt` (or `rdf:Bag`/`rdf:Seq`) inside `element`: its `x-default` item, else its first.
    private static func alternative(_ element: ExportXML.Element) -> String? {
        guard let container = element.children.first(where: { ["Alt", "Bag", "Seq"].contains($0.name) }) else { return nil }
        let items = container.children("li")
        let chosen = items.first { $0.attribute("lang") == "x-default" } ?? items.first
        return cleaned(chosen?.value)
    }

    /// The first location structure of an IPTC Extension property: the first `rdf:li` of its
    /// `rdf:Bag`/`rdf:Seq`, or the property itself when it is a single structure.
    private static func firstStructure(_ property: ExportXML.Element) -> ExportXML.Element? {
        if let container = property.children.first(where: { $0.name == "Bag" || $0.name == "Seq" }) {
            return container.child("li")
        }
        return property
    }

    /// An IPTC Extension location structure's fields: attributes or child elements of the structure,
    /// or of an `rdf:Description` inside it.
    private static func details(_ structure: ExportXML.Element) -> XMPLocation {
        func field(_ name: String) -> String? {
            property(structure, name) ?? structure.child("Description").flatMap { property($0, name) }
        }
        return XMPLocation(sublocation: field("Sublocation") ?? field("LocationName"), city: field("City"),
                           state: field("ProvinceState"), country: field("CountryName"))
    }

    // MARK: IPTC-IIM

    /// The place a JPEG's APP13 segment's IPTC-IIM record names.
    /// - Parameter payload: the APP13 payload (after the segment's length), starting "Photoshop 3.0\0".
    /// - Returns: the place; `nil` when it names none or is not Photoshop's image resources.
    public static func read(app13 payload: [UInt8]) -> XMPLocation? {
        let signature = Array("Photoshop 3.0\0".utf8)
        guard payload.count <= maximumPacketBytes, payload.starts(with: signature) else { return nil }
        return read(photoshopResources: payload[signature.count...])
    }

    /// The place Photoshop's image resources name in their IPTC-IIM record (resource 0x0404): a
    /// JPEG's APP13 after its signature, a TIFF's tag 34377.
    /// - Parameter payload: the resource blocks.
    /// - Returns: the place; `nil` when they hold no record, or it names none.
    static func read(photoshopResources payload: ArraySlice<UInt8>) -> XMPLocation? {
        var at = payload.startIndex
        var iim: ArraySlice<UInt8>?
        // Image resource blocks: "8BIM", a 2-byte id, a Pascal name padded to even, a 4-byte size,
        // the data padded to even.
        while at + 12 <= payload.endIndex, payload[at..<(at + 4)].elementsEqual(Array("8BIM".utf8)) {
            let id = Int(payload[at + 4]) << 8 | Int(payload[at + 5])
            let nameLength = Int(payload[at + 6])
            var cursor = at + 6 + ((nameLength + 2) & ~1)
            guard cursor + 4 <= payload.endIndex else { return nil }
            let size = Int(payload[cursor]) << 24 | Int(payload[cursor + 1]) << 16 | Int(payload[cursor + 2]) << 8 | Int(payload[cursor + 3])
            cursor += 4
            guard size >= 0, size <= payload.endIndex - cursor else { return nil }
            if id == 0x0404 {
                iim = payload[cursor..<(cursor + size)]
                break
            }
            at = cursor + size + (size & 1)
        }
        return iim.flatMap(read(iim:))
    }

    /// The place an IPTC-IIM record names (2:92 Sub-location, 2:90 City, 2:95 Province/State,
    /// 2:101 Country): Photoshop's resource 0x0404, or a TIFF's IPTC-NAA tag 33723 as it is.
    /// - Parameter iim: the record's datasets.
    /// - Returns: the place; `nil` when it names none.
    static func read(iim: ArraySlice<UInt8>) -> XMPLocation? {
        var place = XMPLocation()
        var utf8 = false
        var index = iim.startIndex
        // Datasets: 0x1C, record, dataset, a 2-byte length (an extended length, top bit set, is
        // not a place's and ends the reading).
        while index + 5 <= iim.endIndex, iim[index] == 0x1C {
            let record = iim[index + 1], dataset = iim[index + 2]
            let length = Int(iim[index + 3]) << 8 | Int(iim[index + 4])
            guard length & 0x8000 == 0, index + 5 + length <= iim.endIndex else { break }
            let value = Array(iim[(index + 5)..<(index + 5 + length)])
            // 1:90 Coded Character Set: ESC % G is UTF-8; otherwise the text is taken as Latin-1
            // unless it is valid UTF-8 (what cameras and most tools write without saying).
            if record == 1, dataset == 90 { utf8 = value == [0x1B, 0x25, 0x47] }
            if record == 2 {
                func text() -> String? {
                    if utf8 { return cleaned(String(decoding: value, as: UTF8.self)) }
                    return cleaned(String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) }))
                }
                switch dataset {
                case 92: place.sublocation = place.sublocation ?? text()
                case 90: place.city = place.city ?? text()
                case 95: place.state = place.state ?? text()
                case 101: place.country = place.country ?? text()
                default: break
                }
            }
            index += 5 + length
        }
        return place.isEmpty ? nil : place
    }
}
