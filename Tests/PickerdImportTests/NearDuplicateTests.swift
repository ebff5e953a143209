import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// Near-duplicate photos (issue 42): a picture's difference hash, read by the reader, and the rule
/// that keeps one photo of a scene taken again seconds later.
@Suite struct NearDuplicateTests {
    /// A scene: ImageMagick's fractal plasma (seeded, so the same on every run), a photo-like
    /// picture of large and small structure.
    static func scene(_ path: String, seed: Int, size: String = "1600x1200") throws {
        try MediaFixtures.run("convert", ["-seed", String(seed), "-size", size, "plasma:fractal", "-quality", "92", path])
    }

    static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    @Test("the same scene moved a little, recompressed, made smaller or turned into a HEIC hashes a few bits apart; other scenes beyond the near-duplicate distance")
    func hashes() throws {
        let dir = try TemporaryDirectory()
        let a = dir.path + "/a.jpg", moved = dir.path + "/moved.jpg", small = dir.path + "/small.jpg"
        let heic = dir.path + "/a.heic", other = dir.path + "/other.jpg", third = dir.path + "/third.jpg"
        try Self.scene(a, seed: 5)
        // The hand moved between two presses: the view shifted by 1 %, the exposure a little brighter.
        try MediaFixtures.run("convert", [a, "-roll", "+16+8", "-modulate", "104", "-quality", "80", moved])
        try MediaFixtures.run("convert", [a, "-resize", "25%", "-quality", "70", small])
        // A phone's HEIC, with the thumbnail phones write (the hash is taken from it).
        try MediaFixtures.run("heif-enc", ["-q", "60", "-t", "320", "-o", heic, a])
        try Self.scene(other, seed: 6)
        try Self.scene(third, seed: 77)
        let hash = { (path: String, type: String) throws -> UInt64 in try PictureHash.of(path: path, contentType: type) }
        let base = try hash(a, "image/jpeg")
        #expect(Self.distance(base, try hash(moved, "image/jpeg")) <= NotAMemoryRules.nearDuplicateBits)
        #expect(Self.distance(base, try hash(small, "image/jpeg")) <= NotAMemoryRules.nearDuplicateBits)
        #expect(Self.distance(base, try hash(heic, "image/heic")) <= NotAMemoryRules.nearDuplicateBits)
        #expect(Self.distance(base, try hash(other, "image/jpeg")) > NotAMemoryRules.nearDuplicateBits)
        #expect(Self.distance(base, try hash(third, "image/jpeg")) > NotAMemoryRules.nearDuplicateBits)
        #expect(Self.distance(try hash(other, "image/jpeg"), try hash(third, "image/jpeg")) > NotAMemoryRules.nearDuplicateBits)
    }

    @Test("a camera JPEG's hash is taken from the thumbnail its EXIF holds, and agrees with the photo's own; a large JPEG without one is not hashed by the probe")
    func exifThumbnail() throws {
        let dir = try TemporaryDirectory()
        let photo = dir.path + "/DSC_0001.JPG", thumbnail = dir.path + "/thumb.jpg"
        try Self.scene(photo, seed: 21, size: "3000x2000")
        try MediaFixtures.run("convert", [photo, "-resize", "160x120", "-quality", "75", thumbnail])
        let plain = try PictureHash.of(path: photo, contentType: "image/jpeg")
        #expect(try InProcessReading().pictureHash(path: photo, contentType: "image/jpeg") == plain)
        // Over PictureHash.cheapBytes and no thumbnail: left to the indexer, which asks for the
        // whole picture's hash only when another photo was taken seconds from it.
        #expect(try FileManager.default.attributesOfItem(atPath: photo)[.size] as! Int > Int(PictureHash.cheapBytes))
        #expect(try MediaProbe.probe(path: photo, timeZone: .current, readPeople: true, hashPicture: true).media.pictureHash == nil)
        try MediaFixtures.run("exiftool", ["-q", "-overwrite_original", "-Make=NIKON CORPORATION", "-ThumbnailImage<=" + thumbnail, photo])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        // The EXIF block: APP1 after SOI, "Exif\0\0", then the TIFF structure.
        let app1 = try #require((2..<min(bytes.count, 65_536)).first { bytes[$0 - 2] == 0xFF && bytes[$0 - 1] == 0xE1 })
        let block = Array(bytes[(app1 + 8)..<(app1 + (Int(bytes[app1]) << 8 | Int(bytes[app1 + 1])))])
        let held = try #require(MediaProbe.exifThumbnail(block))
        #expect(held == [UInt8](try Data(contentsOf: URL(fileURLWithPath: thumbnail))))
        let fromThumbnail = try PictureHash.of(jpeg: held)
        #expect(try MediaProbe.probe(path: photo, timeZone: .current, readPeople: true, hashPicture: true).media.pictureHash == fromThumbnail)
        #expect(Self.distance(fromThumbnail, plain) <= NotAMemoryRules.nearDuplicateBits)
        // Not asked, not hashed; a broken block has no thumbnail.
        #expect(try MediaProbe.probe(path: photo, timeZone: .current, readPeople: true).media.pictureHash == nil)
        #expect(MediaProbe.exifThumbnail(Array(block.prefix(40))) == nil)
        #expect(MediaProbe.exifThumbnail([]) == nil)
    }

