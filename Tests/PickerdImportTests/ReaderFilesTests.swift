import Foundation
import Glibc
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Synchronization
import Testing

/// Every reader reaches files through ``ReaderFiles`` alone, so that it can run where it may open
/// nothing (pickerd-reader): an opener installed for a test folder records each path asked and
/// grants only those named; what a reader reads beyond them it must not reach, and nothing writes a
/// file (no temporary folder, no SQLite journal beside a database).
@Suite("Readers reach files only through ReaderFiles", .serialized)
struct ReaderFilesTests {
    static let fixtures = AppleHealthTests.fixtures

    /// The paths asked of the opener under a folder.
    final class Asked: Sendable {
        let paths = Mutex<[String]>([])
        var all: [String] { paths.withLock { $0 } }
    }

    /// Paths asked anywhere in a temporary folder of pickerd's: a reader reading what it wrote.
    static let temporaryReads = Mutex<[String]>([])

    /// Runs `body` with an opener that, under `folder`, records every path asked and opens only
    /// those in `granted` (the rest: `EACCES`); any other path (another suite's, running at the
    /// same time) goes to the default opener. The default is back after.
    static func reading<T>(in folder: String, granted: Set<String>, _ body: () throws -> T) rethrows -> (T, asked: [String]) {
        let asked = Asked()
        let prefix = folder + "/"
        temporaryReads.withLock { $0 = [] }
        ReaderFiles.install { path in
            guard path.hasPrefix(prefix) else {
                if path.contains("/pickerd-import.") || path.contains("/pickerd-gadgetbridge.") { temporaryReads.withLock { $0.append(path) } }
                return ReaderFiles.defaultOpen(path)
            }
            asked.paths.withLock { $0.append(String(path.dropFirst(prefix.count))) }
            guard granted.contains(String(path.dropFirst(prefix.count))) else {
                errno = EACCES
                return nil
            }
            return ReaderFiles.defaultOpen(path)
        }
        defer {
            ReaderFiles.install(opener: ReaderFiles.defaultOpen)
            #expect(temporaryReads.withLock { $0 }.isEmpty, "a reader read what it wrote in a temporary folder")
        }
        return (try body(), asked.all)
    }

    /// Every file and folder under `folder`, and pickerd's temporary folders (the importer's old
    /// `pickerd-import.*`, Gadgetbridge's `pickerd-gadgetbridge.*`): what a reader could have written.
    static func written(in folder: String) -> Set<String> {
        let inFolder = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        let temporary = ((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
            .filter { $0.hasPrefix("pickerd-import.") || $0.hasPrefix("pickerd-gadgetbridge.") }
        return Set(inFolder + temporary.map { "tmp:" + $0 })
    }

    /// Copies fixtures into a fresh folder: the opener's folder.
    static func folder(with fixtures: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "pkdrf")
        for name in fixtures {
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: directory.path + "/" + name)
        }
        return directory
    }

