import Foundation
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A person's own folder through a real pickerd: `pickerctl sources`, the watcher, and releases of
/// the person's HEIC, JPEG and MOV files audited byte by byte.
@Suite("A person's own photos and videos, through pickerd", .serialized)
struct SourcesTests {
    /// Saturday 4 May 2024 in Lisbon: a run of photos, a Live Photo (HEIC + MOV), all with places.
    static func makeMorning(_ root: String) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (i, time) in ["10:00", "10:20", "10:40"].enumerated() {
            try MediaFixtures.jpeg(at: "\(root)/IMG_000\(i + 1).JPG", seed: i, exif: .init(
                dateTimeOriginal: "2024:05:04 \(time):00", offsetTimeOriginal: "+01:00", latitude: 38.7223, longitude: -9.1393,
                make: "Apple", model: "iPhone 13", exposureTime: 0.008))
        }
        try MediaFixtures.heic(at: root + "/IMG_0004.HEIC", seed: 4, exif: .init(
            dateTimeOriginal: "2024:05:04 11:00:00", offsetTimeOriginal: "+01:00", latitude: 38.7223, longitude: -9.1393,
            make: "Apple", model: "iPhone 13", exposureTime: 0.008))
        try MediaFixtures.clip(at: root + "/IMG_0004.MOV", seconds: 2, creationDate: "2024-05-04T11:00:00+0100", iso6709: "+38.7223-009.1393/")
    }

    @Test("sources add indexes a folder in place with its outcomes; list shows it watched; a deleted file leaves every suggestion within seconds; remove takes the rest")
    func addWatchRemove() throws {
        let pickerd = try RunningPickerd(seed: false)
        let pictures = pickerd.root + "/home/Pictures"
        try Self.makeMorning(pictures)
        try "not a photo".write(toFile: pictures + "/notes.txt", atomically: true, encoding: .utf8)
        // A gallery app's hidden thumbnails: not looked into, and named so in the list.
        try FileManager.default.createDirectory(atPath: pictures + "/.thumbnails", withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: pictures + "/.thumbnails/IMG_0001.jpg", seed: 1)

        let added = try pickerd.ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("\(pictures): 6 files"), "\(added.stdout)")
        #expect(added.stdout.contains("1 Live Photos"))
        #expect(added.stdout.contains("skipped \(pictures)/notes.txt: not a photo, video or workout file pickerd reads"))
        #expect(added.stderr.contains("reading"), "progress is shown: \(added.stderr)")
        let list = try pickerd.ctl(["sources", "list"])
        #expect(list.stdout.contains("4 photos and videos indexed") || list.stdout.contains("5 photos and videos indexed"), "\(list.stdout)")
        #expect(list.stdout.contains("watched for changes"))
        #expect(list.stdout.contains("not looked into: \(pictures)/.thumbnails: a hidden folder (its name starts with a dot)"), "\(list.stdout)")
        let status = try pickerd.ctl(["status"])
        #expect(status.stdout.contains("library: 4 items"), "\(status.stdout)")
        #expect(status.stdout.contains("sources: 1 folder"))

        // Adding it again, a folder inside it, a file, or nothing: each a clear refusal.
        let around = try pickerd.ctl(["sources", "add", pictures + "/.."])
        #expect(around.status == 1, "\(around.stderr)")
        #expect(around.stderr.contains("holds the source"), "\(around.stderr)")
        try FileManager.default.createDirectory(atPath: pictures + "/2024", withIntermediateDirectories: true)
        let inside = try pickerd.ctl(["sources", "add", pictures + "/2024"])
        #expect(inside.status == 1, "\(inside.stderr)")
        #expect(inside.stderr.contains("is inside the source"), "\(inside.stderr)")
        let own = try pickerd.ctl(["sources", "add", pickerd.data])
        #expect(own.status == 1, "\(own.stderr)")
        #expect(own.stderr.contains("pickerd's own store"), "\(own.stderr)")
        let file = try pickerd.ctl(["sources", "add", pictures + "/notes.txt"])
        #expect(file.status == 1)
        #expect(file.stderr.contains("is not a folder"))
        let missing = try pickerd.ctl(["sources", "add", pickerd.root + "/nowhere"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))

        // The store holds references, not copies; one suggestion is the morning.
        let store = try Store(dataDirectory: pickerd.data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.mediaDirectory).isEmpty)
        let first = try #require(try store.items().first { $0.media.first?.relativePath.hasSuffix("IMG_0001.JPG") == true })
        #expect(try store.suggestions().contains { $0.itemIDs.contains(first.id) })

        // Deleted while pickerd runs: the watcher sees it and the item leaves every suggestion.
        try FileManager.default.removeItem(atPath: pictures + "/IMG_0001.JPG")
        #expect(eventually(timeout: 20) { (try? store.items().contains { $0.id == first.id }) == false }, "the item stays: \(pickerd.logText)")
        #expect(try store.suggestions().allSatisfy { !$0.itemIDs.contains(first.id) })
        // Added while pickerd runs: indexed.
        try MediaFixtures.jpeg(at: pictures + "/later.jpg", seed: 9, exif: .init(dateTimeOriginal: "2024:05:04 10:50:00", make: "Apple", model: "iPhone 13"))
        #expect(eventually(timeout: 20) { (try? store.items().contains { $0.media.first?.filename == "later.jpg" }) == true })
        // A picture WhatsApp saved (its name, no camera metadata): indexed, kept out of suggestions,
        // and the list says why in words.
        let whatsApp = "IMG-20240504-WA0001.jpg"
        try MediaFixtures.jpeg(at: pictures + "/" + whatsApp, seed: 11)
        let why = "(1 kept out of suggestions: 1 picture saved by a messaging app without camera metadata)"
        #expect(eventually(timeout: 20) { (try? pickerd.ctl(["sources", "list"]).stdout.contains(why)) == true },
                "\((try? pickerd.ctl(["sources", "list"]).stdout) ?? "")")
        let whatsAppItem = try #require(try store.items().first { $0.media.first?.filename == whatsApp })
        #expect(whatsAppItem.notAMemory == .messagingImage)
        #expect(try store.suggestions().allSatisfy { !$0.itemIDs.contains(whatsAppItem.id) })

        let rescan = try pickerd.ctl(["sources", "rescan"])
        #expect(rescan.status == 0)
        #expect(rescan.stdout.contains("0 new, 0 changed, 0 moved, 0 gone"), "\(rescan.stdout)")

        let removed = try pickerd.ctl(["sources", "remove", pictures])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("no sources yet"))
        #expect(try store.items().isEmpty)
        #expect(try store.suggestions().isEmpty)
        #expect(FileManager.default.fileExists(atPath: pictures + "/IMG_0002.JPG"), "the person's files stay")
        #expect(pickerd.stop() == 0)
    }

    @Test("a Google Photos Takeout through pickerd's confined readers: each photo read with its sidecar in one request, a broken sidecar named, one changed alone noticed")
    func takeoutSidecars() throws {
        let pickerd = try RunningPickerd(seed: false)
        let folder = pickerd.root + "/home/Takeout/Google Photos/Photos from 2026"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A download stripped of its EXIF: Google's sidecar has its time (16 Mar 2026 08:15:23 UTC) and place.
        func sidecar(_ title: String, latitude: Double) -> String {
            #"{"title": "\#(title)", "photoTakenTime": {"timestamp": "1773648923", "formatted": ""}, "#
                + #""geoData": {"latitude": \#(latitude), "longitude": 13.405, "altitude": 0.0}}"#
        }
        try MediaFixtures.jpeg(at: folder + "/IMG_0001.jpg", seed: 1)
        try sidecar("IMG_0001.jpg", latitude: 52.52).write(toFile: folder + "/IMG_0001.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        try MediaFixtures.jpeg(at: folder + "/IMG_0002.jpg", seed: 2)
        try "{\"title\": ".write(toFile: folder + "/IMG_0002.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)

        let added = try pickerd.ctl(["sources", "add", pickerd.root + "/home/Takeout"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("IMG_0002.jpg.supplemental-metadata.json: "), "the broken sidecar is named: \(added.stdout)")
        let store = try Store(dataDirectory: pickerd.data)
        let photo = try #require(try store.items().first { $0.media.first?.filename == "IMG_0001.jpg" })
        #expect(photo.startMs == 1_773_648_923_000)
        #expect(photo.coordinate?.latitude == 52.52)
        #expect(try store.personsItems().count == 2, "the two photos; the engine's prompts are not the person's")

        // The person moved its place in Google Photos and took it out again: only the sidecar changed.
        try sidecar("IMG_0001.jpg", latitude: 48.8566).write(toFile: folder + "/IMG_0001.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        // The watcher sees it (its folder's scan reads the photo again); a rescan would too.
        #expect(eventually(timeout: 20) { (try? store.items().first { $0.id == photo.id }?.coordinate?.latitude) == 48.8566 },
                "the photo keeps the old place: \(pickerd.logText.suffix(2000))")
        #expect(pickerd.stop() == 0)
    }

    @Test("near-duplicates through pickerd's confined readers: a Takeout download's large frames taken seconds apart are one memory, their whole pictures hashed on request")
    func nearDuplicates() throws {
        let pickerd = try RunningPickerd(seed: false)
        let folder = pickerd.root + "/home/Takeout/Google Photos/Photos from 2026"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Three frames of one view with no EXIF (over PictureHash.cheapBytes, no thumbnail: the probe
        // leaves them unhashed and pickerd asks a reader for each whole picture), and another view.
        try MediaFixtures.run("convert", ["-seed", "5", "-size", "1600x1200", "plasma:fractal", "-quality", "92", folder + "/PXL_1.jpg"])
        try MediaFixtures.run("convert", [folder + "/PXL_1.jpg", "-roll", "+12+6", "-quality", "85", folder + "/PXL_2.jpg"])
        try MediaFixtures.run("convert", [folder + "/PXL_1.jpg", "-modulate", "103", "-quality", "80", folder + "/PXL_3.jpg"])
        try MediaFixtures.run("convert", ["-seed", "6", "-size", "1600x1200", "plasma:fractal", "-quality", "92", folder + "/PXL_4.jpg"])
        for (name, seconds) in [("PXL_1", 0), ("PXL_2", 1), ("PXL_3", 3), ("PXL_4", 2)] {
            try #"{"title": "\#(name).jpg", "photoTakenTime": {"timestamp": "\#(1_773_648_923 + seconds)", "formatted": ""}}"#
                .write(toFile: folder + "/\(name).jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        }
        let added = try pickerd.ctl(["sources", "add", pickerd.root + "/home/Takeout"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("2 extra burst frames"), "\(added.stdout)")
        let store = try Store(dataDirectory: pickerd.data)
        let kept = try store.items().filter { $0.notAMemory == nil }.compactMap { $0.media.first?.filename }.sorted()
        #expect(kept == ["PXL_1.jpg", "PXL_4.jpg"])
        #expect(pickerd.stop() == 0)
    }

    @Test("a released JPEG, HEIC and MOV of the person's carry no location when the place was not kept, and are the person's bytes otherwise")
    func releaseAudit() throws {
        let script = #"{"reviews": [{"title": "Morning in Intendente", "keep": ["photo", "livePhoto"]}]}"#
        let pickerd = try sessionPickerd(script: script)
        let pictures = pickerd.root + "/Pictures"
        try Self.makeMorning(pictures)
        let added = try pickerd.ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stderr)")

        let approved = try testClient(pickerd, "present")
        #expect(approved.last?["result"] as? String == "approved", "\(approved.last ?? [:]) \(pickerd.logText.suffix(2000))")
        let suggestion = try #require(approvedSuggestion(approved))
        #expect(suggestion.items.count == 4)
        let files = (approved.last?["descriptors"] as? [[String: Any]] ?? []).compactMap { ($0["base64"] as? String).flatMap { Data(base64Encoded: $0) } }
        #expect(files.count == 5, "three JPEGs, the Live Photo's HEIC and MOV")
        let audit = try TemporaryDirectory(prefix: "pkd-audit")
        for (index, data) in files.enumerated() {
            let path = "\(audit.path)/released-\(index)"
            try data.write(to: URL(fileURLWithPath: path))
            let tags = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-n", "-s", "-a", "-G1", "-GPS:all", "-Keys:all", "-UserData:all", "-XMP:all", path])
            #expect(!tags.stdout.contains("GPS") && !tags.stdout.contains("ISO6709") && !tags.stdout.contains("38.72"),
                    "released file \(index) still says where: \(tags.stdout)")
            #expect(data.range(of: Data("+38.7223".utf8)) == nil)
            let dates = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s", "-DateTimeOriginal", "-CreationDate", path])
            #expect(dates.stdout.contains("2024:05:04"), "the rest of the metadata stays: \(dates.stdout)")
        }
        // The person's files themselves are untouched.
        let original = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-n", "-s", "-GPSLatitude", pictures + "/IMG_0004.HEIC"])
        #expect(original.stdout.contains("38.7223"))
        pickerd.stop()
    }

    @Test("pickerd run as an ordinary user skips a file and a folder it may not read, each with the reason, and serves on")
    func permissions() throws {
        let nobody: UInt32 = 65534
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-nobody")
        let pictures = root + "/Pictures"
        try Self.makeMorning(pictures)
        try FileManager.default.createDirectory(atPath: pictures + "/private", withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: pictures + "/private/diary.jpg")
        try MediaFixtures.jpeg(at: pictures + "/secret.jpg")
        for path in [root, pictures] + (try FileManager.default.contentsOfDirectory(atPath: pictures)).map({ pictures + "/" + $0 }) {
            #expect(chown(path, nobody, nobody) == 0)
        }
        // Root's own: the folder nobody may enter, the file nobody may read.
        #expect(chown(pictures + "/private", 0, 0) == 0)
        #expect(chmod(pictures + "/private", 0o700) == 0)
        #expect(chown(pictures + "/secret.jpg", 0, 0) == 0)
        #expect(chmod(pictures + "/secret.jpg", 0o600) == 0)

        let asNobody = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--"]
        let pickerd = Process()
        pickerd.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        pickerd.arguments = asNobody + [RunningPickerd.executable.path, "--runtime-dir", root + "/run", "--data-dir", root + "/data",
                                        "--config-dir", root + "/config"]
        pickerd.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try pickerd.run()
        defer {
            pickerd.terminate()
            pickerd.waitUntilExit()
        }
        func ctl(_ arguments: [String]) throws -> CommandResult {
            try runCommand(URL(fileURLWithPath: "/usr/bin/setpriv"), asNobody + [BuiltProducts.url("pickerctl").path] + arguments + ["--runtime-dir", root + "/run"])
        }
        #expect(eventually(timeout: 20) { (try? ctl(["status"]))?.status == 0 })
        let added = try ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("skipped \(pictures)/secret.jpg: cannot open it: Permission denied"), "\(added.stdout)")
        #expect(added.stdout.contains("skipped \(pictures)/private: a folder pickerd cannot read (Permission denied)"), "\(added.stdout)")
        #expect(added.stdout.contains("1 Live Photos"))
        let status = try ctl(["status"])
        #expect(status.stdout.contains("library: 4 items"), "\(status.stdout)")
    }
}
