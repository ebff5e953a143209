import Foundation
import PickerdBroker
import PickerdChecksum
import PickerdTestKit
import Testing

/// Location redaction of HEIC stills, QuickTime and MP4 movies, and XMP, on files made by the real
/// tools (heif-enc, FFmpeg, exiftool), audited by the real readers (exiftool, ffprobe, libheif).
@Suite("Container location redaction")
struct ContainerRedactionTests {
    /// Where the test place is written, in every form a tool spells it: ISO 6709 ("+45.5000",
    /// "+45.500-122.600"), decimal ("45.5 -122.6"), XMP degrees and minutes ("45,30.0N", "122,36.0W").
    static let coordinateText = ["45.5", "122.6", "45,30", "122,36", "122.59"]
    /// The latitude's first rational as big-endian TIFF writes it (45/1): exiftool's GPS IFD.
    static let latitudeRational: [UInt8] = [0, 0, 0, 45, 0, 0, 0, 1]

    static let exif = MediaFixtures.Exif(dateTimeOriginal: "2024:05:04 10:11:13", offsetTimeOriginal: "+02:00",
                                         latitude: 45.5, longitude: -122.6, make: "Apple", model: "iPhone 15 Pro")

    /// What the readers make of a file.
    struct Reading {
        /// exiftool's tags, "Group:Tag" → value (`-n -a -G1`).
        var tags: [String: String]
        /// ffprobe's container tags and duration (movies only).
        var format: [String: String]

        /// Every tag either reader reports that names a place.
        var locationTags: [String] {
            let names = tags.keys.map { "exiftool \($0)" } + format.keys.map { "ffprobe \($0)" }
            return names.filter { name in
                let n = name.lowercased()
                return n.contains("gps") || n.contains("location") || n.contains("iso6709") || n.contains("xyz")
            }.sorted()
        }
    }

