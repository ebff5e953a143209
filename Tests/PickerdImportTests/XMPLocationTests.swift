import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A photo's own place names (IPTC/XMP location fields, IPTC-IIM), read in pickerd-reader's probe.
@Suite("Photos' IPTC/XMP place names")
struct XMPLocationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/xmp")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    @Test("attribute form, as Adobe's XMP Core writes it (Lightroom): IPTC Core's fields on rdf:Description, LocationShown's in an rdf:li's rdf:Description")
    func adobeAttributes() throws {
        let place = try #require(XMPLocation.read(packet: Self.fixture("adobe_attributes.xmp")))
        #expect(place == XMPLocation(sublocation: "Princes Rock Lookout", city: "Wentworth Falls", state: "New South Wales", country: "Australia"))
        #expect(place.placeName == "Princes Rock Lookout")
    }

    @Test("element form, as exiftool writes it: one rdf:Description per namespace, LocationCreated (where taken) over IPTC Core and LocationShown")
    func exiftoolElements() throws {
        let place = try #require(XMPLocation.read(packet: Self.fixture("exiftool_elements.xmp")))
        // LocationCreated says Princes Rock in Wentworth Falls; IPTC Core's Katoomba is another city, so
        // its fields are not mixed in; LocationShown (same city) lends its state and country.
        #expect(place == XMPLocation(sublocation: "Princes Rock", city: "Wentworth Falls", state: "New South Wales", country: "Australia"))
    }

    @Test("LocationShown alone, as the IPTC reference image writes it: attributes on the first rdf:li, the second passed over")
    func shownOnly() throws {
        let place = try #require(XMPLocation.read(packet: Self.fixture("iptc_reference_shown_only.xmp")))
        #expect(place == XMPLocation(sublocation: "Addingham Churchyard", city: "Addingham", state: "North Yorkshire", country: "United Kingdom"))
    }

    @Test("an element that is an rdf:Alt by xml:lang gives its x-default; LocationName names the place when no sublocation does")
    func alternatives() throws {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">
            <Iptc4xmpExt:LocationCreated rdf:parseType="Resource">
              <Iptc4xmpExt:LocationName><rdf:Alt><rdf:li xml:lang="pt">Jardins do Palácio de Cristal</rdf:li>
                <rdf:li xml:lang="x-default">Crystal Palace Gardens</rdf:li></rdf:Alt></Iptc4xmpExt:LocationName>
              <Iptc4xmpExt:City>Porto</Iptc4xmpExt:City>
            </Iptc4xmpExt:LocationCreated>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        #expect(XMPLocation.read(packet: packet) == XMPLocation(sublocation: "Crystal Palace Gardens", city: "Porto"))
    }

    @Test("broken, huge and hostile packets name nothing or only what they say: no entity is expanded, values are bounded")
    func bounded() throws {
        let broken = Array(#"<x:xmpmeta><rdf:RDF><rdf:Description photoshop:City="Porto"><photoshop:State>Norte</rdf:RDF>"#.utf8)
        #expect(XMPLocation.read(packet: broken) == nil)
        // Over the size cap, though well-formed: not parsed at all.
        let padding = String(repeating: " ", count: XMPLocation.maximumPacketBytes)
        let huge = Array("<x:xmpmeta><rdf:RDF><rdf:Description photoshop:City=\"Porto\">\(padding)</rdf:Description></rdf:RDF></x:xmpmeta>".utf8)
        #expect(XMPLocation.read(packet: huge) == nil)
        // A DTD's entities are not expanded: the reference stays as it was written.
        let entities = Array("""
            <!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <x:xmpmeta><rdf:RDF><rdf:Description photoshop:City="&b;" photoshop:Country="Portugal"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        #expect(XMPLocation.read(packet: entities) == XMPLocation(city: "&b;", country: "Portugal"))
        // Control characters and runs of spaces are flattened; a long value is cut.
        let long = String(repeating: "Ponte ", count: 100)
        let messy = Array("<x:xmpmeta><rdf:RDF><rdf:Description Iptc4xmpCore:Location=\"  Ribeira&#x9;&#x1B;Square \" photoshop:City=\"\(long)\"/></rdf:RDF></x:xmpmeta>".utf8)
        let place = try #require(XMPLocation.read(packet: messy))
        #expect(place.sublocation == "Ribeira Square")
        #expect(place.city?.count == XMPLocation.maximumLength)
        // A state or a country alone names no place.
        #expect(XMPLocation(state: "Norte", country: "Portugal").placeName == nil)
    }

    @Test("IPTC-IIM in APP13 (Photoshop 3.0, 8BIM 0x0404): Sub-location and City, UTF-8 when 1:90 says so; a block that runs past its end names nothing")
    func iim() throws {
        func dataset(_ record: UInt8, _ number: UInt8, _ value: [UInt8]) -> [UInt8] {
            [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        let record = dataset(1, 90, [0x1B, 0x25, 0x47]) + dataset(2, 92, Array("Praça da Ribeira".utf8)) + dataset(2, 90, Array("Porto".utf8))
        func app13(_ iim: [UInt8], size: Int? = nil) -> [UInt8] {
            let s = size ?? iim.count
            return Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
                + [UInt8(s >> 24), UInt8(s >> 16 & 0xFF), UInt8(s >> 8 & 0xFF), UInt8(s & 0xFF)] + iim + (iim.count & 1 == 1 ? [0] : [])
        }
        #expect(XMPLocation.read(app13: app13(record)) == XMPLocation(sublocation: "Praça da Ribeira", city: "Porto"))
        // Latin-1, as older cameras write it without saying.
        let latin1 = dataset(2, 90, [0x4D, 0xE1, 0x6C, 0x61, 0x67, 0x61])  // "Málaga"
        #expect(XMPLocation.read(app13: app13(latin1))?.city == "Málaga")
        #expect(XMPLocation.read(app13: app13(record, size: 4_000)) == nil)
        #expect(XMPLocation.read(app13: Array("Adobe_CM".utf8)) == nil)
    }

    @Test("the probe reads the place exiftool writes into a JPEG's XMP and IPTC-IIM, a PNG's and a HEIC's XMP; not when XMP is not read")
    func probe() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-xmp-place")
        let jpeg = folder.path + "/falls.jpg", iim = folder.path + "/old.jpg", png = folder.path + "/falls.png", heic = folder.path + "/falls.heic"
        try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Princes Rock Lookout", "-XMP-photoshop:City=Wentworth Falls",
                                     "-XMP-photoshop:Country=Australia"], to: jpeg)
        let probed = try MediaProbe.probe(path: jpeg, readPeople: true).media
        #expect(probed.placeName == "Princes Rock Lookout" && probed.placeCity == "Wentworth Falls", "\(probed)")
        #expect(try MediaProbe.probe(path: jpeg, readPeople: false).media.placeName == nil)

        try MediaFixtures.jpeg(at: iim, exif: .init(dateTimeOriginal: "2024:05:04 10:20:00"))
        try MediaFixtures.writeTags(["-IPTC:Sub-location=Leura Cascades", "-IPTC:City=Leura", "-IPTC:CodedCharacterSet=UTF8"], to: iim)
        let fromIIM = try MediaProbe.probe(path: iim, readPeople: true).media
        #expect(fromIIM.placeName == "Leura Cascades" && fromIIM.placeCity == "Leura", "\(fromIIM)")

        try MediaFixtures.png(at: png, exif: .init(dateTimeOriginal: "2024:05:04 10:30:00"))
        try MediaFixtures.writeTags(["-XMP-photoshop:City=Katoomba"], to: png)
        let fromPNG = try MediaProbe.probe(path: png, readPeople: true).media
        #expect(fromPNG.placeName == "Katoomba" && fromPNG.placeCity == "Katoomba", "\(fromPNG)")

        try MediaFixtures.heic(at: heic, exif: .init(dateTimeOriginal: "2024:05:04 10:40:00"))
        try MediaFixtures.writeTags(["-XMP-iptcExt:LocationShownSublocation=Echo Point", "-XMP-iptcExt:LocationShownCity=Katoomba"], to: heic)
        #expect(try MediaProbe.probe(path: heic, readPeople: true).media.placeName == "Echo Point")
    }

    @Test("a TIFF's place: XMP in IFD0's tag 700, IPTC-IIM in tag 33723 as exiftool writes it (int32u), or in Photoshop's image resources (tag 34377)")
    func tiff() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-xmp-tiff")
        let xmp = folder.path + "/falls.tif", iim = folder.path + "/leura.tif"
        for path in [xmp, iim] { try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", path]) }
        try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Princes Rock Lookout", "-XMP-photoshop:City=Wentworth Falls",
                                     "-DateTimeOriginal=2024:05:04 10:10:00"], to: xmp)
        let fromXMP = try MediaProbe.probe(path: xmp, readPeople: true).media
        #expect(fromXMP.placeName == "Princes Rock Lookout" && fromXMP.placeCity == "Wentworth Falls", "\(fromXMP)")
        #expect(fromXMP.takenAtMs != nil, "its EXIF still read: \(fromXMP)")
        #expect(try MediaProbe.probe(path: xmp, readPeople: false).media.placeName == nil)

        try MediaFixtures.writeTags(["-IPTC:Sub-location=Leura Cascades", "-IPTC:City=Leura", "-IPTC:CodedCharacterSet=UTF8"], to: iim)
        let fromIIM = try MediaProbe.probe(path: iim, readPeople: true).media
        #expect(fromIIM.placeName == "Leura Cascades" && fromIIM.placeCity == "Leura", "\(fromIIM)")

        // A big-endian TIFF whose IPTC lies only in Photoshop's image resources (8BIM 0x0404), as
        // Photoshop keeps it: written here byte by byte (no tool writes only that).
        var record: [UInt8] = []
        for (dataset, text) in [(92, "Govetts Leap"), (90, "Blackheath")] {
            record += [0x1C, 2, UInt8(dataset), 0, UInt8(text.utf8.count)] + Array(text.utf8)
        }
        let resources = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, UInt8(record.count)] + record + (record.count % 2 == 1 ? [0] : [])
        var bytes: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]           // "MM", 42, IFD0 at 8
        bytes += [0, 1]                                                   // one entry
        bytes += [0x86, 0x49, 0, 7, 0, 0, 0, UInt8(resources.count), 0, 0, 0, 26]  // 34377, UNDEFINED, at 26
        bytes += [0, 0, 0, 0]                                             // no next IFD
        bytes += resources
        let photoshop = folder.path + "/blackheath.tif"
        try Data(bytes).write(to: URL(fileURLWithPath: photoshop))
        let (packet, named) = try MediaProbe.tiffPackets(MediaFile(path: photoshop))
        #expect(packet == nil)
        let place = try #require(named)
        #expect(place.placeName == "Govetts Leap" && place.city == "Blackheath", "\(place)")

        // An entry that points past the file's end, or claims more than a packet may hold, is no packet.
        var broken = bytes
        broken[19] = 0xFF  // the resources' offset far past the end
        try Data(broken).write(to: URL(fileURLWithPath: photoshop))
        #expect(try MediaProbe.tiffPackets(MediaFile(path: photoshop)).iim == nil)
        broken = bytes
        broken[14] = 0x7F  // a count of two billion
        try Data(broken).write(to: URL(fileURLWithPath: photoshop))
        #expect(try MediaProbe.tiffPackets(MediaFile(path: photoshop)).iim == nil)
    }

    @Test("the place crosses the reader protocol and is stored with the photo item")
    func carried() throws {
        var media = ProbedMedia(kind: .photo, contentType: "image/jpeg")
        media.placeName = "Princes Rock Lookout"
        media.placeCity = "Wentworth Falls"
        let back = try ProbedMedia(media.message(people: []))
        #expect(back.placeName == "Princes Rock Lookout" && back.placeCity == "Wentworth Falls")
        #expect(try ProbedMedia(ProbedMedia(kind: .photo, contentType: "image/jpeg").message(people: [])).placeName == nil)

        let temporary = try TemporaryStore()
        let folder = try TemporaryDirectory(prefix: "pkd-xmp-store")
        let jpeg = folder.path + "/IMG_0001.JPG"
        try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Princes Rock Lookout", "-XMP-photoshop:City=Wentworth Falls"], to: jpeg)
        let source = try temporary.store.addSource(path: folder.path, timeMs: 0)
        _ = try SourceIndexer(store: temporary.store).scan(source)
        let item = try #require(try temporary.store.items().first { $0.kind == .photo })
        #expect(item.filePlaceName == "Princes Rock Lookout" && item.filePlaceCity == "Wentworth Falls", "\(item)")
    }
}