    @Test("a JPEG is previewed from a decode at an eighth of its size and a HEIC from its thumbnail: the preview's size is unchanged")
    func smallDecodes() throws {
        let dir = try TemporaryDirectory()
        let jpeg = dir.path + "/big.jpg", heic = dir.path + "/big.heic"
        try Self.scene(jpeg, seed: 9, size: "2400x1600")
        try MediaFixtures.run("heif-enc", ["-q", "60", "-t", "320", "-o", heic, jpeg])
        for (path, type) in [(jpeg, "image/jpeg"), (heic, "image/heic")] {
            let picture = try Thumbnailer.decode(path: path, contentType: type, maxSide: 256)
            // The HEIC's thumbnail is 320×213 (heif-enc rounds): 170 rows from it, 171 from the image.
            #expect(picture.width == 256 && (170...171).contains(picture.height), "\(type): \(picture.width)×\(picture.height)")
            // Asked for more than the thumbnail holds, the HEIC's image itself is decoded.
            let large = try Thumbnailer.decode(path: path, contentType: type, maxSide: 600)
            #expect(large.width == 600 && large.height == 400, "\(type): \(large.width)×\(large.height)")
        }
    }

    @Test("of look-alikes taken seconds apart the largest is kept, then the first unless another has a tenth more bytes; a chain is one scene")
    func rule() {
        func shot(_ seconds: Int64, _ hash: UInt64?, pixels: Int64 = 100, bytes: Int64 = 10, burst: String? = nil) -> NotAMemoryRules.Shot {
            NotAMemoryRules.Shot(takenAtMs: seconds * 1_000, camera: "", folder: "/p", burst: burst, pictureHash: hash, pixels: pixels, bytes: bytes)
        }
        let scene: UInt64 = 0xF0F0_F0F0_0F0F_0F0F
        let near1 = scene ^ 0b111, near2 = scene ^ 0b111_0000_0000  // 3 bits from the scene, 6 from each other
        let shots = [
            shot(0, scene, bytes: 10),
            shot(2, near1, bytes: 30),           // the sharpest of the three of one size: kept
            shot(9, near2, bytes: 20),           // 7 s after the one before: the same scene
            shot(3, ~scene),                     // another scene between them: kept
            shot(30, scene, bytes: 99),          // 21 s after the last look-alike: a new scene
            shot(100, scene, pixels: 50, bytes: 500), shot(101, scene, pixels: 400, bytes: 5),  // the larger kept
            shot(400, scene, bytes: 100), shot(401, scene, bytes: 109),  // 9 % more: the noise of two sharp frames, the first kept
            shot(200, nil), shot(200, nil),      // not hashed, no camera: not judged here
            shot(300, scene, burst: "B"), shot(300, scene, burst: "B"),  // Apple's burst: its first kept
        ]
        #expect(NotAMemoryRules.bursts(shots) == [0, 2, 5, 8, 12])
    }

    @Test("a folder of photos stripped of their camera (a Takeout download): frames of one scene seconds apart are one memory, the largest; their whole pictures hashed")
    func scan() throws {
        let temporary = try TemporaryStore()
        let root = temporary.directory + "/Takeout"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Self.scene(root + "/PXL_1.jpg", seed: 5)
        try MediaFixtures.run("convert", [root + "/PXL_1.jpg", "-roll", "+12+6", "-quality", "85", root + "/PXL_2.jpg"])
        try MediaFixtures.run("convert", [root + "/PXL_1.jpg", "-resize", "50%", root + "/PXL_3.jpg"])
        try Self.scene(root + "/PXL_4.jpg", seed: 6)  // another view, between them
        try MediaFixtures.run("cp", [root + "/PXL_2.jpg", root + "/PXL_5.jpg"])
        try MediaFixtures.run("convert", [root + "/PXL_5.jpg", "-quality", "60", root + "/PXL_5.jpg"])  // the view again, later
        let times = ["PXL_1": "10:11:12", "PXL_2": "10:11:13", "PXL_3": "10:11:15", "PXL_4": "10:11:14", "PXL_5": "10:16:00"]
        for (name, time) in times {
            try MediaFixtures.writeExif(.init(dateTimeOriginal: "2024:05:04 " + time), to: root + "/\(name).jpg")
        }
        let source = try temporary.store.addSource(path: root, timeMs: 0)
        let report = try SourceIndexer(store: temporary.store).scan(source)
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        var byName: [String: String] = [:]
        for item in try temporary.store.items() {
            byName[((item.media.first?.relativePath ?? "") as NSString).lastPathComponent] = item.notAMemory?.rawValue ?? "memory"
        }
        // PXL_1 and PXL_2 are one size: PXL_1 (quality 92) has more bytes than PXL_2 (85).
        #expect(byName == ["PXL_1.jpg": "memory", "PXL_2.jpg": "burst", "PXL_3.jpg": "burst", "PXL_4.jpg": "memory",
                           "PXL_5.jpg": "memory"])
        #expect(report.notMemories == [.burst: 2])
    }
}