    @Test("a photo's probe asks for the photo and nothing else; refused, it is unreadable with the opener's reason")
    func photo() throws {
        let directory = try TemporaryDirectory(prefix: "pkdrf")
        try MediaFixtures.jpeg(at: directory.path + "/a.jpg", exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00"))
        let before = Self.written(in: directory.path)
        let (media, asked) = try Self.reading(in: directory.path, granted: ["a.jpg"]) {
            try MediaProbe.probe(path: directory.path + "/a.jpg")
        }
        #expect(asked == ["a.jpg"])
        #expect(media.takenAtMs == 1_714_810_272_000)
        let (refused, again) = Self.reading(in: directory.path, granted: []) {
            Result { () throws(ProbeError) in try MediaProbe.probe(path: directory.path + "/a.jpg") }
        }
        #expect(again == ["a.jpg"])
        guard case .failure(let error) = refused else { Issue.record("a refused photo was read"); return }
        #expect(error.kind == .unreadable)
        #expect(error.message == "cannot open it: Permission denied")
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a video's probe and its preview ask for the video only: FFmpeg reads the descriptor")
    func video() throws {
        let directory = try TemporaryDirectory(prefix: "pkdrf")
        try MediaFixtures.clip(at: directory.path + "/clip.mov", seconds: 1, creationDate: "2024-05-04T10:11:13+0200")
        let before = Self.written(in: directory.path)
        let ((media, png), asked) = try Self.reading(in: directory.path, granted: ["clip.mov"]) {
            let media = try MediaProbe.probe(path: directory.path + "/clip.mov")
            return (media, try Thumbnailer.png(path: directory.path + "/clip.mov", contentType: media.contentType, maxSide: 32))
        }
        #expect(asked == ["clip.mov", "clip.mov"])
        #expect(media.kind == .video)
        #expect(media.pixelWidth == 64)
        #expect(media.takenAtMs == 1_714_810_273_000)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a HEIC's probe and preview ask for the HEIC only: libheif reads the descriptor")
    func heic() throws {
        let directory = try TemporaryDirectory(prefix: "pkdrf")
        try MediaFixtures.heic(at: directory.path + "/IMG_0002.HEIC", width: 96, height: 64, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12"))
        let before = Self.written(in: directory.path)
        let ((media, png), asked) = try Self.reading(in: directory.path, granted: ["IMG_0002.HEIC"]) {
            let media = try MediaProbe.probe(path: directory.path + "/IMG_0002.HEIC")
            return (media, try Thumbnailer.png(path: directory.path + "/IMG_0002.HEIC", contentType: media.contentType, maxSide: 48))
        }
        #expect(asked == ["IMG_0002.HEIC", "IMG_0002.HEIC"])
        #expect(media.contentType == "image/heic")
        #expect(media.pixelWidth == 96)
        #expect(media.pixelHeight == 64)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // Refused, libheif is never handed anything.
        let (refused, _) = Self.reading(in: directory.path, granted: []) {
            Result { () throws(ProbeError) in try Thumbnailer.png(path: directory.path + "/IMG_0002.HEIC", contentType: "image/heic") }
        }
        guard case .failure(let error) = refused else { Issue.record("a refused HEIC was decoded"); return }
        #expect(error.kind == .unreadable)
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a GPX import asks for the GPX only")
    func gpx() throws {
        let directory = try Self.folder(with: ["strava_same_run.gpx"])
        let temporary = try TemporaryStore()
        let before = Self.written(in: directory.path)
        let (results, asked) = Self.reading(in: directory.path, granted: ["strava_same_run.gpx"]) {
            ExportImporter(store: temporary.store).run([directory.path + "/strava_same_run.gpx"]) { _, _, _, _ in }
        }
        #expect(Set(asked) == ["strava_same_run.gpx"])
        #expect(results.map(\.error) == [nil])
        #expect(results.first?.workouts == 1)
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a zip of exports asks for the zip alone: its members, the export and its route, are read from memory")
    func zip() throws {
        let directory = try Self.folder(with: ["apple_health_export.zip", "ride_hudson_greenway.fit.gz", "strava_same_run.gpx"])
        // A Strava-like archive too: activities.csv naming a FIT file beside it, in a zip of its own.
        let strava = try TemporaryDirectory(prefix: "pkdzs")
        try FileManager.default.createDirectory(atPath: strava.path + "/activities", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/run_riverside_park.fit", toPath: strava.path + "/activities/1.fit")
        try "Activity ID,Activity Name,Filename\n1,Tuesday by the river,activities/1.fit\n".write(toFile: strava.path + "/activities.csv", atomically: true, encoding: .utf8)
        try MediaFixtures.run("sh", ["-c", "cd '\(strava.path)' && zip -q -r '\(directory.path)/strava.zip' activities.csv activities"])
        let temporary = try TemporaryStore()
        let before = Self.written(in: directory.path)
        let (results, asked) = Self.reading(in: directory.path, granted: ["apple_health_export.zip", "strava.zip"]) {
            ExportImporter(store: temporary.store).run([directory.path + "/apple_health_export.zip", directory.path + "/strava.zip"]) { _, _, _, _ in }
        }
        #expect(Set(asked) == ["apple_health_export.zip", "strava.zip"])
        let health = try #require(results.first { $0.kind == "apple-health" })
        #expect(health.error == nil)
        #expect(health.workouts == 4)
        #expect(health.file == directory.path + "/apple_health_export.zip/apple_health_export/export.xml")
        let run = try #require(AppleHealthTests.workouts(temporary.store).first { $0.workout.details?.activityType == 37 && $0.workout.route.count == 66 })
        #expect(run.workout.details?.distance?.value == 5120)
        let fit = try #require(results.first { $0.kind == "fit" })
        #expect(fit.file == directory.path + "/strava.zip/activities/1.fit")
        #expect(fit.error == nil)
        #expect(try AppleHealthTests.workouts(temporary.store).contains { $0.workout.details?.localizedName == "Tuesday by the river" })
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("an Apple Health folder asks for export.xml and the routes it names; a route refused is not found, and nothing else is tried")
    func appleHealthFolder() throws {
        let directory = try Self.folder(with: ["apple_health_export"])
        let route = "apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx"
        let before = Self.written(in: directory.path)
        let (data, asked) = try Self.reading(in: directory.path, granted: ["apple_health_export/export.xml", route]) {
            try AppleHealthExport.read(path: directory.path + "/apple_health_export/export.xml", name: "export.xml")
        }
        #expect(Set(asked) == ["apple_health_export/export.xml", route])
        #expect(data.workouts.contains { $0.route.count == 66 })
        #expect(data.leftOut.isEmpty)
        let (refused, again) = try Self.reading(in: directory.path, granted: ["apple_health_export/export.xml"]) {
            try AppleHealthExport.read(path: directory.path + "/apple_health_export/export.xml", name: "export.xml")
        }
        #expect(Set(again) == ["apple_health_export/export.xml", route])
        #expect(refused.workouts.allSatisfy { $0.route.isEmpty })
        #expect(refused.leftOut["workout routes not found in the export"] == 1)
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a Gadgetbridge database is read from memory: no journal beside it, no copy in a temporary folder; its track only if granted")
    func gadgetbridge() throws {
        let directory = try Self.folder(with: ["gadgetbridge"])
        let track = "gadgetbridge/gadgetbridge-track-2024-05-06T06_30_00+00_00.gpx"
        // In WAL mode, as Android leaves it: SQLite opened on the file would write -wal and -shm beside it.
        let database = directory.path + "/gadgetbridge/Gadgetbridge"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: database))
        try handle.seek(toOffset: 18)
        try handle.write(contentsOf: Data([2, 2]))
        try handle.close()
        let before = Self.written(in: directory.path)
        let (data, asked) = try Self.reading(in: directory.path, granted: ["gadgetbridge/Gadgetbridge", track]) {
            try GadgetbridgeExport.read(path: database, name: "Gadgetbridge")
        }
        // The database, then each track it names, beside it and in files/ (one is in neither).
        let missing = "gadgetbridge-track-2024-05-08T09_00_00+00_00.gpx"
        #expect(Set(asked) == ["gadgetbridge/Gadgetbridge", track, "gadgetbridge/" + missing, "gadgetbridge/files/" + missing])
        #expect(data.workouts.count == 4)
        #expect(data.workouts.first?.route.count == 60)
        #expect(data.leftOut["workout tracks not found beside the database"] == 1)
        let (refused, _) = try Self.reading(in: directory.path, granted: ["gadgetbridge/Gadgetbridge"]) {
            try GadgetbridgeExport.read(path: database, name: "Gadgetbridge")
        }
        #expect(refused.workouts.first?.route.isEmpty == true)
        #expect(refused.leftOut["workout tracks not found beside the database"] == 2)
        #expect(Self.written(in: directory.path) == before)
    }

    @Test("a calendar's TZIDs that libical would look up as zoneinfo files (an alias, a slash-prefixed zone, libical's own prefix) are still read, and the calendar is the only file asked")
    func calendarZonesNeedNoFiles() throws {
        let directory = try TemporaryDirectory(prefix: "pkdrf")
        let event = { (uid: String, tzid: String) in
            "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTART;TZID=\(tzid):20240504T100000\r\nDTEND;TZID=\(tzid):20240504T110000\r\nSUMMARY:\(uid)\r\nEND:VEVENT\r\n"
        }
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + event("alias", "US/Eastern") + event("slash", "/Europe/Stockholm")
            + event("libical", "/freeassociation.sourceforge.net/Tzfile/Europe/London") + event("plain", "Europe/Lisbon") + "END:VCALENDAR\r\n"
        try text.write(toFile: directory.path + "/zones.ics", atomically: true, encoding: .utf8)
        let (data, asked) = try Self.reading(in: directory.path, granted: ["zones.ics"]) {
            try CalendarReader.read(path: directory.path + "/zones.ics", name: "zones.ics", horizon: 0...4_102_444_800_000)
        }
        #expect(asked == ["zones.ics"])
        let starts = Dictionary(uniqueKeysWithValues: data.events.map { ($0.uid, $0.occurrences.first?.startMs) })
        #expect(starts["alias"] == 1_714_831_200_000)  // 10:00 EDT = 14:00Z
        #expect(starts["slash"] == 1_714_809_600_000)  // 10:00 CEST = 08:00Z
        #expect(starts["libical"] == 1_714_813_200_000)  // 10:00 BST = 09:00Z
        #expect(starts["plain"] == 1_714_813_200_000)  // 10:00 WEST = 09:00Z
        #expect(data.leftOut.isEmpty, "\(data.leftOut)")
    }

    @Test("an overlay's files are seen under their paths while it lasts, newest first, each open from its start")
    func overlay() throws {
        let outer = try #require(ReaderFiles.memoryFile("outer", Array("outer".utf8)))
        let inner = try #require(ReaderFiles.memoryFile("inner", Array("inner".utf8)))
        defer { close(outer); close(inner) }
        #expect(!ReaderFiles.exists("/nowhere.zip/a"))
        ReaderFiles.withOverlay(["/nowhere.zip/a": outer, "/nowhere.zip/b": outer]) {
            #expect(ReaderFiles.contents("/nowhere.zip/a", limit: 100) == Array("outer".utf8))
            #expect(ReaderFiles.contents("/nowhere.zip/a", limit: 3) == nil)
            ReaderFiles.withOverlay(["/nowhere.zip/a": inner]) {
                #expect(ReaderFiles.contents("/nowhere.zip/a", limit: 100) == Array("inner".utf8))
                #expect(ReaderFiles.exists("/nowhere.zip/b"))
            }
            #expect(ReaderFiles.contents("/nowhere.zip/a", limit: 100) == Array("outer".utf8))
        }
        #expect(!ReaderFiles.exists("/nowhere.zip/a"))
        // Sealed: a reader cannot change what it was given.
        #expect(write(outer, "x", 1) == -1)
    }
}
