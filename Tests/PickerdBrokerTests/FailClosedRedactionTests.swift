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
        let stripped = try ExifRedactor.strippingGPS(original)
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

    // MARK: TIFF and DNG

    @Test("a TIFF loses its GPS IFD and XMP location; its date and pixels stay, its length too")
    func tiffWithGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/scan.tif"
        try tiff(path, tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13", "-XMP:Title=Harbour"])
        #expect(try exiftoolTags(path)["GPS:GPSLatitude"] == "48.8584")
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == (try read(path)).count)
        let after = try exiftoolTags(out)
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after["XMP-dc:Title"] == "Harbour")
        #expect(try pixels(out) == pixels(path))
        let validation = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-validate", "-warning", "-error", "-a", "-s", out])
        #expect(!validation.stdout.contains("Error"), "exiftool: \(validation.stdout)")
    }

    /// A two-page TIFF (ImageMagick) with GPS written by exiftool (which writes it in IFD0 only),
    /// then moved by hand to where no tool writes it: IFD1 (the next page), a SubIFD (IFD1 made
    /// IFD0's SubIFD, as a DNG holds its raw image), or the EXIF IFD. IFD0's own pointer becomes an
    /// unknown tag (0x8826), so only the moved pointer leads to the GPS IFD.
    @Test("a GPS IFD linked from IFD1, a SubIFD or the EXIF IFD is found and removed", arguments: ["IFD1", "SubIFD", "ExifIFD"])
    func gpsElsewhere(_ place: String) throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/pages-\(place).tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13"])
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0, ifd1 = file.next(ifd0)
        try #require(ifd1 != 0, "ImageMagick wrote one page")
        let pointer = try #require(file.entry(in: ifd0, tag: 0x8825))
        let gps = file.u32(pointer + 8)
        file.setTag(at: pointer, 0x8826)
        switch place {
        case "IFD1":
            file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        case "SubIFD":
            let slot = try #require(file.entry(in: ifd0, tag: 0x013F), "no PrimaryChromaticities to make room")
            file.setEntry(at: slot, tag: 0x014A, type: 4, count: 1, value: ifd1)
            file.setNext(of: ifd0, 0)
            file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        default:
            let exif = file.u32(try #require(file.entry(in: ifd0, tag: 0x8769)) + 8)
            file.setEntry(at: exif + 2, tag: 0x8825, type: 4, count: 1, value: gps)  // in ExifVersion's place
        }
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let before = try exiftoolTags(path, ["-gps:all", "-SubIFD:all"])
        #expect(before["GPS:GPSLatitude"] == "48.8584", "exiftool does not see the moved GPS IFD: \(before)")
        try redact(path, in: directory)
    }

    /// A DNG: a two-page TIFF from ImageMagick made a DNG by exiftool (DNGVersion, UniqueCameraModel:
    /// exiftool then reads it as a DNG), its second page made IFD0's SubIFD by hand (a DNG's raw
    /// image lives in a SubIFD) and given a GPS pointer of its own beside IFD0's.
    @Test("a DNG (IFD0 preview, SubIFD image) loses GPS from both IFDs, and XMP location")
    func dng() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-dng")
        let path = directory.path + "/IMG_0001.DNG"
        try tiff(directory.path + "/IMG_0001.tif", pages: ["gradient:red-blue", "gradient:green-yellow"], tags: [])
        try FileManager.default.moveItem(atPath: directory.path + "/IMG_0001.tif", toPath: path)
        try tiff(path, pages: [],
                 tags: ["-DNGVersion=1.4.0.0", "-DNGBackwardVersion=1.1.0.0", "-UniqueCameraModel=Test Camera", "-Make=Test",
                        "-DateTimeOriginal=2024:05:04 10:11:13"] + Self.paris)
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0, ifd1 = file.next(ifd0)
        let gps = file.u32(try #require(file.entry(in: ifd0, tag: 0x8825)) + 8)
        let slot = try #require(file.entry(in: ifd0, tag: 0x013F), "no PrimaryChromaticities to make room")
        file.setEntry(at: slot, tag: 0x014A, type: 4, count: 1, value: ifd1)
        file.setNext(of: ifd0, 0)
        file.setEntry(at: file.lastEntry(of: ifd1), tag: 0x8825, type: 4, count: 1, value: gps)
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let before = try exiftoolTags(path, ["-FileType", "-DNGVersion", "-gps:all", "-SubIFD:all"])
        #expect(before["File:FileType"] == "DNG" && before["GPS:GPSLatitude"] == "48.8584", "\(before)")
        let (_, out) = try redact(path, in: directory)
        let after = try exiftoolTags(out, ["-FileType", "-DNGVersion", "-UniqueCameraModel", "-DateTimeOriginal", "-SubIFD:ImageWidth"])
        #expect(after["File:FileType"] == "DNG" && after["IFD0:DNGVersion"] == "1 4 0 0")
        #expect(after["IFD0:UniqueCameraModel"] == "Test Camera" && after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        #expect(after["SubIFD:ImageWidth"] == "96", "the SubIFD is still read: \(after)")
    }

    @Test("a TIFF without GPS comes back byte for byte")
    func tiffWithoutGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/plain.tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: ["-DateTimeOriginal=2024:05:04 10:11:13", "-XMP:Title=Harbour"])
        let original = try read(path)
        #expect(try ExifRedactor.strippingGPS(original) == original)
    }

    @Test("a truncated TIFF is refused, not passed on")
    func truncatedTIFF() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/cut.tif"
        try tiff(path, tags: Self.paris)
        let whole = try read(path)
        for cut in [whole.count - 1, whole.count * 2 / 3, whole.count / 3, 40, 9] {
            #expect(throws: ExifRedactor.Unreadable.self, "cut at \(cut) of \(whole.count)") {
                try ExifRedactor.strippingGPS(Array(whole[0..<cut]))
            }
        }
    }

    @Test("a TIFF whose IFDs link in a cycle is walked once; one with thousands of IFDs is refused")
    func tiffCycles() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = directory.path + "/cycle.tif"
        try tiff(path, pages: ["gradient:red-blue", "gradient:green-yellow"], tags: Self.paris)
        var file = try TIFFFile(read(path))
        let ifd0 = file.ifd0
        file.setNext(of: file.next(ifd0), ifd0)  // IFD1 → IFD0 → IFD1 → …
        let redacted = try ExifRedactor.strippingGPS(file.bytes)
        #expect(traces(in: redacted).isEmpty)
        // 2,000 IFDs of no entries, each linking to the next.
        var chain: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        for i in 0..<2000 {
            let next = i == 1999 ? 0 : 8 + (i + 1) * 6
            chain += [0, 0, UInt8(next & 0xFF), UInt8(next >> 8 & 0xFF), UInt8(next >> 16 & 0xFF), 0]
        }
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingGPS(chain) }
    }

    // MARK: JPEG trailers

    @Test("a multi-picture JPEG (MPF): the second image's GPS goes too, and both images still decode")
    func multiPictureJPEG() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-mpf")
        let first = directory.path + "/first.jpg", second = directory.path + "/second.jpg"
        try jpeg(first, progressive: true, tags: Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13"])
        try jpeg(second, gradient: "gradient:green-yellow", size: "48x32", tags: Self.tokyo)
        let path = try write(multiPicture(first: read(first), second: read(second)), "DSCF0001.JPG", in: directory)
        let before = try exiftoolTags(path, ["-gps:all", "-MPF:all"])
        #expect(before["MPF0:NumberOfImages"] == "2")
        #expect(try exiftoolLocation(path).contains { $0.contains("35.6586") }, "exiftool -ee does not see the second image's GPS")
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == (try read(path)).count, "nothing was cut")
        let after = try exiftoolTags(out, ["-MPF:all", "-DateTimeOriginal"])
        #expect(after["MPF0:NumberOfImages"] == "2" && after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        // Each image decodes to the same pixels as before.
        let secondOut = try write(Array(bytes[(bytes.count - (try read(second)).count)...]), "second-out.jpg", in: directory)
        #expect(try pixels(secondOut) == pixels(second))
        #expect(try pixels(out) == pixels(first))
    }

    @Test("two JPEGs simply concatenated: the appended one loses its GPS as well")
    func concatenatedJPEGs() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-cat")
        let first = directory.path + "/first.jpg", second = directory.path + "/second.jpg"
        try jpeg(first, tags: Self.paris)
        try jpeg(second, gradient: "gradient:green-yellow", tags: Self.tokyo)
        let secondBytes = try read(second)
        let path = try write(read(first) + secondBytes, "two.jpg", in: directory)
        let (bytes, _) = try redact(path, in: directory)
        // exiftool does not look after an EOI without an MPF index: read the second image alone.
        let tail = try write(Array(bytes[(bytes.count - secondBytes.count)...]), "tail.jpg", in: directory)
        #expect(try exiftoolLocation(tail).isEmpty)
        #expect(try pixels(tail) == pixels(second))
    }

    @Test("a JPEG's EXIF thumbnail that carries GPS of its own loses it")
    func thumbnailWithGPS() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-thumb")
        let thumbnail = directory.path + "/thumb.jpg", path = directory.path + "/IMG_0002.JPG"
        try jpeg(thumbnail, gradient: "gradient:green-yellow", size: "32x24", tags: Self.tokyo)
        try jpeg(path, tags: Self.paris)
        try MediaFixtures.writeTags(["-ThumbnailImage<=\(thumbnail)"], to: path)
        let extracted = directory.path + "/extracted.jpg"
        _ = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec /usr/bin/exiftool -b -ThumbnailImage \"$1\" > \"$2\"", "sh", path, extracted])
        #expect(try exiftoolLocation(extracted).contains { $0.contains("35.6586") }, "the thumbnail has no GPS")
        let (_, out) = try redact(path, in: directory)
        _ = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec /usr/bin/exiftool -b -ThumbnailImage \"$1\" > \"$2\"", "sh", out, extracted])
        #expect(try exiftoolLocation(extracted).isEmpty)
        #expect(try pixels(extracted) == pixels(thumbnail))
        // A thumbnail that cannot be parsed is zeroed, and the photo is released without it.
        let where_ = try exiftoolTags(path, ["-ThumbnailOffset", "-ThumbnailLength"])
        let offset = try #require(where_["IFD1:ThumbnailOffset"].flatMap { Int($0) })
        let length = try #require(where_["IFD1:ThumbnailLength"].flatMap { Int($0) })
        var broken = try read(path)
        broken[offset + 4] = 0xFF  // its first segment now runs past the end
        broken[offset + 5] = 0xFF
        let redacted = try ExifRedactor.strippingGPS(broken)
        #expect(redacted[offset..<(offset + length)].allSatisfy { $0 == 0 } && traces(in: redacted).isEmpty)
        #expect(try pixels(write(redacted, "no-thumbnail.jpg", in: directory)) == pixels(path))
    }

    @Test("a Google motion photo: the JPEG's and the appended MP4's location go; the MP4 stays where the XMP says")
    func googleMotionPhoto() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-motion")
        let photo = directory.path + "/photo.jpg", video = directory.path + "/video.mp4", xmp = directory.path + "/motion.xmp"
        try locatedMovie(video)
        let videoBytes = try read(video)
        try jpeg(photo, tags: [])
        try Data(motionPhotoXMP(videoLength: videoBytes.count).utf8).write(to: URL(fileURLWithPath: xmp))
        try MediaFixtures.writeTags(["-XMP<=\(xmp)"], to: photo)
        try MediaFixtures.writeTags(Self.paris + ["-DateTimeOriginal=2024:05:04 10:11:13"], to: photo)
        let path = try write(read(photo) + videoBytes, "PXL_20240504_101113.MP.jpg", in: directory)
        let before = try exiftoolTags(path, ["-XMP-GCamera:all", "-EmbeddedVideo"])
        #expect(before["XMP-GCamera:MotionPhoto"] == "1" && before["XMP-GCamera:MicroVideoOffset"] == "\(videoBytes.count)")
        #expect(before["File:EmbeddedVideo"] != nil, "exiftool finds no embedded video: \(before)")
        #expect(!(try movie(video).tags["TAG:location"] ?? "").isEmpty)
        let (bytes, out) = try redact(path, in: directory, loci: true)
        #expect(bytes.count == (try read(path)).count)
        // exiftool 12.57 finds the video (-ee) but reads none of its tags: extract it and read that.
        let after = try exiftoolTags(out, ["-XMP-GCamera:all", "-EmbeddedVideo", "-DateTimeOriginal"])
        #expect(after["XMP-GCamera:MicroVideoOffset"] == "\(videoBytes.count)" && after["File:EmbeddedVideo"] != nil)
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:11:13")
        let embedded = try embeddedVideo(of: out, to: directory.path + "/embedded.mp4")
        #expect(embedded.count == videoBytes.count && Array(embedded[4..<8]) == Array("ftyp".utf8))
        let left = try exiftoolLocation(directory.path + "/embedded.mp4")
        #expect(left.isEmpty, "the embedded MP4 still says: \(left)")
        let (tags, decodes) = try movie(directory.path + "/embedded.mp4")
        #expect(tags["TAG:location"] == nil && tags["TAG:creation_time"] == "2024-05-04T10:11:13.000000Z" && decodes, "\(tags)")
        #expect(try pixels(out) == pixels(photo))
    }

    /// Samsung's layout: after the JPEG, a SEF data block ("MotionPhoto_Data", then the MP4), another
    /// (MCC_Data: the mobile country code, which exiftool files under Location), and the SEF
    /// directory ("SEFH" … "SEFT") at the very end. Built by hand around the real JPEG and MP4.
    @Test("a Samsung motion photo: the MP4 is redacted in place, its marker zeroed, the SEF trailer (country code) cut off")
    func samsungMotionPhoto() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-motion")
        let photo = directory.path + "/photo.jpg", video = directory.path + "/video.mp4"
        try jpeg(photo, tags: Self.paris)
        try locatedMovie(video)
        let photoBytes = try read(photo), videoBytes = try read(video)
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        func block(_ type: UInt8, _ name: String, _ value: [UInt8]) -> [UInt8] {
            [0, 0, type, 0x0A] + le32(name.utf8.count) + Array(name.utf8) + value
        }
        let motion = block(0x30, "MotionPhoto_Data", videoBytes), mcc = block(0xA1, "MCC_Data", Array("208".utf8))
        let directoryStart = motion.count + mcc.count  // from the trailer's start
        var sef: [UInt8] = Array("SEFH".utf8) + le32(101) + le32(2)
        sef += [0, 0, 0x30, 0x0A] + le32(directoryStart) + le32(motion.count)
        sef += [0, 0, 0xA1, 0x0A] + le32(directoryStart - motion.count) + le32(mcc.count)
        let trailer = motion + mcc + sef + le32(sef.count) + Array("SEFT".utf8)
        let path = try write(photoBytes + trailer, "20240504_101113.jpg", in: directory)
        let before = try exiftoolTags(path, ["-Samsung:all", "-EmbeddedVideoFile", "-MCCData"])
        #expect(before["Samsung:MCCData"] == "208" && before["Samsung:EmbeddedVideoFile"] != nil, "exiftool does not read the trailer: \(before)")
        let (bytes, _) = try redact(path, in: directory, loci: true)
        let movieStart = photoBytes.count + 24
        #expect(bytes.count == movieStart + videoBytes.count, "the SEF blocks after the MP4 are cut off")
        #expect(bytes[photoBytes.count..<movieStart].allSatisfy { $0 == 0 }, "the marker before the MP4 is zeroed")
        let embedded = try write(Array(bytes[movieStart...]), "embedded.mp4", in: directory)
        #expect(try exiftoolLocation(embedded).isEmpty)
        let (tags, decodes) = try movie(embedded)
        #expect(tags["TAG:location"] == nil && decodes, "\(tags)")
    }

    @Test("bytes after a JPEG's end that are not understood are cut off, with everything after them")
    func unknownTrailer() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-trailer")
        let photo = directory.path + "/photo.jpg", second = directory.path + "/second.jpg"
        try jpeg(photo, tags: Self.paris)
        try jpeg(second, gradient: "gradient:green-yellow", tags: Self.tokyo)
        let photoBytes = try read(photo)
        // Text, then a whole JPEG with GPS after it: neither may leave.
        let garbage = Array("vendor trailer: taken at 48.8584, 2.2945\n".utf8)
        let path = try write(photoBytes + garbage + read(second), "trailer.jpg", in: directory)
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == photoBytes.count)
        #expect(try pixels(out) == pixels(photo))
        // A broken appended JPEG is cut off too; a broken first image is refused.
        var broken = try read(second)
        broken[5] = 0xFF  // the APP0 segment now runs past the end
        #expect(try ExifRedactor.strippingGPS(photoBytes + broken).count == photoBytes.count)
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingGPS(broken + photoBytes) }
    }

    @Test("an MPO of more images than are followed keeps those within the bound and cuts the rest")
    func manyAppendedImages() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-many")
        let photo = directory.path + "/photo.jpg"
        try jpeg(photo, size: "16x16", tags: Self.tokyo)
        let one = try read(photo)
        let many = [UInt8]((0..<40).flatMap { _ in one })
        let redacted = try ExifRedactor.strippingGPS(many)
        #expect(redacted.count == one.count * 17, "the first image and 16 appended ones")
        #expect(traces(in: redacted).isEmpty)
    }

    // MARK: Other types

    @Test("a file of a type pickerd cannot redact is refused, not passed on", arguments: ["bmp", "BigTIFF", "text", "empty"])
    func unknownType(_ kind: String) throws {
        let directory = try TemporaryDirectory(prefix: "pkd-unknown")
        let bytes: [UInt8]
        switch kind {
        case "bmp":
            let path = directory.path + "/image.bmp"
            try MediaFixtures.run("convert", ["-size", "16x16", "gradient:red-blue", path])
            bytes = try read(path)
        case "BigTIFF":
            let path = directory.path + "/image.tif"
            try MediaFixtures.run("convert", ["-size", "16x16", "gradient:red-blue", "-define", "tiff:format=bigtiff", "TIFF64:" + path])
            bytes = try read(path)
            #expect(bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]))
        case "text": bytes = Array("GPS 48.8584 2.2945\n".utf8)
        default: bytes = []
        }
        #expect(throws: ExifRedactor.NotRedactable.self) { try ExifRedactor.strippingGPS(bytes) }
    }

    @Test("a WebP loses its EXIF GPS and XMP location")
    func webP() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-webp")
        let path = directory.path + "/image.webp"
        try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", path])
        try MediaFixtures.writeTags(Self.paris, to: path)
        let (_, out) = try redact(path, in: directory)
        #expect(try pixels(out) == pixels(path))
    }

    @Test("a GIF's XMP loses its location and the GIF still decodes")
    func gif() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-gif")
        let path = directory.path + "/image.gif"
        try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", path])
        try MediaFixtures.writeTags(["-XMP:GPSLatitude=48.8584", "-XMP:GPSLongitude=2.2945", "-XMP:City=Lutetia", "-XMP:Title=Harbour"], to: path)
        let (_, out) = try redact(path, in: directory)
        #expect(try exiftoolTags(out)["XMP-dc:Title"] == "Harbour")
        #expect(try pixels(out) == pixels(path))
    }

    @Test("a YUV4MPEG2 video loses X parameters other than the colour ones and still decodes")
    func y4m() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-y4m")
        let path = directory.path + "/clip.y4m"
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=0.3:size=32x24:rate=10",
                                         "-pix_fmt", "yuv420p", path])
        let original = try read(path)
        #expect(try ExifRedactor.strippingGPS(original) == original, "FFmpeg's own parameters stay")
        // A parameter saying where, in the stream header and in a frame header.
        var text = original
        let newline = try #require(text.firstIndex(of: 0x0A))
        text.insert(contentsOf: Array(" XGPS=48.8584,2.2945".utf8), at: newline)
        let frame = try #require(index(of: Array("FRAME\n".utf8), in: text))
        text.insert(contentsOf: Array(" XLOCATION=Lutetia".utf8), at: frame + 5)
        let stripped = try ExifRedactor.strippingGPS(text)
        #expect(stripped == original)
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingGPS(Array(text.dropLast(7))) }
    }

    @Test("a PNG made by ImageMagick from a located JPEG loses its text chunks that say where; bytes after IEND are cut off")
    func pngRawProfile() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-png")
        let source = directory.path + "/source.jpg", path = directory.path + "/image.png"
        try jpeg(source, tags: Self.paris)
        try MediaFixtures.run("convert", [source, path])  // ImageMagick copies the EXIF as "Raw profile type exif"
        let png = try read(path)
        let (bytes, out) = try redact(path, in: directory)
        #expect(bytes.count == png.count)
        #expect(try pixels(out) == pixels(path))
        let trailing = try ExifRedactor.strippingGPS(png + Array("48.8584 2.2945".utf8))
        #expect(trailing == bytes)
    }
}

