import Foundation
import Glibc
import PickerdTestKit
import Testing

extension ConformanceTests {
    @Test("18. a release is of the file indexed: a photo swapped for a link to another file, given its size and mtime, is not released",
          arguments: Caller.allCases)
    func swappedFile(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Morning in Intendente", "keep": ["photo"]}]}"#)
        check(18, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let pictures = world.pickerd.root + "/Pictures"
            try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
            for (i, time) in ["10:00", "10:20", "10:40"].enumerated() {
                try MediaFixtures.jpeg(at: "\(pictures)/IMG_000\(i + 1).JPG", seed: i, exif: .init(
                    dateTimeOriginal: "2024:05:04 \(time):00", offsetTimeOriginal: "+01:00", latitude: 38.7223, longitude: -9.1393,
                    make: "Apple", model: "iPhone 13", exposureTime: 0.008))
            }
            let added = try world.pickerd.ctl(["sources", "add", pictures])
            guard added.status == 0 else { return (false, "sources add: \(added.stderr)") }
            // Outside every source: a secret of the photo's size and mtime, put in its place by a
            // link renamed over it (atomically, as an attacker with write access to the folder could).
            let photo = pictures + "/IMG_0001.JPG"
            let attributes = try FileManager.default.attributesOfItem(atPath: photo)
            let size = (attributes[.size] as? Int) ?? 0
            let canary = "SWAPPED-SECRET-7Q"
            let secret = world.pickerd.root + "/secret.txt"
            var text = Data(String(repeating: canary + "\n", count: size / (canary.count + 1) + 1).utf8)
            text.count = size
            try text.write(to: URL(fileURLWithPath: secret))
            // The photo's mtime to the nanosecond (touch -r), as the attack had it.
            guard try runCommand(URL(fileURLWithPath: "/usr/bin/touch"), ["-r", photo, secret]).status == 0 else { return (false, "touch -r failed") }
            try FileManager.default.createSymbolicLink(atPath: pictures + "/.swap", withDestinationPath: secret)
            guard rename(pictures + "/.swap", photo) == 0 else { return (false, "rename: \(errno)") }
            let lines = try world.run(caller, "present").lines
            let leaked = anyContains(receivedBytes(lines), canary)
            let approved = lines.last?["result"] as? String == "approved"
            let media = (lines.last?["descriptors"] as? [Any])?.count ?? 0
            return (approved && !leaked && media == 2, "approved \(approved) with \(media) photos (of 3, one swapped); "
                    + (leaked ? "the swapped-in file's bytes were released" : "none of the swapped-in file's bytes"))
        }
    }
}

