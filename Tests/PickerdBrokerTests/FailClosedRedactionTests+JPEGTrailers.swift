import Foundation
import PickerdBroker
import PickerdTestKit
import Testing

extension FailClosedRedactionTests {
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
        let redacted = try ExifRedactor.strippingLocation(broken)
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
        #expect(try ExifRedactor.strippingLocation(photoBytes + broken).count == photoBytes.count)
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(broken + photoBytes) }
    }

    @Test("an MPO of more images than are followed keeps those within the bound and cuts the rest")
    func manyAppendedImages() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-many")
        let photo = directory.path + "/photo.jpg"
        try jpeg(photo, size: "16x16", tags: Self.tokyo)
        let one = try read(photo)
        let many = [UInt8]((0..<40).flatMap { _ in one })
        let redacted = try ExifRedactor.strippingLocation(many)
        #expect(redacted.count == one.count * 17, "the first image and 16 appended ones")
        #expect(traces(in: redacted).isEmpty)
    }

}