/// A little-endian TIFF's IFDs, to move a GPS pointer by hand where no tool writes one. Editing
/// keeps every length: an entry is overwritten, never added.
struct TIFFFile {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) throws {
        try #require(bytes.starts(with: [0x49, 0x49, 42, 0]), "not a little-endian TIFF")
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
    mutating func put16(_ at: Int, _ v: Int) { bytes[at] = UInt8(v & 0xFF); bytes[at + 1] = UInt8(v >> 8 & 0xFF) }
    mutating func put32(_ at: Int, _ v: Int) { put16(at, v & 0xFFFF); put16(at + 2, v >> 16) }

    /// IFD0's offset.
    var ifd0: Int { u32(4) }
    /// The IFD after `ifd` in its chain (0: none).
    func next(_ ifd: Int) -> Int { u32(ifd + 2 + u16(ifd) * 12) }
    /// Links `ifd` to `next`.
    mutating func setNext(of ifd: Int, _ next: Int) { put32(ifd + 2 + u16(ifd) * 12, next) }
    /// Where the entry for `tag` is in `ifd`.
    func entry(in ifd: Int, tag: Int) -> Int? {
        (0..<u16(ifd)).map { ifd + 2 + $0 * 12 }.first { u16($0) == tag }
    }
    /// Where the last entry of `ifd` is.
    func lastEntry(of ifd: Int) -> Int { ifd + 2 + (u16(ifd) - 1) * 12 }
    /// Changes an entry's tag only.
    mutating func setTag(at entry: Int, _ tag: Int) { put16(entry, tag) }
    /// Overwrites an entry.
    mutating func setEntry(at entry: Int, tag: Int, type: Int, count: Int, value: Int) {
        put16(entry, tag)
        put16(entry + 2, type)
        put32(entry + 4, count)
        put32(entry + 8, value)
    }
}
