import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

extension FailClosedRedactionTests {
    // MARK: Ultra HDR

    /// An XMP packet as exiftool's `-XMP<=` writes it whole, one `rdf:Description` with `body`.
    func xmpPacket(_ namespaces: String, _ body: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" \(namespaces)>\(body)</rdf:Description>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// Google's Ultra HDR image format (v1.0, developer.android.com/media/platform/hdr-image-format),
    /// written from its layout since no Ultra HDR encoder is packaged in Debian 12: the primary
    /// JPEG with an MPF index and XMP whose `hdrgm:Version` and GContainer directory name the gain
    /// map and its length, then the gain map, a JPEG of its own whose XMP holds the `hdrgm`
    /// parameters. A gain map is a JPEG like any other, so its own EXIF and XMP (here, a place a
    /// careless editor copied into it) go as a multi-picture JPEG's second image's do.
    @Test("an Ultra HDR JPEG: neither the base image nor its gain map leaves with a place; the gain map's hdrgm parameters stay")
    func ultraHDR() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-uhdr")
        let primary = directory.path + "/primary.jpg", gainMap = directory.path + "/gainmap.jpg"
        let hdrgm = #"xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/""#
        // The gain map: a quarter-size grey JPEG, its metadata the hdrgm parameters (and a place).
        try jpeg(gainMap, gradient: "gradient:gray20-gray80", size: "48x32", tags: Self.tokyo)
        let gainMapXMP = try write(Array(xmpPacket(
            hdrgm + #" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/""#
                + #" hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2.3" hdrgm:Gamma="1" hdrgm:OffsetSDR="0.015625""#
                + #" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2.3" hdrgm:BaseRenditionIsHDR="False""#
                + #" exif:GPSLatitude="35,39.516N" exif:GPSLongitude="139,44.724E" photoshop:City="Edo""#, "").utf8),
            "gainmap.xmp", in: directory)
        try MediaFixtures.writeTags(["-XMP<=" + gainMapXMP], to: gainMap)
        let gainMapBytes = try read(gainMap)
        // The primary: the photo, with the container directory naming the gain map's length.
        try jpeg(primary, progressive: false, tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13"])
        let primaryXMP = try write(Array(xmpPacket(
            hdrgm + #" xmlns:Container="http://ns.google.com/photos/1.0/container/""#
                + #" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" hdrgm:Version="1.0""#,
            #"<Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>"#
                + #"<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\#(gainMapBytes.count)"/></rdf:li>"#
                + "</rdf:Seq></Container:Directory>").utf8),
            "primary.xmp", in: directory)
        // Only the block: the primary's EXIF GPS stays, its XMP is the directory alone.
        try MediaFixtures.writeTags(["-XMP<=" + primaryXMP], to: primary)
        let path = try write(multiPicture(first: read(primary), second: gainMapBytes), "PXL_20240504_101113000.jpg", in: directory)
        let before = try exiftoolTags(path, ["-MPF:all", "-XMP-hdrgm:all", "-XMP-GContainer:all"])
        #expect(before["MPF0:NumberOfImages"] == "2", "\(before)")
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == (try read(path)).count, "nothing was cut: the gain map goes with the photo")
        // The gain map is where the directory says, still a JPEG, its parameters and pixels as they were.
        let gainMapOut = try write(Array(bytes[(bytes.count - gainMapBytes.count)...]), "gainmap-out.jpg", in: directory)
        #expect(contains(try read(gainMapOut), Array(#"hdrgm:GainMapMax="2.3""#.utf8)))
        #expect(try exiftoolLocation(gainMapOut).isEmpty)
        #expect(try pixels(gainMapOut) == pixels(gainMap))
        #expect(try pixels(out) == pixels(primary))
        #expect(contains(bytes, Array(#"Item:Semantic="GainMap""#.utf8)))
        #expect(try exiftoolTags(out, ["-DateTimeOriginal"])["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
    }
}
