import Foundation
import Glibc
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// MediaProbe and Thumbnailer on files made by the real tools (ImageMagick, heif-enc, FFmpeg,
/// exiftool), each in its own temporary directory.
@Suite struct MediaProbeTests {
    static let losAngeles = TimeZone(identifier: "America/Los_Angeles")!
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    /// Everything an iPhone-like JPEG says, UTC ms exact.
    @Test func jpegWithDateOffsetGPSAndCamera() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/IMG_0001.JPG"
        try MediaFixtures.jpeg(at: path, width: 96, height: 64, exif: .init(
            dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00", dateTimeDigitized: "2024:05:05 09:00:00",
            latitude: 45.5, longitude: -122.6, make: "Apple", model: "iPhone 15 Pro", software: "17.4.1",
            exposureTime: 0.01, orientation: 6))
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        #expect(media.kind == .photo)
        #expect(media.contentType == "image/jpeg")
        #expect(media.takenAtMs == 1_714_810_272_000)  // 2024-05-04T08:11:12Z
        #expect(media.utcOffsetSeconds == 7200)
        #expect(media.digitizedAtMs == 1_714_892_400_000)  // 2024-05-05T07:00:00Z, read at the original's offset
        let coordinate = try #require(media.coordinate)
        #expect(abs(coordinate.latitude - 45.5) < 1e-6)
        #expect(abs(coordinate.longitude - -122.6) < 1e-6)
        #expect(media.make == "Apple")
        #expect(media.model == "iPhone 15 Pro")
        #expect(media.software == "17.4.1")
        #expect(media.hasExposure)
        #expect(media.orientation == 6)
        #expect(media.pixelWidth == 96)
        #expect(media.pixelHeight == 64)
        #expect(media.durationMs == nil)
        #expect(media.contentIdentifier == nil)
        #expect(media.burstIdentifier == nil)
    }

    /// No offset: the date is read in the zone given (PST in January). No GPS, no camera.
    @Test func jpegWithoutOffsetIsReadInTheGivenZone() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/a.jpg"
        try MediaFixtures.jpeg(at: path, exif: .init(dateTimeOriginal: "2024:01:15 09:30:00"))
        let media = try MediaProbe.probe(path: path, timeZone: Self.losAngeles)
        #expect(media.takenAtMs == 1_705_339_800_000)  // 2024-01-15T17:30:00Z
        #expect(media.utcOffsetSeconds == nil)
        #expect(media.coordinate == nil)
        #expect(media.digitizedAtMs == nil)
        #expect(media.make == nil)
        #expect(!media.hasExposure)
        #expect(media.orientation == 1)
        // The same file in another zone is another instant.
        let inTokyo = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        let expected: Int64 = 1_705_339_800_000 - 17 * 3_600_000  // 09:30 in Tokyo is 00:30Z
        #expect(inTokyo.takenAtMs == expected)
    }

    @Test func heicWithExif() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/IMG_0002.HEIC"
        try MediaFixtures.heic(at: path, width: 96, height: 64, exif: .init(
            dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00", latitude: 45.5, longitude: -122.6,
            make: "Apple", model: "iPhone 15 Pro", software: "17.4.1", exposureTime: 0.01))
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        #expect(media.kind == .photo)
        #expect(media.contentType == "image/heic")
        #expect(media.takenAtMs == 1_714_810_272_000)
        #expect(media.utcOffsetSeconds == 7200)
        let coordinate = try #require(media.coordinate)
        #expect(abs(coordinate.latitude - 45.5) < 1e-6)
        #expect(abs(coordinate.longitude - -122.6) < 1e-6)
        #expect(media.make == "Apple")
        #expect(media.model == "iPhone 15 Pro")
        #expect(media.software == "17.4.1")
        #expect(media.hasExposure)
        #expect(media.orientation == 1)
        #expect(media.pixelWidth == 96)
        #expect(media.pixelHeight == 64)
    }

    @Test func pngWithExifChunk() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/photo.png"
        try MediaFixtures.png(at: path, width: 80, height: 60, exif: .init(
            dateTimeOriginal: "2023:12:24 21:45:30", offsetTimeOriginal: "+01:00", latitude: 48.8584, longitude: 2.2945,
            make: "Google", model: "Pixel 8", exposureTime: 0.005))
        let media = try MediaProbe.probe(path: path, timeZone: Self.losAngeles)
        #expect(media.contentType == "image/png")
        #expect(media.takenAtMs == 1_703_450_730_000)  // 2023-12-24T20:45:30Z
        #expect(media.utcOffsetSeconds == 3600)
        let coordinate = try #require(media.coordinate)
        #expect(abs(coordinate.latitude - 48.8584) < 1e-6)
        #expect(abs(coordinate.longitude - 2.2945) < 1e-6)
        #expect(media.make == "Google")
        #expect(media.model == "Pixel 8")
        #expect(media.hasExposure)
        #expect(media.pixelWidth == 80)
        #expect(media.pixelHeight == 60)
    }

    /// A screenshot: a PNG with no EXIF at all.
    @Test func pngScreenshotWithoutExif() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/Screenshot.png"
        try MediaFixtures.png(at: path, width: 120, height: 90)
        let media = try MediaProbe.probe(path: path)
        #expect(media.contentType == "image/png")
        #expect(media.takenAtMs == nil)
        #expect(media.utcOffsetSeconds == nil)
        #expect(media.coordinate == nil)
        #expect(!media.hasExposure)
        #expect(media.orientation == 1)
        #expect(media.pixelWidth == 120)
        #expect(media.pixelHeight == 90)
    }

    @Test(arguments: [("clip.mov", "video/quicktime"), ("clip.mp4", "video/mp4")])
    func videoWithAppleMetadata(name: String, contentType: String) throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/" + name
        try MediaFixtures.clip(at: path, seconds: 2, creationDate: "2024-05-04T10:11:13+0200", iso6709: "+45.5000-122.6000+012.3/",
                               contentIdentifier: "7E6E8C1B-37B6-4C9C-A1D1-1B7F9A1E2C3D", make: "Apple")
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        #expect(media.kind == .video)
        #expect(media.contentType == contentType)
        #expect(media.takenAtMs == 1_714_810_273_000)  // 2024-05-04T08:11:13Z
        #expect(media.utcOffsetSeconds == 7200)
        let coordinate = try #require(media.coordinate)
        #expect(abs(coordinate.latitude - 45.5) < 1e-9)
        #expect(abs(coordinate.longitude - -122.6) < 1e-9)
        #expect(media.contentIdentifier == "7E6E8C1B-37B6-4C9C-A1D1-1B7F9A1E2C3D")
        #expect(media.make == "Apple")
        #expect(media.pixelWidth == 64)
        #expect(media.pixelHeight == 48)
        #expect(media.orientation == 1)
        let duration = try #require(media.durationMs)
        #expect(duration >= 1900, "duration \(duration)")
        #expect(duration <= 2100, "duration \(duration)")
    }

    /// Only the movie header's `creation_time` (UTC): the instant is known, the offset is not.
    @Test func videoWithOnlyCreationTime() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/camera.mp4"
        try MediaFixtures.clip(at: path, metadata: [(key: "creation_time", value: "2024-05-04T08:11:13Z")])
        let media = try MediaProbe.probe(path: path, timeZone: Self.tokyo)
        #expect(media.contentType == "video/mp4")
        #expect(media.takenAtMs == 1_714_810_273_000)
        #expect(media.utcOffsetSeconds == nil)
        #expect(media.coordinate == nil)
        #expect(media.contentIdentifier == nil)
    }

    /// A display matrix becomes an orientation; FFmpeg's own autorotation and the thumbnail agree.
    @Test func rotatedVideo() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let plain = dir.path + "/plain.mp4", rotated = dir.path + "/rotated.mp4"
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi",
                                         "-i", "color=red:size=64x48:d=1,drawbox=x=0:y=0:w=64:h=12:color=blue:t=fill",
                                         "-c:v", "mpeg4", plain])
        try MediaFixtures.rotatedCopy(of: plain, at: rotated, degrees: 90)
        let media = try MediaProbe.probe(path: rotated)
        #expect(media.orientation == 6 || media.orientation == 8, "orientation \(media.orientation)")
        #expect(media.pixelWidth == 64)
        #expect(media.pixelHeight == 48)

        let thumbnail = try Thumbnailer.png(path: rotated, contentType: media.contentType, maxSide: 64, orientation: media.orientation)
        let ours = try decodePNG(thumbnail, in: dir)
        #expect(ours.width == 48)
        #expect(ours.height == 64)
        // FFmpeg's CLI turns the frame upright itself (autorotate): the blue band lands on the same side.
        let theirs = dir.path + "/theirs.png"
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-i", rotated, "-frames:v", "1", theirs])
        let reference = try decodePNG(Array(try Data(contentsOf: URL(fileURLWithPath: theirs))), in: dir)
        #expect(reference.width == 48)
        #expect(reference.height == 64)
        #expect(ours.isBlue(x: 4, y: 32) == reference.isBlue(x: 4, y: 32))
        #expect(ours.isBlue(x: 43, y: 32) == reference.isBlue(x: 43, y: 32))
        #expect(ours.isBlue(x: 4, y: 32) != ours.isBlue(x: 43, y: 32))
    }

    @Test func southernAndWesternHemispheres() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let santiago = dir.path + "/santiago.jpg", sydney = dir.path + "/sydney.heic", rio = dir.path + "/rio.mov"
        try MediaFixtures.jpeg(at: santiago, exif: .init(dateTimeOriginal: "2024:07:01 15:05:00", offsetTimeOriginal: "-04:00",
                                                         latitude: -33.4489, longitude: -70.6693))
        try MediaFixtures.heic(at: sydney, exif: .init(latitude: -33.8688, longitude: 151.2093))
        try MediaFixtures.clip(at: rio, iso6709: "-22.9068-043.1729/")
        let a = try #require(try MediaProbe.probe(path: santiago).coordinate)
        #expect(abs(a.latitude - -33.4489) < 1e-6)
        #expect(abs(a.longitude - -70.6693) < 1e-6)
        #expect(try MediaProbe.probe(path: santiago).takenAtMs == 1_719_860_700_000)  // 2024-07-01T19:05:00Z
        #expect(try MediaProbe.probe(path: santiago).utcOffsetSeconds == -14_400)
        let b = try #require(try MediaProbe.probe(path: sydney).coordinate)
        #expect(abs(b.latitude - -33.8688) < 1e-6)
        #expect(abs(b.longitude - 151.2093) < 1e-6)
        #expect(try MediaProbe.probe(path: sydney).takenAtMs == nil)
        let c = try #require(try MediaProbe.probe(path: rio).coordinate)
        #expect(abs(c.latitude - -22.9068) < 1e-9)
        #expect(abs(c.longitude - -43.1729) < 1e-9)
    }

    @Test func iso6709Forms() {
        func pair(_ text: String) -> [Double]? { ISO6709.parse(text).map { [$0.latitude, $0.longitude] } }
        #expect(pair("+45.5000-122.6000+012.3/") == [45.5, -122.6])
        #expect(pair("+45.5-122.6/") == [45.5, -122.6])
        #expect(pair("-33.8688+151.2093/") == [-33.8688, 151.2093])
        let dm = pair("+4530.000-12236.000/")
        #expect(dm.map { abs($0[0] - 45.5) < 1e-9 && abs($0[1] - -122.6) < 1e-9 } == true)
        let dms = pair("+453000-1223600/")
        #expect(dms.map { abs($0[0] - 45.5) < 1e-9 && abs($0[1] - -122.6) < 1e-9 } == true)
        #expect(pair("+00.0000+000.0000/") == nil)  // no fix
        #expect(pair("+95.0000+010.0000/") == nil)
        #expect(pair("+45.0000+190.0000/") == nil)
        #expect(pair("garbage") == nil)
        #expect(pair("") == nil)
    }

    /// Exactly 0,0 in EXIF GPS is what cameras write without a fix: no coordinate.
    @Test func zeroZeroGPSIsAbsent() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let path = dir.path + "/nofix.jpg"
        try MediaFixtures.jpeg(at: path, exif: .init(latitude: 0, longitude: 0))
        #expect(try MediaProbe.probe(path: path).coordinate == nil)
    }

    /// Apple's MakerNote (written by exiftool from real-format bytes): the Live Photo and burst keys.
    @Test func appleMakerNoteIdentifiers() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let jpeg = dir.path + "/IMG_0003.JPG", heic = dir.path + "/IMG_0004.HEIC"
        try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", make: "Apple", model: "iPhone 15"))
        try MediaFixtures.writeAppleMakerNote(to: jpeg, contentIdentifier: "1A2B3C4D-1111-2222-3333-444455556666",
                                              burstIdentifier: "9F8E7D6C-AAAA-BBBB-CCCC-DDDDEEEEFFFF")
        let a = try MediaProbe.probe(path: jpeg)
        #expect(a.contentIdentifier == "1A2B3C4D-1111-2222-3333-444455556666")
        #expect(a.burstIdentifier == "9F8E7D6C-AAAA-BBBB-CCCC-DDDDEEEEFFFF")
        #expect(a.make == "Apple")

        try MediaFixtures.heic(at: heic, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", make: "Apple"))
        try MediaFixtures.writeAppleMakerNote(to: heic, contentIdentifier: "0000AAAA-1111-2222-3333-444455556666", burstIdentifier: nil)
        let b = try MediaProbe.probe(path: heic)
        #expect(b.contentIdentifier == "0000AAAA-1111-2222-3333-444455556666")
        #expect(b.burstIdentifier == nil)
    }

    /// The content decides, never the name.
    @Test func formatComesFromContent() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let jpegNamedPNG = dir.path + "/really-a-jpeg.png"
        try MediaFixtures.jpeg(at: dir.path + "/made.jpg")
        try FileManager.default.moveItem(atPath: dir.path + "/made.jpg", toPath: jpegNamedPNG)
        #expect(try MediaProbe.probe(path: jpegNamedPNG).contentType == "image/jpeg")
        let textNamedJPEG = dir.path + "/notes.jpg"
        try Data("these are my notes, not a photo\n".utf8).write(to: URL(fileURLWithPath: textNamedJPEG))
        #expect(throws: ProbeError.self) { try MediaProbe.probe(path: textNamedJPEG) }
        #expect(probeErrorKind(textNamedJPEG) == .unsupported)
        let tiff = dir.path + "/scan"
        try MediaFixtures.run("convert", ["-size", "40x30", "gradient:red-blue", "tiff:" + tiff])
        try MediaFixtures.writeExif(.init(dateTimeOriginal: "2024:01:15 09:30:00", software: "VueScan"), to: tiff)
        let scanned = try MediaProbe.probe(path: tiff, timeZone: Self.losAngeles)
        #expect(scanned.contentType == "image/tiff")
        #expect(scanned.software == "VueScan")
        #expect(scanned.takenAtMs == 1_705_339_800_000)
        #expect(scanned.pixelWidth == 40)
        #expect(scanned.pixelHeight == 30)
    }

    /// Corrupt means the structure the metadata lives in is broken: garbage after a JPEG's magic, a
    /// JPEG or PNG cut before its image data, an empty file. A JPEG cut inside its scan data still
    /// probes (its metadata is whole).
    @Test func corruptFiles() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let good = dir.path + "/good.jpg"
        try MediaFixtures.jpeg(at: good, width: 200, height: 150, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))

        let garbage = dir.path + "/garbage.jpg"
        try (Data([0xFF, 0xD8, 0xFF]) + Data((0..<500).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) })).write(to: URL(fileURLWithPath: garbage))
        #expect(probeErrorKind(garbage) == .corrupt)

        let cutEarly = dir.path + "/cut-early.jpg"
        try bytes.prefix(300).write(to: URL(fileURLWithPath: cutEarly))
        #expect(probeErrorKind(cutEarly) == .corrupt)

        let cutInScan = dir.path + "/cut-in-scan.jpg"
        try bytes.prefix(bytes.count - 200).write(to: URL(fileURLWithPath: cutInScan))
        #expect(try MediaProbe.probe(path: cutInScan).takenAtMs == 1_714_810_272_000)

        let empty = dir.path + "/empty.jpg"
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(probeErrorKind(empty) == .corrupt)

        let png = dir.path + "/p.png"
        try MediaFixtures.png(at: png)
        let cutPNG = dir.path + "/cut.png"
        try Data(contentsOf: URL(fileURLWithPath: png)).prefix(60).write(to: URL(fileURLWithPath: cutPNG))
        #expect(probeErrorKind(cutPNG) == .corrupt)

        let mov = dir.path + "/c.mov"
        try MediaFixtures.clip(at: mov)
        let cutMOV = dir.path + "/cut.mov"
        try Data(contentsOf: URL(fileURLWithPath: mov)).prefix(40).write(to: URL(fileURLWithPath: cutMOV))
        #expect(probeErrorKind(cutMOV) == .corrupt)

        let heic = dir.path + "/h.heic"
        try MediaFixtures.heic(at: heic)
        let cutHEIC = dir.path + "/cut.heic"
        try Data(contentsOf: URL(fileURLWithPath: heic)).prefix(100).write(to: URL(fileURLWithPath: cutHEIC))
        #expect(probeErrorKind(cutHEIC) == .corrupt)
    }

    /// Unreadable: tests run as root, which reads any file whatever its mode, and a process cannot
    /// drop privileges for one test; so the unreadable paths here are a directory, a FIFO (which
    /// must not block the probe) and a missing file.
    @Test func unreadablePaths() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-probe")
        let folder = dir.path + "/folder.jpg"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(probeErrorKind(folder) == .unreadable)
        let fifo = dir.path + "/fifo.jpg"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(probeErrorKind(fifo) == .unreadable)
        #expect(thumbnailErrorKind(fifo, "image/jpeg") == .unreadable)
        #expect(probeErrorKind(dir.path + "/missing.jpg") == .unreadable)
    }

    // MARK: Thumbnails

    @Test func thumbnailsFitAndKeepTheirAspect() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-thumb")
        let jpeg = dir.path + "/a.jpg", heic = dir.path + "/a.heic", png = dir.path + "/a.png", mov = dir.path + "/a.mov"
        let tiff = dir.path + "/a.tif"
        try MediaFixtures.jpeg(at: jpeg, width: 96, height: 64)
        try MediaFixtures.heic(at: heic, width: 96, height: 64)
        try MediaFixtures.png(at: png, width: 64, height: 96)
        try MediaFixtures.clip(at: mov)
        try MediaFixtures.run("convert", ["-size", "90x60", "gradient:red-blue", tiff])
        let cases: [(String, String, Int, Int)] = [
            (jpeg, "image/jpeg", 32, 21), (heic, "image/heic", 32, 21), (png, "image/png", 21, 32),
            (mov, "video/quicktime", 32, 24), (tiff, "image/tiff", 32, 21),
        ]
        for (path, type, width, height) in cases {
            let media = try MediaProbe.probe(path: path)
            #expect(media.contentType == type)
            let thumbnail = try Thumbnailer.png(path: path, contentType: type, maxSide: 32, orientation: media.orientation)
            let size = try #require(pngSize(thumbnail), "\(type) thumbnail is not a PNG")
            #expect(size.width == width, "\(type): \(size)")
            #expect(size.height == height, "\(type): \(size)")
            #expect(!thumbnail.containsChunk("eXIf"))
            let decoded = try decodePNG(thumbnail, in: dir)
            #expect(decoded.width == width)
            #expect(decoded.height == height)
        }
        // Never enlarged.
        let big = try Thumbnailer.png(path: jpeg, contentType: "image/jpeg", maxSide: 1000)
        #expect(pngSize(big).map { [$0.width, $0.height] } == [96, 64])
    }

    /// Orientation 6 (turn 90° clockwise): width and height swap, and the top goes to the right.
    @Test func thumbnailAppliesOrientation() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-thumb")
        let path = dir.path + "/turned.jpg"
        try MediaFixtures.run("convert", ["-size", "96x64", "xc:red", "-fill", "blue", "-draw", "rectangle 0,0 95,15", path])
        try MediaFixtures.writeExif(.init(orientation: 6), to: path)
        let media = try MediaProbe.probe(path: path)
        #expect(media.orientation == 6)
        let thumbnail = try Thumbnailer.png(path: path, contentType: media.contentType, maxSide: 48, orientation: media.orientation)
        let decoded = try decodePNG(thumbnail, in: dir)
        #expect(decoded.width == 32)
        #expect(decoded.height == 48)
        #expect(decoded.isBlue(x: 30, y: 24))
        #expect(!decoded.isBlue(x: 2, y: 24))
    }

    /// Every orientation against a 3×2 picture whose pixels are numbered.
    @Test func orientationTransforms() {
        // Stored:  0 1 2
        //          3 4 5
        let stored: [UInt8] = (0..<6).flatMap { [UInt8($0), 0, 0] }
        func turned(_ orientation: Int) -> ([Int], Int, Int) {
            stored.withUnsafeBufferPointer { source in
                let out = Thumbnailer.orient(source, width: 3, height: 2, orientation: orientation)
                return (stride(from: 0, to: out.pixels.count, by: 3).map { Int(out.pixels[$0]) }, out.width, out.height)
            }
        }
        #expect(turned(1) == ([0, 1, 2, 3, 4, 5], 3, 2))
        #expect(turned(2) == ([2, 1, 0, 5, 4, 3], 3, 2))
        #expect(turned(3) == ([5, 4, 3, 2, 1, 0], 3, 2))
        #expect(turned(4) == ([3, 4, 5, 0, 1, 2], 3, 2))
        #expect(turned(5) == ([0, 3, 1, 4, 2, 5], 2, 3))
        #expect(turned(6) == ([3, 0, 4, 1, 5, 2], 2, 3))
        #expect(turned(7) == ([5, 2, 4, 1, 3, 0], 2, 3))
        #expect(turned(8) == ([2, 5, 1, 4, 0, 3], 2, 3))
    }

    @Test func thumbnailOfACorruptOrUnknownFile() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-thumb")
        let garbage = dir.path + "/garbage.jpg"
        try (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x42, count: 300)).write(to: URL(fileURLWithPath: garbage))
        #expect(thumbnailErrorKind(garbage, "image/jpeg") == .corrupt)
        #expect(thumbnailErrorKind(garbage, "application/pdf") == .unsupported)
    }
}

