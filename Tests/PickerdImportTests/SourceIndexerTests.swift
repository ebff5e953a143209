import Foundation
import Glibc
import PickerdImport
import PickerdReaders
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A folder of real files (made by ImageMagick, libheif, FFmpeg and exiftool) indexed into a real
/// store: each file gets its outcome, rescans are incremental, moves keep ids, deletions leave.
@Suite("Indexing a person's folder", .serialized)
struct SourceIndexerTests {
    /// A camera that records exposures, in Lisbon (UTC+1 in May).
    static func lisbon(_ time: String, seconds: Int = 0) -> MediaFixtures.Exif {
        .init(dateTimeOriginal: "2024:05:04 \(time):\(String(format: "%02d", seconds))", offsetTimeOriginal: "+01:00",
              latitude: 38.7223, longitude: -9.1393, make: "Apple", model: "iPhone 13", exposureTime: 0.008)
    }

    /// Makes the test folder: a run of photos, a Live Photo, a plain clip, a screenshot, a burst, a
    /// scan, and files that are skipped.
    static func makeLibrary(_ root: String) throws {
        let fm = FileManager.default
        for folder in ["trip", "Screenshots", "scans", "junk"] { try fm.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true) }
        for (i, time) in ["10:00", "10:30", "11:00", "11:30"].enumerated() {
            try MediaFixtures.jpeg(at: "\(root)/trip/IMG_000\(i + 1).jpg", seed: i, exif: lisbon(time))
        }
        try MediaFixtures.heic(at: "\(root)/trip/IMG_0010.HEIC", seed: 7, exif: lisbon("12:00"))
        try MediaFixtures.clip(at: "\(root)/trip/IMG_0010.MOV", seconds: 2, creationDate: "2024-05-04T12:00:00+0100", iso6709: "+38.7223-009.1393/")
        try MediaFixtures.clip(at: "\(root)/trip/tram.mp4", seconds: 8, creationDate: "2024-05-04T12:10:00+0100",
                               iso6709: "+38.7223-009.1393/", contentIdentifier: "TRAM-CLIP-1")
        for frame in 0..<3 {
            try MediaFixtures.jpeg(at: "\(root)/trip/BURST_\(frame).jpg", seed: 20 + frame, exif: lisbon("13:00", seconds: frame == 2 ? 1 : 0))
        }
        try MediaFixtures.png(at: "\(root)/Screenshots/Screenshot 2024-05-04.png", width: 1170, height: 2532)
        try MediaFixtures.jpeg(at: "\(root)/scans/grandma.jpg", seed: 30,
                               exif: .init(dateTimeOriginal: "2024:05:06 09:00:00", make: "EPSON", model: "Perfection V600", software: "VueScan 9.8"))
        try Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x40] + Array(repeating: 0x41, count: 20)).write(to: URL(fileURLWithPath: root + "/junk/corrupt.jpg"))
        try Data().write(to: URL(fileURLWithPath: root + "/junk/empty.jpg"))
        try "a note".write(toFile: root + "/junk/notes.txt", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: root + "/junk/loop", withDestinationPath: root + "/junk/loop")
        try fm.createSymbolicLink(atPath: root + "/junk/up", withDestinationPath: root)
        #expect(mkfifo(root + "/junk/fifo", 0o600) == 0)
    }

    @Test("every file gets its outcome: indexed, marked not a memory, or skipped with a reason")
    func outcomes() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try Self.makeLibrary(root)
        let source = try store.addSource(path: root, timeMs: 0)
        let report = try SourceIndexer(store: store, timeZone: TimeZone(identifier: "America/Los_Angeles")!).scan(source)

        let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.path.replacingOccurrences(of: root + "/", with: ""), $0.reason) })
        #expect(skipped["junk/notes.txt"] == "not a photo, video or workout file pickerd reads")
        #expect(skipped["junk/empty.jpg"]?.contains("empty") == true, "\(skipped)")
        #expect(skipped["junk/corrupt.jpg"] != nil, "\(skipped)")
        #expect(skipped["junk/loop"] == "a symbolic link loop")
        #expect(skipped["junk/up"]?.contains("not followed") == true)
        #expect(skipped["junk/fifo"] == "not a regular file")
        #expect(report.livePhotos == 1)

        let items = try store.items()
        let byName = Dictionary(uniqueKeysWithValues: items.map { (($0.media.first?.relativePath ?? "") as NSString).lastPathComponent + ($0.media.count > 1 ? "+" : "") } .enumerated().map { ($1, items[$0]) })
        // The run: four photos with their place and their own offset; UTC exact.
        let first = try #require(byName["IMG_0001.jpg"])
        #expect(first.kind == .photo)
        #expect(first.startMs == 1_714_813_200_000)  // 2024-05-04 10:00 +01:00
        #expect(first.utcOffsetSeconds == 3600)
        #expect(abs((first.coordinate?.latitude ?? 0) - 38.7223) < 0.0001)
        #expect(abs((first.coordinate?.longitude ?? 0) + 9.1393) < 0.0001)
        #expect(first.media.first?.relativePath == root + "/trip/IMG_0001.jpg", "the item names the person's file, not a copy")
        #expect(first.notAMemory == nil)
        // The Live Photo: the still and its clip are one item (the still's).
        let live = try #require(byName["IMG_0010.HEIC+"])
        #expect(live.kind == .livePhoto)
        #expect(live.media.map(\.contentType) == ["image/heic", "video/quicktime"])
        // A clip longer than a Live Photo's stays a video, with its place and duration.
        let tram = try #require(byName["tram.mp4"])
        #expect(tram.kind == .video)
        #expect(tram.endMs - tram.startMs >= 7_000)
        #expect(tram.coordinate != nil)
        // Not memories.
        #expect(byName["Screenshot 2024-05-04.png"]?.notAMemory == .screenshot)
        #expect(byName["grandma.jpg"]?.notAMemory == .scan)
        #expect(items.filter { $0.notAMemory == .burst }.count == 2, "a burst keeps its first frame")
        #expect(byName["BURST_0.jpg"]?.notAMemory == nil)
        // Nothing was copied into the store.
        let copied = try FileManager.default.contentsOfDirectory(atPath: store.mediaDirectory)
        #expect(copied.isEmpty, "\(copied)")

        // The engine makes a moment of the run, and never puts a not-memory in it.
        try MomentEngine(store: store).refresh(touching: report.touched)
        let suggestions = try store.suggestions()
        #expect(!suggestions.isEmpty)
        let marked = Set(items.filter { $0.notAMemory != nil }.map(\.id))
        #expect(suggestions.allSatisfy { Set($0.itemIDs).isDisjoint(with: marked) })
        #expect(suggestions.contains { $0.itemIDs.contains(first.id) })
    }

    @Test("a rescan of an unchanged folder reads nothing; a move keeps the item; a change is read again; a deletion leaves")
    func incremental() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try Self.makeLibrary(root)
        let source = try store.addSource(path: root, timeMs: 0)
        let indexer = SourceIndexer(store: store)
        let first = try indexer.scan(source)
        try MomentEngine(store: store).refresh(touching: first.touched)
        let before = try store.items()

        let again = try indexer.scan(source)
        #expect(again.added == 0)
        #expect(again.changed == 0)
        #expect(again.moved == 0)
        #expect(again.removed == 0)
        #expect(again.unchanged == first.seen)
        #expect(again.touched.isEmpty)
        #expect(try store.items() == before)

        // Move a photo into another folder of the source: same item, new path.
        let moved = try #require(before.first { $0.media.first?.relativePath.hasSuffix("IMG_0002.jpg") == true })
        try FileManager.default.createDirectory(atPath: root + "/sorted", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/trip/IMG_0002.jpg", toPath: root + "/sorted/lisbon-2.jpg")
        // Change another (same name, new content): same id, read again.
        let changed = try #require(before.first { $0.media.first?.relativePath.hasSuffix("IMG_0003.jpg") == true })
        try MediaFixtures.jpeg(at: root + "/trip/IMG_0003.jpg", width: 120, height: 80, seed: 9, exif: Self.lisbon("11:05"))
        // Delete a third.
        let deleted = try #require(before.first { $0.media.first?.relativePath.hasSuffix("IMG_0004.jpg") == true })
        try FileManager.default.removeItem(atPath: root + "/trip/IMG_0004.jpg")

        let third = try indexer.scan(source)
        #expect(third.moved == 1, "\(third)")
        #expect(third.changed == 1, "\(third)")
        #expect(third.removed == 1, "\(third)")
        #expect(third.added == 0, "\(third)")
        try MomentEngine(store: store).refresh(touching: third.touched)
        let after = try store.items()
        let movedNow = try #require(after.first { $0.id == moved.id })
        #expect(movedNow.media.first?.relativePath == root + "/sorted/lisbon-2.jpg")
        #expect(movedNow.media.first?.filename == "lisbon-2.jpg")
        let changedNow = try #require(after.first { $0.id == changed.id })
        #expect(changedNow.media.first?.pixelWidth == 120)
        #expect(changedNow.startMs == 1_714_813_200_000 + 65 * 60_000)
        #expect(!after.contains { $0.id == deleted.id })
        #expect(try store.suggestions().allSatisfy { !$0.itemIDs.contains(deleted.id) }, "a deleted file leaves every suggestion")

        // Only some folders (as the watcher asks): the rest is not looked at, nor taken for gone.
        try FileManager.default.removeItem(atPath: root + "/scans/grandma.jpg")
        let partial = try indexer.scan(source, folders: [ScanFolder(path: root + "/sorted", recursive: false)])
        #expect(partial.removed == 0)
        #expect(partial.unchanged == 1)
        let scans = try indexer.scan(source, folders: [ScanFolder(path: root + "/scans", recursive: false)])
        #expect(scans.removed == 1)
    }

    @Test("a still and its clip pair across scans: the clip indexed alone first becomes part of the Live Photo")
    func livePhotoAcrossScans() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/DCIM"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try MediaFixtures.clip(at: root + "/IMG_0042.MOV", seconds: 2, creationDate: "2024-05-04T12:00:00+0100")
        let source = try store.addSource(path: root, timeMs: 0)
        let indexer = SourceIndexer(store: store)
        _ = try indexer.scan(source)
        #expect(try store.items().map(\.kind) == [.video])

        try MediaFixtures.heic(at: root + "/IMG_0042.HEIC", exif: Self.lisbon("12:00"))
        let second = try indexer.scan(source)
        #expect(second.livePhotos == 1)
        let items = try store.items()
        #expect(items.map(\.kind) == [.livePhoto], "the clip's own item is gone; one Live Photo")
        #expect(Set(try store.sourceFiles(ofItem: items[0].id).map(\.role)) == ["livePhotoImage", "livePhotoVideo"])

        // The still goes: the clip stays, on its own again.
        try FileManager.default.removeItem(atPath: root + "/IMG_0042.HEIC")
        _ = try indexer.scan(source)
        #expect(try store.items().map(\.kind) == [.video])
    }

    @Test("Apple's keys: a still and a clip with the same content identifier pair whatever their names; a burst's frames after the first are marked")
    func appleKeys() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Export"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try MediaFixtures.heic(at: root + "/still-from-phone.heic", exif: Self.lisbon("12:00"))
        try MediaFixtures.writeAppleMakerNote(to: root + "/still-from-phone.heic", contentIdentifier: "6F1A2B3C-LIVE", burstIdentifier: nil)
        try MediaFixtures.clip(at: root + "/motion-part.mov", seconds: 2, creationDate: "2024-05-04T12:00:00+0100", contentIdentifier: "6F1A2B3C-LIVE")
        // A burst shot far apart in time (Apple's key decides, not the clock).
        for (frame, time) in ["14:00", "14:05", "14:10"].enumerated() {
            try MediaFixtures.jpeg(at: "\(root)/burst-\(frame).jpg", seed: frame, exif: Self.lisbon(time))
            try MediaFixtures.writeAppleMakerNote(to: "\(root)/burst-\(frame).jpg", contentIdentifier: nil, burstIdentifier: "B-URST-1")
        }
        let report = try SourceIndexer(store: store).scan(try store.addSource(path: root, timeMs: 0))
        #expect(report.livePhotos == 1)
        let items = try store.items()
        let live = try #require(items.first { $0.kind == .livePhoto })
        #expect(live.media.map(\.filename) == ["still-from-phone.heic", "motion-part.mov"])
        let burst = items.filter { $0.media.first?.filename.hasPrefix("burst-") == true }.sorted { $0.startMs < $1.startMs }
        #expect(burst.map(\.notAMemory) == [nil, .burst, .burst])
    }

    @Test("a workout file in a watched folder (a watch's FIT, a GPX) is a Workout item that follows the file")
    func workoutFiles() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Sync"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
        try FileManager.default.copyItem(atPath: fixtures + "/run_riverside_park.fit", toPath: root + "/2024-05-04.fit")
        try FileManager.default.copyItem(atPath: fixtures + "/ride_hudson_greenway.fit.gz", toPath: root + "/ride.fit.gz")
        let source = try store.addSource(path: root, timeMs: 0)
        let indexer = SourceIndexer(store: store)
        let report = try indexer.scan(source)
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        let workouts = try store.items().filter { $0.kind == .workout }
        #expect(workouts.count == 2)
        #expect(Set(try store.sourceFiles(of: source.id).values.map(\.role)) == ["workout"])
        try FileManager.default.removeItem(atPath: root + "/ride.fit.gz")
        _ = try indexer.scan(source)
        #expect(try store.items().filter { $0.kind == .workout }.count == 1)
    }

    @Test("a preview is made once, made again in place when its file changes, and kept only in the data directory")
    func previews() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: root + "/a.jpg", width: 640, height: 480, exif: Self.lisbon("10:00"))
        let indexer = SourceIndexer(store: store)
        let source = try store.addSource(path: root, timeMs: 0)
        _ = try indexer.scan(source)
        let cache = ThumbnailCache(dataDirectory: store.dataDirectory)
        let item = try #require(try store.items().first)
        let first = try cache.preview(of: item.media[0], itemID: item.id, slot: 0)
        #expect(first.path.hasPrefix(store.dataDirectory + "/thumbnails/"))
        #expect(try cache.preview(of: item.media[0], itemID: item.id, slot: 0) == first, "made once")
        try MediaFixtures.jpeg(at: root + "/a.jpg", width: 320, height: 320, seed: 5, exif: Self.lisbon("10:00"))
        _ = try indexer.scan(source)
        let changed = try #require(try store.items().first)
        let second = try cache.preview(of: changed.media[0], itemID: changed.id, slot: 0)
        #expect(second.path == first.path, "made again in place")
        #expect(second.byteCount != first.byteCount, "made again in place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directory).count == 1, "no preview of an older version is left")
        let mode = (try FileManager.default.attributesOfItem(atPath: cache.directory)[.posixPermissions] as? Int) ?? 0
        #expect(mode & 0o077 == 0, "the previews' folder is the person's only: \(String(mode, radix: 8))")
    }

    @Test("a file is released only while it is the one indexed: not edited, not swapped for another with its size and mtime")
    func releaseCheck() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: root + "/a.jpg", exif: Self.lisbon("10:00"))
        _ = try SourceIndexer(store: store).scan(try store.addSource(path: root, timeMs: 0))
        let media = try #require(try store.items().first?.media.first)
        func check() throws -> String? {
            guard let fd = PersonsFile.open(root + "/a.jpg") else { return PersonsFile.missing(media) }
            defer { close(fd) }
            return PersonsFile.unavailability(of: media, record: try store.sourceFiles(paths: [root + "/a.jpg"]).first, descriptor: fd)
        }
        #expect(try check() == nil)
        let original = try FileManager.default.attributesOfItem(atPath: root + "/a.jpg")
        let size = (original[.size] as? Int) ?? 0
        /// The photo's mtime to the nanosecond (touch -r), as an attacker would set it.
        func sameTimes(_ path: String) throws { #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/touch"), ["-h", "-r", root + "/a.jpg", path]).status == 0) }

        // Swapped (an atomic rename) for another file, or for a link to one outside every source,
        // each given the same size and mtime: not the file indexed.
        let outside = temporary.directory + "/secret.txt"
        for link in [false, true] {
            try Data(repeating: 0x41, count: size).write(to: URL(fileURLWithPath: outside))
            try sameTimes(outside)
            let swapped = root + "/.swap"
            if link {
                try FileManager.default.createSymbolicLink(atPath: swapped, withDestinationPath: outside)
            } else {
                try FileManager.default.copyItem(atPath: outside, toPath: swapped)
                try sameTimes(swapped)
            }
            let kept = root + "/.kept"
            if !link { try FileManager.default.moveItem(atPath: root + "/a.jpg", toPath: kept) }
            #expect(rename(swapped, root + "/a.jpg") == 0)
            #expect(try check() == "a.jpg changed since pickerd indexed it", "swapped for a \(link ? "link" : "file")")
            if !link { try FileManager.default.removeItem(atPath: root + "/a.jpg"); try FileManager.default.moveItem(atPath: kept, toPath: root + "/a.jpg") }
        }
        // A rescan reads the swapped-in file again (its inode is another): it is not a photo.
        _ = try SourceIndexer(store: store).scan(try #require(try store.sources().first))
        #expect(try store.items().isEmpty, "the swapped-in file is not kept as the photo it replaced")

        try FileManager.default.removeItem(atPath: root + "/a.jpg")
        try MediaFixtures.jpeg(at: root + "/a.jpg", exif: Self.lisbon("10:00"))
        _ = try SourceIndexer(store: store).scan(try #require(try store.sources().first))
        let again = try #require(try store.items().first?.media.first)
        #expect(try { () throws -> String? in
            guard let fd = PersonsFile.open(root + "/a.jpg") else { return "missing" }
            defer { close(fd) }
            return PersonsFile.unavailability(of: again, record: try store.sourceFiles(paths: [root + "/a.jpg"]).first, descriptor: fd)
        }() == nil)
        try MediaFixtures.writeExif(.init(model: "Edited"), to: root + "/a.jpg")
        #expect(try check() == "a.jpg changed since pickerd indexed it")
        try FileManager.default.removeItem(atPath: root + "/a.jpg")
        #expect(try check() == "a.jpg is no longer there")
    }

    @Test("XDG's Pictures and Videos folders are read from user-dirs.dirs")
    func userDirs() throws {
        let home = try TemporaryDirectory(prefix: "pkd-home")
        for folder in ["Bilder", "Videos", ".config"] {
            try FileManager.default.createDirectory(atPath: home.path + "/" + folder, withIntermediateDirectories: true)
        }
        try """
            # written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_PICTURES_DIR="$HOME/Bilder"
            XDG_VIDEOS_DIR="\(home.path)/Videos"
            XDG_MUSIC_DIR="$HOME/Musik"
            """.write(toFile: home.path + "/.config/user-dirs.dirs", atomically: true, encoding: .utf8)
        #expect(UserDirs.mediaFolders(environment: ["HOME": home.path]) == [home.path + "/Bilder", home.path + "/Videos"])
        #expect(UserDirs.mediaFolders(environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/nowhere"]).isEmpty)
    }
}
