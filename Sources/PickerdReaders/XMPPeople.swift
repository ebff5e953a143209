import PickerdImport

/// The people a photo's XMP packet names, as photo managers write them:
/// - MWG face regions (`mwg-rs:Regions/mwg-rs:RegionList`, each region's `mwg-rs:Name`, when its
///   `mwg-rs:Type` is `Face` or absent): digiKam, Picasa, Lightroom, darktable, exiftool's
///   `-XMP-mwg-rs:RegionName`;
/// - Microsoft's regions (`MP:RegionInfo/MPRI:Regions`, each `MPReg:PersonDisplayName`): Windows
///   Photo Gallery, exiftool's `-XMP-MP:RegionPersonDisplayName`;
/// - digiKam's tags under `People/` (`digiKam:TagsList`: `People/Friends/Maya Lee` names Maya Lee;
///   its own `Unknown` and `Unconfirmed` people tags name no one), Lightroom's `People|…`
///   (`lr:hierarchicalSubject`), and IPTC's `Iptc4xmpExt:PersonInImage`.
///
/// Names are read by their elements' local names (XMP's prefixes are conventions), as elements or
/// as the attribute shorthand (`<rdf:Description mwg-rs:Name="…"/>`). The packet is found with a
/// bounded byte scan: a JPEG's XMP segment (its APP1, at most 64 KiB), or the first
/// ``headScanBytes`` of a HEIC (where exiftool and cameras put the XMP item).
enum XMPPeople {
    /// How much of a HEIC is scanned for an XMP packet.
    static let headScanBytes = 256 << 10
    /// The most names read from one photo.
    static let maximumNames = 64

    /// The XMP packet (`<x:xmpmeta` … `</x:xmpmeta>`) in `bytes`, if there is one.
    static func packet(in bytes: [UInt8]) -> [UInt8]? {
        guard let start = find(Array("<x:xmpmeta".utf8), in: bytes, from: 0) else { return nil }
        let closing = Array("</x:xmpmeta>".utf8)
        guard let end = find(closing, in: bytes, from: start) else { return nil }
        return Array(bytes[start..<(end + closing.count)])
    }

    /// The people `packet` names, each once, in the order first named.
    /// - Parameter packet: an XMP packet (`<x:xmpmeta>` … or a bare `<rdf:RDF>`).
    /// - Returns: names; empty when it names no one or cannot be read as XML.
    static func names(inPacket packet: [UInt8]) -> [String] {
        guard let root = try? ExportXML.parse(packet, file: "XMP") else { return [] }
        return names(in: root)
    }

    /// The people a parsed XMP packet names (``names(inPacket:)``), for a probe that also reads the
    /// packet's place (``XMPLocation``) from the same parse.
    static func names(in root: ExportXML.Element) -> [String] {
        var found: [String] = []
        func add(_ name: String?) {
            guard let name = name.flatMap(ImportedContact.normalized), name.count <= 256, !found.contains(name), found.count < maximumNames else { return }
            found.append(name)
        }
        /// A property of `element` given as a child element or as an attribute (on it or on an
        /// `rdf:Description` inside it).
        func property(_ element: ExportXML.Element, _ name: String) -> String? {
            if let value = element.childValue(name) ?? element.attribute(name) { return value }
            return element.child("Description").flatMap { $0.childValue(name) ?? $0.attribute(name) }
        }
        func items(_ element: ExportXML.Element) -> [ExportXML.Element] {
            element.children.flatMap { container in container.children("li") }
        }
        func walk(_ element: ExportXML.Element) {
            switch element.name {
            case "RegionList":
                for region in items(element) {
                    let type = property(region, "Type")
                    if type == nil || type == "Face" { add(property(region, "Name")) }
                }
                return
            case "Regions":
                // Microsoft's regions (under MP:RegionInfo); MWG's Regions hold a RegionList, walked below.
                for region in items(element) { add(property(region, "PersonDisplayName")) }
            case "TagsList":
                for tag in items(element) where tag.value.hasPrefix("People/") {
                    let person = tag.value.split(separator: "/").last.map(String.init)
                    if let person, !["People", "Unknown", "Unconfirmed", "Ignored"].contains(person) { add(person) }
                }
                return
            case "hierarchicalSubject":
                for tag in items(element) where tag.value.hasPrefix("People|") {
                    if let person = tag.value.split(separator: "|").last.map(String.init), person != "People" { add(person) }
                }
                return
            case "PersonInImage":
                for person in items(element) { add(person.value) }
                return
            default:
                break
            }
            for child in element.children { walk(child) }
        }
        walk(root)
        return found
    }

    /// The offset of `needle` in `haystack` at or after `from`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var at = from
        while at <= haystack.count - needle.count {
            guard let candidate = haystack[at...(haystack.count - needle.count)].firstIndex(of: first) else { return nil }
            if haystack[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            at = candidate + 1
        }
        return nil
    }
}