// MARK: Helpers

private func probeErrorKind(_ path: String) -> ProbeError.Kind? {
    do {
        _ = try MediaProbe.probe(path: path)
        return nil
    } catch {
        return error.kind
    }
}

private func thumbnailErrorKind(_ path: String, _ type: String) -> ProbeError.Kind? {
    do {
        _ = try Thumbnailer.png(path: path, contentType: type, maxSide: 32)
        return nil
    } catch {
        return error.kind
    }
}

/// Width and height from a PNG's IHDR.
private func pngSize(_ png: [UInt8]) -> (width: Int, height: Int)? {
    guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
          Array(png[12..<16]) == Array("IHDR".utf8) else { return nil }
    func be32(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
    return (be32(16), be32(20))
}

/// RGB pixels of a decoded PNG.
private struct DecodedImage {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    func isBlue(x: Int, y: Int) -> Bool {
        let i = (y * width + x) * 3
        return pixels[i + 2] > 160 && pixels[i] < 100
    }
}

/// Decodes a PNG with FFmpeg's CLI (an independent reader) to raw RGB.
private func decodePNG(_ png: [UInt8], in dir: TemporaryDirectory) throws -> DecodedImage {
    let size = try #require(pngSize(png))
    let name = UUID().uuidString
    let input = dir.path + "/\(name).png", output = dir.path + "/\(name).rgb"
    try Data(png).write(to: URL(fileURLWithPath: input))
    try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-i", input, "-f", "rawvideo", "-pix_fmt", "rgb24", output])
    let pixels = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    try #require(pixels.count == size.width * size.height * 3)
    return DecodedImage(width: size.width, height: size.height, pixels: pixels)
}

extension [UInt8] {
    /// Whether a PNG has a chunk of `type`.
    fileprivate func containsChunk(_ type: String) -> Bool {
        var at = 8
        while at + 8 <= count {
            let length = Int(self[at]) << 24 | Int(self[at + 1]) << 16 | Int(self[at + 2]) << 8 | Int(self[at + 3])
            if Array(self[(at + 4)..<(at + 8)]) == Array(type.utf8) { return true }
            at += 12 + length
        }
        return false
    }
}