    /// Writes `bytes` to `name` in `directory` and returns its path.
    func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// exiftool (all the location groups and the rest) and, for movies, ffprobe.
    func reading(_ path: String, movie: Bool = false) throws -> Reading {
        let exiftool = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"),
                                      ["-n", "-a", "-G1", "-args", "-all", "-GPS:all", "-Keys:all", "-UserData:all", "-XMP:all", "-ItemList:all", path])
        #expect(exiftool.status == 0, "\(exiftool.stderr)")
        var tags: [String: String] = [:]
        for line in exiftool.stdout.split(separator: "\n") where line.hasPrefix("-") {
            let parts = line.dropFirst().split(separator: "=", maxSplits: 1)
            if parts.count == 2, tags[String(parts[0])] == nil { tags[String(parts[0])] = String(parts[1]) }
        }
        var format: [String: String] = [:]
        if movie {
            let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "warning", "-show_format", path])
            #expect(probe.status == 0, "ffprobe: \(probe.stderr)")
            #expect(probe.stderr.isEmpty, "ffprobe: \(probe.stderr)")
            for line in probe.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { format[String(parts[0])] = String(parts[1]) }
            }
        }
        return Reading(tags: tags, format: format)
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

    /// The latitude as a 3GPP `loci` atom writes it, 16.16 fixed point (45.5 × 65536).
    static let latitudeFixed: [UInt8] = [0x00, 0x2D, 0x80, 0x00]

    /// The coordinate spellings found in `bytes`: text, the TIFF rational, and (for `loci`) the
    /// fixed-point latitude.
    func coordinates(in bytes: [UInt8], binary: Bool = false) -> [String] {
        Self.coordinateText.filter { contains(bytes, Array($0.utf8)) }
            + (contains(bytes, Self.latitudeRational) ? ["TIFF 45/1"] : [])
            + (binary && contains(bytes, Self.latitudeFixed) ? ["16.16 45.5"] : [])
    }

    /// Redacts the file at `path`, writes the result beside it, and checks what every redaction must
    /// give: the same length, no location tag in either reader, no coordinate bytes, exiftool's
    /// validation no worse than the original's. `binary` also looks for a `loci` atom's fixed-point
    /// latitude (only where the fixture has one: four bytes could occur in compressed video).
    func redact(_ path: String, in directory: TemporaryDirectory, movie: Bool = false,
                binary: Bool = false) throws -> (bytes: [UInt8], path: String, reading: Reading) {
        let original = try read(path)
        let before = try reading(path, movie: movie)
        #expect(!before.locationTags.isEmpty, "the fixture has no location to remove")
        #expect(!coordinates(in: original, binary: binary).isEmpty)
        let stripped = try ExifRedactor.strippingLocation(original)
        #expect(stripped.count == original.count)
        let out = try write(stripped, "redacted-" + URL(fileURLWithPath: path).lastPathComponent, in: directory)
        let after = try reading(out, movie: movie)
        #expect(after.locationTags.isEmpty, "still there: \(after.locationTags)")
        #expect(coordinates(in: stripped, binary: binary).isEmpty, "coordinate bytes left: \(coordinates(in: stripped, binary: binary))")
        let validation = try [path, out].map { file in
            try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-validate", "-warning", "-error", "-a", "-s", file]).stdout
        }
        #expect(validation[1] == validation[0], "exiftool finds new problems: \(validation[1])")
        if movie {
            #expect(after.format["duration"] == before.format["duration"])
            let decode = try runCommand(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-i", out, "-f", "null", "-"])
            #expect(decode.status == 0, "ffmpeg decode: \(decode.stderr)")
            #expect(decode.stderr.isEmpty, "ffmpeg decode: \(decode.stderr)")
        }
        return (stripped, out, after)
    }

    /// libheif's decoding of a HEIC: its pixels, as a YUV4MPEG2 file (no metadata in it).
    func decodedHEIC(_ path: String) throws -> [UInt8] {
        let y4m = path + ".decoded.y4m"
        try MediaFixtures.run("heif-convert", [path, y4m])
        return try read(y4m)
    }

    // MARK: HEIC

    @Test("a HEIC loses its EXIF GPS and keeps its date, camera and pixels")
    func heicWithGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-heic")
        let path = directory.path + "/IMG_0001.HEIC"
        try MediaFixtures.heic(at: path, exif: Self.exif)
        let before = try reading(path)
        #expect(before.tags["GPS:GPSLatitude"] == "45.5")
        let (_, out, after) = try redact(path, in: directory)
        #expect(after.tags["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after.tags["ExifIFD:OffsetTimeOriginal"] == "+02:00")
        #expect(after.tags["IFD0:Make"] == "Apple")
        #expect(after.tags["IFD0:Model"] == "iPhone 15 Pro")
        #expect(try decodedHEIC(out) == decodedHEIC(path))
    }

    @Test("a HEIC's XMP item loses its GPS too, blanked in place")
    func heicWithXMP() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-heic")
        let path = directory.path + "/IMG_0002.HEIC"
        try MediaFixtures.heic(at: path, exif: Self.exif)
        try MediaFixtures.writeTags(["-XMP:GPSLatitude=45.5", "-XMP:GPSLongitude=-122.6", "-XMP:DateTimeOriginal=2024:05:04 10:11:13"], to: path)
        #expect(try reading(path).tags["XMP-exif:GPSLatitude"] == "45.5")
        let (_, out, after) = try redact(path, in: directory)
        #expect(after.tags["XMP-exif:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after.tags["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(try decodedHEIC(out) == decodedHEIC(path))
    }

    @Test("a HEIC without GPS comes back byte for byte")
    func heicWithoutGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-heic")
        let path = directory.path + "/IMG_0003.HEIC"
        try MediaFixtures.heic(at: path, exif: MediaFixtures.Exif(dateTimeOriginal: "2024:05:04 10:11:13", make: "Apple"))
        let original = try read(path)
        #expect(try reading(path).tags["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(try ExifRedactor.strippingLocation(original) == original)
    }

    // MARK: Movies

    @Test("a MOV loses its com.apple.quicktime.location.ISO6709 and keeps its other keys and duration")
    func movWithISO6709() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mov")
        let path = directory.path + "/IMG_0004.MOV"
        try MediaFixtures.clip(at: path, seconds: 2, creationDate: "2024-05-04T10:11:13+0200", iso6709: "+45.5000-122.6000/",
                               contentIdentifier: "5F1D2C3B-LIVE", make: "Apple")
        #expect(try reading(path, movie: true).format["TAG:com.apple.quicktime.location.ISO6709"] == "+45.5000-122.6000/")
        let (_, _, after) = try redact(path, in: directory, movie: true)
        #expect(after.format["TAG:com.apple.quicktime.creationdate"] == "2024-05-04T10:11:13+0200")
        #expect(after.format["TAG:com.apple.quicktime.content.identifier"] == "5F1D2C3B-LIVE")
        #expect(after.format["TAG:com.apple.quicktime.make"] == "Apple")
        #expect(after.format["duration"] == "2.000000")
    }

    @Test("an MP4 loses its ©xyz (exiftool UserData:GPSCoordinates)")
    func mp4WithUserDataXYZ() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mp4")
        let path = directory.path + "/clip.mp4"
        try MediaFixtures.plainClip(at: path, metadata: ["creation_time": "2024-05-04T10:11:13Z", "title": "Harbour"])
        try MediaFixtures.writeTags(["-UserData:GPSCoordinates=45.5, -122.6"], to: path)
        #expect(try reading(path, movie: true).tags["UserData:GPSCoordinates"] == "45.5 -122.6")
        let (_, _, after) = try redact(path, in: directory, movie: true)
        #expect(after.format["TAG:creation_time"] == "2024-05-04T10:11:13.000000Z")
        #expect(after.format["TAG:title"] == "Harbour")
    }

    @Test("an MP4 with FFmpeg's default location (a 3GPP loci atom) loses it")
    func mp4WithFFmpegLocation() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mp4")
        let path = directory.path + "/clip.mp4"
        try MediaFixtures.plainClip(at: path, metadata: ["creation_time": "2024-05-04T10:11:13Z", "location": "+45.5000-122.6000/"])
        #expect(try reading(path, movie: true).format["TAG:location"] == "+45.5000-122.6000/")
        let (_, _, after) = try redact(path, in: directory, movie: true, binary: true)
        #expect(after.format["TAG:creation_time"] == "2024-05-04T10:11:13.000000Z")
    }

    @Test("a clip with every location store (Keys ISO 6709, ©xyz, XMP) loses them all")
    func clipWithEverything() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mov")
        let path = directory.path + "/IMG_0005.MOV"
        try MediaFixtures.clip(at: path, creationDate: "2024-05-04T10:11:13+0200", iso6709: "+45.5000-122.6000/", make: "Apple")
        try MediaFixtures.writeTags(["-UserData:GPSCoordinates=45.5, -122.6", "-XMP:GPSLatitude=45.5", "-XMP:GPSLongitude=-122.6",
                                     "-XMP:Title=Harbour"], to: path)
        let before = try reading(path, movie: true)
        #expect(before.tags["UserData:GPSCoordinates"] == "45.5 -122.6")
        #expect(before.tags["Keys:GPSCoordinates"] == "45.5 -122.6")
        #expect(before.tags["XMP-exif:GPSLatitude"] == "45.5")
        let (_, _, after) = try redact(path, in: directory, movie: true)
        #expect(after.tags["XMP-dc:Title"] == "Harbour")
        #expect(after.tags["Keys:Make"] == "Apple")
        #expect(after.format["TAG:com.apple.quicktime.creationdate"] == "2024-05-04T10:11:13+0200")
    }

    @Test("an MP4 with its moov first (faststart) and an XMP uuid box loses its location")
    func mp4FastStartWithXMP() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mp4")
        let plain = directory.path + "/plain.mp4"
        let path = directory.path + "/clip.mp4"
        try MediaFixtures.clip(at: plain, creationDate: "2024-05-04T10:11:13+0200", iso6709: "+45.5000-122.6000/")
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-i", plain, "-c", "copy", "-map_metadata", "0",
                                         "-movflags", "+faststart+use_metadata_tags", path])
        try MediaFixtures.writeTags(["-XMP:GPSLatitude=45.5", "-XMP:GPSLongitude=-122.6"], to: path)
        #expect(try reading(path, movie: true).tags["XMP-exif:GPSLatitude"] == "45.5")
        let (_, _, after) = try redact(path, in: directory, movie: true)
        #expect(after.format["TAG:com.apple.quicktime.creationdate"] == "2024-05-04T10:11:13+0200")
    }

    @Test("a movie without location comes back byte for byte")
    func movieWithoutLocation() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mov")
        let path = directory.path + "/IMG_0006.MOV"
        try MediaFixtures.clip(at: path, creationDate: "2024-05-04T10:11:13+0200", make: "Apple")
        let original = try read(path)
        #expect(try ExifRedactor.strippingLocation(original) == original)
    }

    // MARK: Broken files

    @Test("a truncated HEIC, MOV or MP4 is refused, not passed on", arguments: ["IMG.HEIC", "IMG.MOV", "clip.mp4"])
    func truncated(_ name: String) throws {
        let directory = try TemporaryDirectory(prefix: "pkd-cut")
        let path = directory.path + "/" + name
        if name.hasSuffix("HEIC") {
            try MediaFixtures.heic(at: path, exif: Self.exif)
        } else if name.hasSuffix("MOV") {
            try MediaFixtures.clip(at: path, iso6709: "+45.5000-122.6000/")
        } else {
            try MediaFixtures.plainClip(at: path, metadata: ["location": "+45.5000-122.6000/"])
            try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-i", path, "-c", "copy", "-movflags", "+faststart", path + ".fast.mp4"])
        }
        let whole = try read(name.hasSuffix("mp4") ? path + ".fast.mp4" : path)
        #expect(try ExifRedactor.strippingLocation(whole).count == whole.count)
        for cut in [whole.count - 1, whole.count * 2 / 3, whole.count / 3, 40] {
            #expect(throws: ExifRedactor.Unreadable.self, "cut at \(cut) of \(whole.count)") {
                try ExifRedactor.strippingLocation(Array(whole[0..<cut]))
            }
        }
    }

    @Test("a HEIC whose Exif item points past the end is refused")
    func heicExtentPastEnd() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-heic")
        let path = directory.path + "/IMG.HEIC"
        try MediaFixtures.heic(at: path, exif: Self.exif)
        var bytes = try read(path)
        // Keep the boxes whole and break only the iloc, making every extent's length huge: the box
        // walk alone would not notice.
        guard let iloc = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("iloc".utf8) }) else {
            Issue.record("no iloc")
            return
        }
        let lengthSize = Int(bytes[iloc + 8] & 0x0F)
        try #require(bytes[iloc + 4] == 0 && lengthSize == 4, "an iloc layout this test does not know")
        let offsetSize = Int(bytes[iloc + 8] >> 4), baseSize = Int(bytes[iloc + 9] >> 4)
        let count = Int(bytes[iloc + 10]) << 8 | Int(bytes[iloc + 11])
        var at = iloc + 12
        for _ in 0..<count {
            at += 4 + baseSize  // item ID, data reference index, base offset
            let extents = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
            for _ in 0..<extents {
                at += offsetSize
                bytes.replaceSubrange(at..<(at + 4), with: [0x00, 0xFF, 0xFF, 0xFF])
                at += 4
            }
        }
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(bytes) }
    }

    // MARK: XMP in JPEG and PNG

    @Test("a JPEG's XMP GPS is blanked in place, with its EXIF GPS removed; the rest stays")
    func jpegWithXMP() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jpeg")
        let path = directory.path + "/IMG_0007.JPG"
        try MediaFixtures.jpeg(at: path, exif: Self.exif)
        try MediaFixtures.writeTags(["-XMP:GPSLatitude=45.5", "-XMP:GPSLongitude=-122.6", "-XMP:GPSAltitude=12",
                                     "-XMP:DateTimeOriginal=2024:05:04 10:11:13", "-XMP:Title=Harbour"], to: path)
        let before = try reading(path)
        #expect(before.tags["XMP-exif:GPSLatitude"] == "45.5")
        #expect(before.tags["GPS:GPSLatitude"] == "45.5")
        let (_, out, after) = try redact(path, in: directory)
        #expect(after.tags["XMP-exif:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after.tags["XMP-dc:Title"] == "Harbour")
        #expect(after.tags["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        let identify = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["identify", "-format", "%wx%h", out])
        #expect(identify.status == 0, "identify: \(identify.stdout)\(identify.stderr)")
        #expect(identify.stdout == "96x64", "identify: \(identify.stdout)\(identify.stderr)")
    }

    @Test("a PNG's XMP (iTXt) GPS is blanked and its CRC stays right")
    func pngWithXMP() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-png")
        let path = directory.path + "/image.png"
        try MediaFixtures.png(at: path, exif: Self.exif)
        try MediaFixtures.writeTags(["-XMP:GPSLatitude=45.5", "-XMP:GPSLongitude=-122.6", "-XMP:Title=Harbour"], to: path)
        #expect(try reading(path).tags["XMP-exif:GPSLatitude"] == "45.5")
        let (_, out, after) = try redact(path, in: directory)
        #expect(after.tags["XMP-dc:Title"] == "Harbour")
        let check = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["identify", "-regard-warnings", "-format", "%wx%h", out])
        #expect(check.status == 0, "identify: \(check.stdout)\(check.stderr)")
        #expect(check.stdout == "96x64", "identify: \(check.stdout)\(check.stderr)")

        // The same chunk marked compressed cannot be blanked in place: it becomes a private chunk of
        // zeroes (with a right CRC) that decoders skip.
        var bytes = try read(path)
        let marker = Array("iTXtXML:com.adobe.xmp".utf8) + [0]
        let chunk = try #require((0..<(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) - 4
        let length = Int(bytes[chunk]) << 24 | Int(bytes[chunk + 1]) << 16 | Int(bytes[chunk + 2]) << 8 | Int(bytes[chunk + 3])
        bytes[chunk + 4 + marker.count] = 1
        let crc = CRC32.checksum(Array(bytes[(chunk + 4)..<(chunk + 8 + length)]))
        bytes.replaceSubrange((chunk + 8 + length)..<(chunk + 12 + length), with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        let compressed = try write(ExifRedactor.strippingLocation(bytes), "compressed.png", in: directory)
        let rewritten = try read(compressed)
        #expect(rewritten[(chunk + 4)..<(chunk + 8)].elementsEqual("xmPd".utf8))
        #expect(coordinates(in: rewritten).isEmpty)
        let again = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["identify", "-regard-warnings", "-format", "%wx%h", compressed])
        #expect(again.status == 0, "identify: \(again.stdout)\(again.stderr)")
        #expect(again.stdout == "96x64", "identify: \(again.stdout)\(again.stderr)")
    }

    @Test("XMP location properties become spaces, attribute and element forms alike; others stay")
    func xmpForms() throws {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:ns2="http://ns.adobe.com/photoshop/1.0/"
             exif:GPSLatitude="45,30.0N" exif:DateTimeOriginal="2024-05-04T10:11:13" ns2:City = 'Portland'>
             <exif:GPSLongitude>122,36.0W</exif:GPSLongitude>
             <exif:GPSAltitude rdf:parseType="Resource"><rdf:value>12/1</rdf:value></exif:GPSAltitude >
             <dc:title>Harbour</dc:title>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let app1 = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8)
        let length = app1.count + 2
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + [0xFF, 0xD9]
        let stripped = try ExifRedactor.strippingLocation(jpeg)
        #expect(stripped.count == jpeg.count)
        let text = String(decoding: stripped, as: UTF8.self)
        for gone in ["GPS", "45,30", "122,36", "12/1", "Portland", "City"] { #expect(!text.contains(gone), "\(gone) is still there") }
        for kept in ["exif:DateTimeOriginal=\"2024-05-04T10:11:13\"", "<dc:title>Harbour</dc:title>", "xmlns:exif="] {
            #expect(text.contains(kept), "\(kept) is gone")
        }
        // An unterminated location property is refused rather than passed on.
        let broken = Array(packet.replacingOccurrences(of: "</exif:GPSLongitude>", with: "").utf8)
        let app1b = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + broken
        let jpegb: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1b.count + 2) >> 8), UInt8((app1b.count + 2) & 0xFF)] + app1b + [0xFF, 0xD9]
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(jpegb) }
    }
}
