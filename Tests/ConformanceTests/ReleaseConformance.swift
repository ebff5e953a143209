import Foundation
import Glibc
import PickerdTestKit
import Testing

extension ConformanceTests {
    @Test("18. a release is of the file indexed: a photo swapped for a link to another file, given its size and mtime, is not released",
          arguments: Caller.allCases)
    func swappedFile(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Saturday morning in pictures", "keep": ["photo"]}]}"#)
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
