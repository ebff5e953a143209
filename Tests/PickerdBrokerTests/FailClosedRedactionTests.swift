import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

/// Location redaction fails closed (issue 27): TIFF and DNG lose location from every IFD, a JPEG's
/// appended images and motion-photo MP4s lose theirs (or are cut off), and a file of a type pickerd
/// cannot redact is refused. Fixtures are made by the real tools (ImageMagick's `convert`, exiftool,
/// FFmpeg); where no tool writes a structure (an MPF index, a GPS IFD outside IFD0, a Samsung
/// trailer) it is added to their files by hand, as noted at each. Every result is read back with
/// exiftool, all groups and embedded documents (`-a -G1 -gps:all -xmp:all -location:all -ee`), and
/// searched byte for byte for the coordinates in every spelling the tools wrote them.
@Suite("Fail-closed location redaction")
struct FailClosedRedactionTests {
    // MARK: The places

    /// Where the main image was taken (the Eiffel Tower), as exiftool arguments.
    static let paris = ["-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-GPSAltitude=35",
                        "-XMP:GPSLatitude=48.8584", "-XMP:GPSLongitude=2.2945", "-XMP:City=Lutetia"]
    /// Where an appended image was taken (Tokyo Tower).
    static let tokyo = ["-GPSLatitude=35.6586", "-GPSLatitudeRef=N", "-GPSLongitude=139.7454", "-GPSLongitudeRef=E",
                        "-XMP:GPSLatitude=35.6586", "-XMP:GPSLongitude=139.7454", "-XMP:City=Edo"]
    /// The places as ISO 6709, for FFmpeg's `location` and exiftool's `©xyz`.
    static let parisISO6709 = "+48.8584+002.2945/"

    /// The coordinates in every text form the tools write: decimal ("48.8584", FFmpeg's
    /// "+48.8584+002.2945/"), XMP's degrees and decimal minutes ("48,51.504N", "2,17.67E"), exiftool's
    /// printed form, and the place names.
    static let coordinateText = ["48.858", "2.2945", "002.294", "48,51", "2,17.6", "35.658", "139.745", "35,39", "139,44",
                                 "Lutetia", "Edo"]

    /// The degrees and minutes of each latitude as TIFF writes them (48/1 51/1 and 35/1 39/1), in
    /// both byte orders.
    static let coordinateRationals: [(String, [UInt8])] = [(48, 51), (35, 39)].flatMap { degrees, minutes in
        [("\(degrees)/1 \(minutes)/1 big-endian", [0, 0, 0, degrees, 0, 0, 0, 1, 0, 0, 0, minutes, 0, 0, 0, 1]),
         ("\(degrees)/1 \(minutes)/1 little-endian", [degrees, 0, 0, 0, 1, 0, 0, 0, minutes, 0, 0, 0, 1, 0, 0, 0])]
    }

    /// A 3GPP `loci` atom's latitude and longitude, 16.16 fixed point, as FFmpeg rounds them.
    static let lociCoordinates: [(String, [UInt8])] = [("loci latitude", 48.8584), ("loci longitude", 2.2945)].map { name, value in
        let fixed = Int32((value * 65536).rounded())
        return (name, [UInt8(truncatingIfNeeded: fixed >> 24), UInt8(truncatingIfNeeded: fixed >> 16),
                       UInt8(truncatingIfNeeded: fixed >> 8), UInt8(truncatingIfNeeded: fixed)])
    }

    // MARK: Helpers