extension ConformanceTests {
    @Test("17. without a kept place no type leaves with a location: TIFF, DNG, a multi-picture JPEG, a motion photo with an MP4 trailer, WebP, AVIF, JPEG XL",
          arguments: Caller.allCases)
    func everyTypeRedacted(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Morning in Intendente", "keep": ["photo"]}]}"#)
        check(17, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let pictures = world.pickerd.root + "/Pictures", work = world.pickerd.root + "/make"
            for folder in [pictures, work] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            func tool(_ path: String, _ arguments: [String]) throws {
                let r = try runCommand(URL(fileURLWithPath: path), arguments)
                if r.status != 0 { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(path) \(arguments): \(r.stderr)"]) }
            }
            func located(_ path: String, _ time: String) throws {
                try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2024:05:04 \(time):00", "-OffsetTimeOriginal=+01:00",
                                               "-Make=Apple", "-Model=iPhone 13", "-GPSLatitude=38.7223", "-GPSLatitudeRef=N",
                                               "-GPSLongitude=9.1393", "-GPSLongitudeRef=W", path])
            }
            // Real files from real tools: ImageMagick, exiftool, ffmpeg.
            try tool("/usr/bin/convert", ["-size", "64x48", "gradient:red-blue", pictures + "/scan.tif"])
            try located(pictures + "/scan.tif", "10:00")
            try tool("/usr/bin/convert", ["-size", "64x48", "gradient:green-blue", pictures + "/raw.dng.tif"])
            try located(pictures + "/raw.dng.tif", "10:10")
            try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DNGVersion=1.4.0.0", "-DNGBackwardVersion=1.1.0.0",
                                           "-UniqueCameraModel=Conformance", pictures + "/raw.dng.tif"])
            try FileManager.default.moveItem(atPath: pictures + "/raw.dng.tif", toPath: pictures + "/raw.dng")
            for (name, color, time) in [("first", "orange", "10:20"), ("second", "purple", "10:20")] {
                try tool("/usr/bin/convert", ["-size", "64x48", "xc:\(color)", work + "/\(name).jpg"])
                try located(work + "/\(name).jpg", time)
            }
            var multi = try Data(contentsOf: URL(fileURLWithPath: work + "/first.jpg"))
            multi += try Data(contentsOf: URL(fileURLWithPath: work + "/second.jpg"))
            try multi.write(to: URL(fileURLWithPath: pictures + "/DSCF0001.JPG"))
            try tool("/usr/bin/convert", ["-size", "64x48", "xc:teal", work + "/still.jpg"])
            try located(work + "/still.jpg", "10:30")
            try tool("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=teal:s=64x48:d=1", "-c:v", "mpeg4",
                                         "-metadata", "location=+38.7223-009.1393/", work + "/motion.mp4"])
            var motion = try Data(contentsOf: URL(fileURLWithPath: work + "/still.jpg"))
            motion += try Data(contentsOf: URL(fileURLWithPath: work + "/motion.mp4"))
            try motion.write(to: URL(fileURLWithPath: pictures + "/PXL_20240504_MP.jpg"))
            // The newer photo formats, from their own encoders: libwebp's cwebp, ImageMagick over
            // libheif and libaom (AVIF), libjxl's cjxl; exiftool writes each one's EXIF with GPS
            // (a WebP `EXIF` chunk, an AVIF Exif item, a JPEG XL `Exif` box).
            try tool("/usr/bin/convert", ["-size", "64x48", "gradient:yellow-blue", work + "/webp.png"])
            try tool("/usr/bin/cwebp", ["-quiet", work + "/webp.png", "-o", pictures + "/PXL_20240504_1.webp"])
            try located(pictures + "/PXL_20240504_1.webp", "10:05")
            try tool("/usr/bin/convert", ["-size", "64x48", "gradient:white-blue", "-quality", "60", "avif:" + pictures + "/photo.avif"])
            try located(pictures + "/photo.avif", "10:15")
            try tool("/usr/bin/convert", ["-size", "64x48", "gradient:black-blue", work + "/jxl.png"])
            try tool("/usr/bin/cjxl", ["--quiet", work + "/jxl.png", pictures + "/photo.jxl"])
            try tool("/usr/bin/exiftool", ["-m", "-q", "-overwrite_original", "-DateTimeOriginal=2024:05:04 10:25:00", "-OffsetTimeOriginal=+01:00",
                                           "-GPSLatitude=38.7223", "-GPSLatitudeRef=N", "-GPSLongitude=9.1393", "-GPSLongitudeRef=W",
                                           pictures + "/photo.jxl"])

            let added = try world.pickerd.ctl(["sources", "add", pictures])
            guard added.status == 0 else { return (false, "sources add: \(added.stderr)") }
            let lines = try world.run(caller, "present").lines
            let files = (lines.last?["descriptors"] as? [[String: Any]] ?? []).compactMap { ($0["base64"] as? String).flatMap { Data(base64Encoded: $0) } }
            var located: [String] = []
            for (index, data) in files.enumerated() {
                let path = work + "/released-\(index)"
                try data.write(to: URL(fileURLWithPath: path))
                let tags = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"),
                                          ["-a", "-G1", "-n", "-ee", "-gps:all", "-xmp:all", "-Keys:all", "-UserData:all", "-ItemList:all", path]).stdout
                if tags.contains("GPS") || tags.contains("38.72") || tags.contains("ISO6709") || data.range(of: Data("+38.7223".utf8)) != nil {
                    located.append("file \(index): \(tags.replacingOccurrences(of: "\n", with: "; "))")
                }
            }
            let approved = lines.last?["result"] as? String == "approved"
            return (approved && files.count == 7 && located.isEmpty,
                    "approved \(approved), \(files.count) files (TIFF, DNG, multi-picture JPEG, motion photo, WebP, AVIF, JPEG XL); "
                    + (located.isEmpty ? "exiftool (all groups, embedded too) finds no location in any" : "still located: \(located)"))
        }
    }
}
