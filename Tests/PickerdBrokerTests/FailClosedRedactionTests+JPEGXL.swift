import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

extension FailClosedRedactionTests {
    // MARK: JPEG XL

    /// A JPEG XL made by libjxl's encoder (cjxl, Debian's libjxl-tools) from ImageMagick's gradient:
    /// a bare codestream, as cjxl writes when there is no metadata.
    func jpegXLCodestream(_ directory: TemporaryDirectory, _ name: String = "image") throws -> String {
        let png = directory.path + "/\(name).png", jxl = directory.path + "/\(name).jxl"
        try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", png])
        try MediaFixtures.run("cjxl", ["--quiet", png, jxl])
        return jxl
    }

    /// The top-level boxes of a JPEG XL container: type and range (size included).
    func jpegXLBoxes(_ bytes: [UInt8]) -> [(type: String, range: Range<Int>)] {
        var boxes: [(String, Range<Int>)] = []
        var at = 0
        while at + 8 <= bytes.count {
            var size = Int(ExifRedactorTestAccess.be32(bytes, at))
            if size == 0 { size = bytes.count - at }
            guard size >= 8, at + size <= bytes.count else { break }
            boxes.append((String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self), at..<(at + size)))
            at += size
        }
        return boxes
    }

    /// The picture libjxl's decoder (djxl) makes of a JPEG XL, as RGB bytes.
    func jpegXLPixels(_ path: String) throws -> String {
        let png = path + ".decoded.png"
        try MediaFixtures.run("djxl", ["--quiet", path, png])
        return try pixels(png)
    }

    @Test("a bare JPEG XL codestream has no metadata and is released as it is")
    func jpegXLBare() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jxl")
        let bytes = try read(jpegXLCodestream(directory))
        #expect(bytes.starts(with: [0xFF, 0x0A]))
        #expect(try ExifRedactor.strippingLocation(bytes) == bytes)
    }

    @Test("a JPEG XL container loses its Exif box's GPS and its xml box's place; its date stays and it still decodes")
    func jpegXLContainer() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jxl")
        let path = try jpegXLCodestream(directory)
        // exiftool wraps the codestream in the container to add Exif and xml boxes (-m: it says so).
        try MediaFixtures.run("exiftool", ["-m", "-q", "-overwrite_original", "-DateTimeOriginal=2024:05:04 10:00:00"] + Self.paris + [path])
        #expect(jpegXLBoxes(try read(path)).map(\.type) == ["JXL ", "ftyp", "Exif", "xml ", "jxlc"])
        let (_, out) = try redact(path, in: directory)
        #expect(try exiftoolTags(out)["ExifIFD:DateTimeOriginal"] == "2024:05:04 10:00:00")
        #expect(try jpegXLPixels(out) == jpegXLPixels(path))
    }

    @Test("a JPEG XL's brotli-compressed (brob) Exif and xml boxes become free boxes of zeroes and it still decodes")
    func jpegXLCompressedBoxes() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jxl")
        let path = try jpegXLCodestream(directory)
        try MediaFixtures.run("exiftool", ["-m", "-q", "-overwrite_original", "-DateTimeOriginal=2024:05:04 10:00:00"] + Self.paris + [path])
        // ISO/IEC 18181-2's brob box: the wrapped box's type, then its contents compressed with
        // brotli (the brotli tool; Debian's exiftool lacks the Perl module to write them itself).
        let plain = try read(path)
        var wrapped: [UInt8] = []
        for box in jpegXLBoxes(plain) {
            guard box.type == "Exif" || box.type == "xml " else {
                wrapped += plain[box.range]
                continue
            }
            let raw = try write(Array(plain[(box.range.lowerBound + 8)..<box.range.upperBound]), "box.raw", in: directory)
            try MediaFixtures.run("brotli", ["-f", "-q", "11", "-o", raw + ".br", raw])
            let compressed = try read(raw + ".br")
            let size = UInt32(8 + 4 + compressed.count)
            wrapped += [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
            wrapped += Array("brob".utf8) + Array(box.type.utf8) + compressed
        }
        let brob = try write(wrapped, "compressed.jxl", in: directory)
        #expect(jpegXLBoxes(wrapped).map(\.type) == ["JXL ", "ftyp", "brob", "brob", "jxlc"])
        let stripped = try ExifRedactor.strippingLocation(wrapped)
        #expect(stripped.count == wrapped.count)
        let boxes = jpegXLBoxes(stripped)
        #expect(boxes.map(\.type) == ["JXL ", "ftyp", "free", "free", "jxlc"])
        for box in boxes where box.type == "free" {
            #expect(stripped[(box.range.lowerBound + 8)..<box.range.upperBound].allSatisfy { $0 == 0 })
        }
        let out = try write(stripped, "redacted-compressed.jxl", in: directory)
        #expect(try jpegXLPixels(out) == jpegXLPixels(brob))
    }

    @Test("a JPEG recompressed losslessly to JPEG XL: its brotli-compressed Exif box and JPEG reconstruction data (jbrd) go")
    func jpegXLFromJPEG() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jxl")
        let jpeg = directory.path + "/photo.jpg", path = directory.path + "/photo.jxl"
        try MediaFixtures.run("convert", ["-size", "96x64", "gradient:red-blue", "-quality", "85", jpeg])
        // IPTC's city goes into the reconstruction data (an APP13 segment), not an Exif or xml box.
        try MediaFixtures.writeTags(Self.paris + ["-IPTC:City=Lutetia"], to: jpeg)
        try MediaFixtures.run("cjxl", ["--quiet", jpeg, path])
        let original = try read(path)
        // cjxl 0.7 writes the JPEG's EXIF as a brob box wrapping an Exif box: its GPS is there,
        // compressed, where exiftool without Perl's brotli module does not see it.
        let before = jpegXLBoxes(original)
        #expect(before.map(\.type).contains("jbrd"), "cjxl wrote \(before.map(\.type))")
        let brob = try #require(before.first { $0.type == "brob" && original[($0.range.lowerBound + 8)..<($0.range.lowerBound + 12)].elementsEqual("Exif".utf8) })
        let packed = try write(Array(original[(brob.range.lowerBound + 12)..<brob.range.upperBound]), "exif.br", in: directory)
        try MediaFixtures.run("brotli", ["-d", "-f", "-o", packed + ".raw", packed])
        let exif = try read(packed + ".raw")
        #expect(Self.coordinateRationals.contains { contains(exif, $0.1) }, "the compressed Exif box has no GPS")
        let (bytes, out) = try redact(path, in: directory, expectBefore: false)
        #expect(Set(jpegXLBoxes(bytes).map(\.type)).isDisjoint(with: ["brob", "jbrd"]))
        #expect(try jpegXLPixels(out) == jpegXLPixels(path))
    }

    @Test("a broken JPEG XL container is refused as unreadable", arguments: ["box past the end", "no ftyp", "Exif offset past the box", "Exif TIFF broken"])
    func jpegXLBroken(_ kind: String) throws {
        let directory = try TemporaryDirectory(prefix: "pkd-jxl")
        let path = try jpegXLCodestream(directory)
        try MediaFixtures.run("exiftool", ["-m", "-q", "-overwrite_original"] + Self.paris + [path])
        var bytes = try read(path)
        let boxes = jpegXLBoxes(bytes)
        let exif = try #require(boxes.first { $0.type == "Exif" }).range
        switch kind {
        case "box past the end": bytes.removeLast(40)  // a cut copy: the jxlc box's size runs past the end
        case "no ftyp": bytes.replaceSubrange(boxes[1].range.lowerBound + 4..<boxes[1].range.lowerBound + 8, with: Array("skip".utf8))
        case "Exif offset past the box": bytes.replaceSubrange(exif.lowerBound + 8..<exif.lowerBound + 12, with: [0, 0, 0x7F, 0xFF])
        default: bytes.replaceSubrange(exif.lowerBound + 12..<exif.lowerBound + 16, with: Array("JUNK".utf8))
        }
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(bytes) }
    }
}

/// Big-endian reads for the tests, as the redactor does them.
enum ExifRedactorTestAccess {
    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
