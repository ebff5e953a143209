import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

extension FailClosedRedactionTests {
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
        #expect(throws: ExifRedactor.NotRedactable.self) { try ExifRedactor.strippingLocation(bytes) }
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
        #expect(try ExifRedactor.strippingLocation(original) == original, "FFmpeg's own parameters stay")
        // A parameter saying where, in the stream header and in a frame header.
        var text = original
        let newline = try #require(text.firstIndex(of: 0x0A))
        text.insert(contentsOf: Array(" XGPS=48.8584,2.2945".utf8), at: newline)
        let frame = try #require(index(of: Array("FRAME\n".utf8), in: text))
        text.insert(contentsOf: Array(" XLOCATION=Lutetia".utf8), at: frame + 5)
        let stripped = try ExifRedactor.strippingLocation(text)
        #expect(stripped == original)
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(Array(text.dropLast(7))) }
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
        let trailing = try ExifRedactor.strippingLocation(png + Array("48.8584 2.2945".utf8))
        #expect(trailing == bytes)
    }
}
