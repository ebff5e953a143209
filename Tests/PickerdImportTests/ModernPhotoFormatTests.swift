import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// WebP, AVIF and JPEG XL photos (issue 41) read and previewed by MediaProbe and Thumbnailer, on
/// files made by the formats' own encoders (libwebp's cwebp, ImageMagick over libheif and libaom,
/// libjxl's cjxl) with EXIF written by exiftool; and broken ones, each named with its reason.
@Suite struct ModernPhotoFormatTests {
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    /// What an Android phone's camera writes: date, offset, place, camera.
    static let exif = MediaFixtures.Exif(dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00",
                                         latitude: 38.7223, longitude: -9.1393, make: "Google", model: "Pixel 8",
                                         exposureTime: 0.01)

    private func expectCameraMetadata(_ media: ProbedMedia, _ name: String) throws {
        #expect(media.kind == .photo, "\(name)")
        #expect(media.takenAtMs == 1_714_810_272_000, "\(name)")  // 2024-05-04T08:11:12Z
        #expect(media.utcOffsetSeconds == 7200, "\(name)")
        let coordinate = try #require(media.coordinate, "\(name)")
        #expect(abs(coordinate.latitude - 38.7223) < 1e-6, "\(name)")
        #expect(abs(coordinate.longitude - -9.1393) < 1e-6, "\(name)")
        #expect(media.make == "Google", "\(name)")
        #expect(media.model == "Pixel 8", "\(name)")
        #expect(media.hasExposure, "\(name)")
    }