    func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Writes `bytes` to `name` in `directory` and returns its path.
    func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        var i = bytes.startIndex
        while let at = bytes[i...].firstIndex(of: first) {
            if at + needle.count <= bytes.count, bytes[at..<(at + needle.count)].elementsEqual(needle) { return true }
            i = at + 1
        }
        return false
    }

    func index(of needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Every spelling of the coordinates found in `bytes`. `loci` also looks for FFmpeg's
    /// fixed-point `loci` values (only in files that hold a movie with one: four bytes could occur
    /// anywhere in compressed data).
    func traces(in bytes: [UInt8], loci: Bool = false) -> [String] {
        Self.coordinateText.filter { contains(bytes, Array($0.utf8)) }
            + Self.coordinateRationals.filter { contains(bytes, $0.1) }.map(\.0)
            + (loci ? Self.lociCoordinates.filter { contains(bytes, $0.1) }.map(\.0) : [])
    }

    /// exiftool's location tags in a file, all groups and embedded documents: "Group:Tag=value" lines
    /// of `-a -G1 -n -gps:all -xmp:all -location:all -ee` whose name or value says where.
    func exiftoolLocation(_ path: String) throws -> [String] {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"),
                                    ["-a", "-G1", "-n", "-args", "-ee", "-gps:all", "-xmp:all", "-location:all", "-UserData:all", "-Keys:all",
                                     "-ItemList:all", path])
        #expect(result.status == 0, "exiftool: \(result.stderr)")
        let names = ["gps", "location", "city", "country", "state", "coordinates", "iso6709", "mcc", "xyz"]
        return result.stdout.split(separator: "\n").map(String.init).filter { line in
            let name = line.prefix { $0 != "=" }.lowercased()
            // Ultra HDR's gain-map parameters (XMP-hdrgm): HDRCapacityMin/Max are a display's
            // headroom, not a city.
            if name.hasPrefix("-xmp-hdrgm:") { return Self.coordinateText.contains { line.contains($0) } }
            return names.contains { name.contains($0) } || Self.coordinateText.contains { line.contains($0) }
        }
    }

    /// What exiftool reports for some tags (`-a -G1 -n -args`, with `-ee`).
    func exiftoolTags(_ path: String, _ arguments: [String] = []) throws -> [String: String] {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-a", "-G1", "-n", "-args", "-ee"] + arguments + [path])
        var tags: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("-") {
            let parts = line.dropFirst().split(separator: "=", maxSplits: 1)
            if parts.count == 2, tags[String(parts[0])] == nil { tags[String(parts[0])] = String(parts[1]) }
        }
        return tags
    }

    /// ffprobe's container tags of a movie ("TAG:location" …), and whether FFmpeg decodes it cleanly.
    func movie(_ path: String) throws -> (tags: [String: String], decodes: Bool) {
        let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error", "-show_format", path])
        var tags: [String: String] = [:]
        for line in probe.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].hasPrefix("TAG:") { tags[String(parts[0])] = String(parts[1]) }
        }
        let decode = try runCommand(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-i", path, "-f", "null", "-"])
        return (tags, probe.status == 0 && decode.status == 0 && decode.stderr.isEmpty)
    }

    /// The pixels ImageMagick decodes from an image (the first frame, or frame `frame`), as RGB.
    func pixels(_ path: String, frame: Int = 0) throws -> String {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["convert", "\(path)[\(frame)]", "-depth", "8", "rgb:-"])
        #expect(result.status == 0, "convert: \(result.stderr)")
        return result.stdout
    }

    /// When `FAIL_CLOSED_REDACTION_KEEP` names a folder, each fixture and its redacted copy are
    /// copied there, to be read by hand (`exiftool -a -G1 -gps:all -xmp:all -ee`).
    func keep(_ paths: String...) {
        guard let folder = ProcessInfo.processInfo.environment["FAIL_CLOSED_REDACTION_KEEP"] else { return }
        for path in paths {
            let target = folder + "/" + URL(fileURLWithPath: path).lastPathComponent
            try? FileManager.default.removeItem(atPath: target)
            try? FileManager.default.copyItem(atPath: path, toPath: target)
        }
    }

    /// Redacts the file at `path` and checks what every redaction must give: before, exiftool saw
    /// location and the bytes held coordinates; after, exiftool sees none and no coordinate byte is
    /// left. Returns the redacted bytes and where they were written.
    @discardableResult
    func redact(_ path: String, in directory: TemporaryDirectory, loci: Bool = false,
                expectBefore: Bool = true) throws -> (bytes: [UInt8], path: String) {
        let original = try read(path)
        if expectBefore {
            #expect(try !exiftoolLocation(path).isEmpty, "the fixture has no location exiftool sees")
            #expect(!traces(in: original, loci: loci).isEmpty, "the fixture holds no coordinate bytes")
        }
        let stripped = try ExifRedactor.strippingLocation(original)
        let out = try write(stripped, "redacted-" + URL(fileURLWithPath: path).lastPathComponent, in: directory)
        keep(path, out)
        let left = try exiftoolLocation(out)
        #expect(left.isEmpty, "exiftool still finds: \(left)")
        #expect(traces(in: stripped, loci: loci).isEmpty, "coordinate bytes left: \(traces(in: stripped, loci: loci))")
        return (stripped, out)
    }

    // MARK: Fixtures

    /// A TIFF made by ImageMagick (one page per gradient), with `tags` written by exiftool.
    /// With no pages, only the tags are written, into the file at `path`.
    func tiff(_ path: String, pages: [String] = ["gradient:red-blue"], tags: [String]) throws {
        if !pages.isEmpty { try MediaFixtures.run("convert", ["-size", "96x64"] + pages + [path]) }
        if !tags.isEmpty { try MediaFixtures.writeTags(tags, to: path) }
    }

    /// A JPEG made by ImageMagick, with `tags` written by exiftool.
    func jpeg(_ path: String, gradient: String = "gradient:red-blue", size: String = "96x64", progressive: Bool = false,
              tags: [String]) throws {
        try MediaFixtures.run("convert", ["-size", size, gradient, "-quality", "85"] + (progressive ? ["-interlace", "Plane"] : []) + [path])
        if !tags.isEmpty { try MediaFixtures.writeTags(tags, to: path) }
    }

    /// A short MP4 made by FFmpeg with its default `location` (a 3GPP `loci` atom), with exiftool's
    /// `©xyz` and XMP GPS added.
    func locatedMovie(_ path: String) throws {
        try MediaFixtures.plainClip(at: path, metadata: ["creation_time": "2024-05-04T10:11:13Z", "location": Self.parisISO6709])
        try MediaFixtures.writeTags(["-UserData:GPSCoordinates=48.8584, 2.2945", "-XMP:GPSLatitude=48.8584", "-XMP:GPSLongitude=2.2945"],
                                    to: path)
    }

    /// A CIPA multi-picture (MPF) index as a camera writes it in APP2: version, count, and one MP
    /// entry per image (attributes, size, offset from the index's TIFF header, for the first 0).
    /// exiftool reads but does not write MPF, so this segment is made here.
    func mpfSegment(firstSize: Int, secondSize: Int, secondOffset: Int) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let entries = 8 + 2 + 3 * 12 + 4
        var tiff: [UInt8] = Array("MM".utf8) + be16(42) + be32(8) + be16(3)
        tiff += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)      // MPFVersion
        tiff += be16(0xB001) + be16(4) + be32(1) + be32(2)                 // NumberOfImages
        tiff += be16(0xB002) + be16(7) + be32(32) + be32(entries)          // MPEntry
        tiff += be32(0)
        tiff += be32(0x2003_0000) + be32(firstSize) + be32(0) + be16(0) + be16(0)             // primary, representative
        tiff += be32(0x0002_0002) + be32(secondSize) + be32(secondOffset) + be16(0) + be16(0) // multi-frame disparity
        let body = Array("MPF".utf8) + [0] + tiff
        return [0xFF, 0xE2] + be16(body.count + 2) + body
    }

    /// `first` with an MPF index (after its APP1 segments) that lists `second`, followed by `second`:
    /// a two-image multi-picture file.
    func multiPicture(first: [UInt8], second: [UInt8]) -> [UInt8] {
        var insert = 2
        while first[insert] == 0xFF, first[insert + 1] == 0xE0 || first[insert + 1] == 0xE1 {
            insert += 2 + (Int(first[insert + 2]) << 8 | Int(first[insert + 3]))
        }
        let length = mpfSegment(firstSize: 0, secondSize: 0, secondOffset: 0).count
        let firstSize = first.count + length
        let tiffStart = insert + 4 + 4  // marker, length, "MPF\0"
        let segment = mpfSegment(firstSize: firstSize, secondSize: second.count, secondOffset: firstSize - tiffStart)
        return Array(first[0..<insert]) + segment + Array(first[insert...]) + second
    }

    /// Google's motion photo XMP (Camera XMP: MotionPhoto, MicroVideo and the container directory),
    /// for exiftool to write as the file's XMP packet; `videoLength` is the MP4's size.
    func motionPhotoXMP(videoLength: Int) -> String {
        """
        <?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
            xmlns:Container="http://ns.google.com/photos/1.0/container/"
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
            GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="0"
            GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(videoLength)"
            GCamera:MicroVideoPresentationTimestampUs="0">
           <Container:Directory>
            <rdf:Seq>
             <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
             <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(videoLength)" Item:Padding="0"/></rdf:li>
            </rdf:Seq>
           </Container:Directory>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>
        """
    }

    /// exiftool's extraction of a motion photo's embedded video (`-b -ee -EmbeddedVideo`), written to
    /// `path`; empty when exiftool finds none.
    func embeddedVideo(of file: String, to path: String) throws -> [UInt8] {
        let result = try runCommand(URL(fileURLWithPath: "/bin/sh"),
                                    ["-c", "exec /usr/bin/exiftool -b -ee -EmbeddedVideo \"$1\" > \"$2\"", "sh", file, path])
        #expect(result.status == 0, "exiftool: \(result.stderr)")
        return try read(path)
    }

}