    @Test("WebP (lossy and lossless, with an EXIF chunk): date, offset, place, camera, the bitstream's size, a preview")
    func webpWithExif() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-webp")
        for lossless in [false, true] {
            let path = dir.path + "/PXL_20240504_\(lossless ? "lossless" : "lossy").webp"
            try MediaFixtures.webp(at: path, width: 96, height: 64, lossless: lossless, exif: Self.exif)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X", "exiftool writes the extended format")
            let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
            #expect(media.contentType == "image/webp")
            try expectCameraMetadata(media, path)
            #expect(media.pixelWidth == 96)
            #expect(media.pixelHeight == 64)
            let png = try Thumbnailer.png(path: path, contentType: media.contentType, maxSide: 32, orientation: media.orientation)
            #expect(pngSide(png) == [32, 21], "\(lossless ? "lossless" : "lossy")")
        }
    }

    @Test("WebP without metadata (cwebp's simple format): VP8's and VP8L's own headers give the size; no date, no place")
    func simpleWebP() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-webp")
        for (lossless, chunk) in [(false, "VP8 "), (true, "VP8L")] {
            let path = dir.path + "/sticker.webp"
            try MediaFixtures.webp(at: path, width: 70, height: 110, lossless: lossless)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(String(decoding: bytes[12..<16], as: UTF8.self) == chunk)
            let media = try MediaProbe.probe(path: path)
            #expect(media.pixelWidth == 70, "\(chunk)")
            #expect(media.pixelHeight == 110, "\(chunk)")
            #expect(media.takenAtMs == nil)
            #expect(media.coordinate == nil)
            #expect(pngSide(try Thumbnailer.png(path: path, contentType: "image/webp", maxSide: 55)) == [35, 55])
        }
    }

    @Test("WebP: EXIF's orientation is kept for the preview (libwebp does not turn the picture); XMP names people")
    func webpOrientationAndPeople() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-webp")
        let path = dir.path + "/turned.webp"
        try MediaFixtures.webp(at: path, width: 80, height: 40, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", orientation: 6))
        try MediaFixtures.writeTags(["-XMP-mwg-rs:RegionName=Maya Lee"], to: path)
        let (media, people) = try MediaProbe.probe(path: path, readPeople: true)
        #expect(media.orientation == 6)
        #expect(people == ["Maya Lee"])
        #expect(pngSide(try Thumbnailer.png(path: path, contentType: "image/webp", maxSide: 40, orientation: media.orientation)) == [20, 40])
    }

    @Test("AVIF (AV1 in HEIF, through libheif and dav1d/aom): date, offset, place, camera, size, a preview")
    func avifWithExif() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-avif")
        let path = dir.path + "/photo.avif"
        try MediaFixtures.avif(at: path, width: 640, height: 480, exif: Self.exif)
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        #expect(media.contentType == "image/avif")
        try expectCameraMetadata(media, path)
        #expect(media.pixelWidth == 640)
        #expect(media.pixelHeight == 480)
        #expect(pngSide(try Thumbnailer.png(path: path, contentType: media.contentType, maxSide: 64)) == [64, 48])
    }

    @Test("JPEG XL: the container's Exif box gives date, offset, place, camera; a bare codestream its size only; both preview")
    func jpegXL() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-jxl")
        let located = dir.path + "/photo.jxl", bare = dir.path + "/bare.jxl"
        try MediaFixtures.jxl(at: located, width: 120, height: 80, exif: Self.exif)
        try MediaFixtures.jxl(at: bare, width: 120, height: 80)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: located)).prefix(12)) == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: bare)).prefix(2)) == [0xFF, 0x0A])
        let media = try MediaProbe.probe(path: located, timeZone: Self.tokyo)
        #expect(media.contentType == "image/jxl")
        try expectCameraMetadata(media, located)
        #expect(media.pixelWidth == 120)
        #expect(media.pixelHeight == 80)
        let plain = try MediaProbe.probe(path: bare)
        #expect(plain.contentType == "image/jxl")
        #expect(plain.takenAtMs == nil)
        #expect(plain.coordinate == nil)
        #expect(plain.pixelWidth == 120)
        #expect(plain.pixelHeight == 80)
        for path in [located, bare] {
            #expect(pngSide(try Thumbnailer.png(path: path, contentType: "image/jxl", maxSide: 60)) == [60, 40])
        }
    }

    @Test("JPEG XL: an Exif box compressed with Brotli (a brob box, ISO/IEC 18181-2) is read as the bare one")
    func jpegXLCompressedExif() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-jxl")
        let path = dir.path + "/photo.jxl"
        try MediaFixtures.jxl(at: path, width: 120, height: 80, exif: Self.exif)
        // The brob box: `brob`, the wrapped box's type, its contents compressed by the brotli tool
        // (exiftool writes brob boxes only with a Perl module Debian does not package).
        let plain = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var wrapped: [UInt8] = []
        var at = 0
        while at + 8 <= plain.count {
            var size = Int(plain[at]) << 24 | Int(plain[at + 1]) << 16 | Int(plain[at + 2]) << 8 | Int(plain[at + 3])
            if size == 0 { size = plain.count - at }
            let type = String(decoding: plain[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "Exif" {
                let raw = dir.path + "/exif.raw"
                try Data(plain[(at + 8)..<(at + size)]).write(to: URL(fileURLWithPath: raw))
                try MediaFixtures.run("brotli", ["-f", "-q", "11", "-o", raw + ".br", raw])
                let compressed = Array(try Data(contentsOf: URL(fileURLWithPath: raw + ".br")))
                let length = 12 + compressed.count
                wrapped += [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
                wrapped += Array("brobExif".utf8) + compressed
            } else {
                wrapped += plain[at..<(at + size)]
            }
            at += size
        }
        #expect(wrapped.count != plain.count)
        try Data(wrapped).write(to: URL(fileURLWithPath: path))
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        try expectCameraMetadata(media, path)
    }

    @Test("Broken WebP, AVIF and JPEG XL files are named with their reason, by probe and preview, and nothing hangs")
    func brokenFiles() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-broken")
        let webp = dir.path + "/good.webp", avif = dir.path + "/good.avif", jxl = dir.path + "/good.jxl"
        try MediaFixtures.webp(at: webp, width: 96, height: 64, exif: Self.exif)
        try MediaFixtures.avif(at: avif, width: 640, height: 480, exif: Self.exif)
        try MediaFixtures.jxl(at: jxl, width: 120, height: 80, exif: Self.exif)
        let good = (webp: Array(try Data(contentsOf: URL(fileURLWithPath: webp))),
                    avif: Array(try Data(contentsOf: URL(fileURLWithPath: avif))),
                    jxl: Array(try Data(contentsOf: URL(fileURLWithPath: jxl))))
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var wrongChunk = good.webp  // the VP8X chunk claims more than the RIFF data holds
        wrongChunk.replaceSubrange(16..<20, with: le32(good.webp.count))
        var noImage = Array(good.webp.prefix(12)) + Array("ICCP".utf8) + le32(2) + [0, 0]  // a chunk, but no picture
        noImage.replaceSubrange(4..<8, with: le32(noImage.count - 8))
        var badKeyFrame = Array(good.webp)  // lossy WebP whose VP8 chunk lost its start code
        if let vp8 = (12..<(badKeyFrame.count - 8)).first(where: { badKeyFrame[$0..<($0 + 4)].elementsEqual("VP8 ".utf8) }) {
            badKeyFrame[vp8 + 8 + 3] = 0
        }
        let cases: [(String, [UInt8], String, String)] = [
            ("cut.webp", Array(good.webp.prefix(good.webp.count / 2)), "WebP: truncated", "image/webp"),
            ("chunk.webp", wrongChunk, "WebP: chunk VP8X runs past", "image/webp"),
            ("noimage.webp", noImage, "WebP: no image chunk", "image/webp"),
            ("keyframe.webp", badKeyFrame, "WebP: the VP8 chunk has no key-frame header", "image/webp"),
            ("cut.avif", Array(good.avif.prefix(200)), "AVIF: ", "image/avif"),
            ("cut.jxl", Array(good.jxl.prefix(40)), "JPEG XL: ", "image/jxl"),
            ("header.jxl", [0xFF, 0x0A], "JPEG XL: the file ends early", "image/jxl"),
        ]
        for (name, bytes, start, type) in cases {
            let path = dir.path + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let media = try MediaProbe.probe(path: path)
                Issue.record("\(name) was read: \(media)")
            } catch {
                #expect(error.kind == .corrupt, "\(name): \(error.message)")
                #expect(error.message.hasPrefix(start), "\(name): \(error.message)")
            }
            // A preview of what is there, or a reason: never a hang, never a crash.
            do {
                _ = try Thumbnailer.png(path: path, contentType: type, maxSide: 32)
            } catch {
                #expect(!error.message.isEmpty, "\(name)")
            }
        }
        // A JPEG XL cut in its image data still says its size and EXIF (its boxes come first) but cannot preview whole.
        let cutImage = dir.path + "/cutimage.jxl"
        try Data(good.jxl.prefix(good.jxl.count - 40)).write(to: URL(fileURLWithPath: cutImage))
        #expect(throws: ProbeError.self) { try Thumbnailer.png(path: cutImage, contentType: "image/jxl", maxSide: 32) }
    }

    @Test("Brands: an AVIF's major brand, or a bare HEIF brand with AV1's beside it, is an AVIF; HEVC's brands stay HEIC")
    func brands() {
        func head(_ brands: [String]) -> [UInt8] {
            let size = 16 + 4 * (brands.count - 1)
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(brands[0].utf8) + [0, 0, 0, 0] + brands.dropFirst().flatMap { Array($0.utf8) }
        }
        #expect(MediaFormat(head: head(["avif", "avif", "mif1", "miaf"])) == .avif)
        #expect(MediaFormat(head: head(["avis", "avis", "msf1"])) == .avif)
        #expect(MediaFormat(head: head(["mif1", "mif1", "avif"])) == .avif)
        #expect(MediaFormat(head: head(["mif1", "mif1", "heic", "avif"])) == .heic)
        #expect(MediaFormat(head: head(["heic", "mif1", "heic"])) == .heic)
        #expect(MediaFormat(head: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)) == .webp)
        #expect(MediaFormat(head: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8)) == nil)
        #expect(MediaFormat(head: [0xFF, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == .jxl)
    }
}

/// Width and height from a PNG's IHDR.
private func pngSide(_ png: [UInt8]) -> [Int]? {
    guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
    func be32(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
    return [be32(16), be32(20)]
}
