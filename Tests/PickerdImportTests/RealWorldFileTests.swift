import Foundation
import Glibc
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdWire
import PickerdTestKit
import Testing

/// What real devices and apps write (issue 29, and two files the labelled-life benchmark found): each
/// way a real file was misread, refused or hung pickerd, as the file has it. Media are made with the
/// real tools (ImageMagick, exiftool, FFmpeg) and read back with exiftool where it reads the same.
@Suite("What real devices and apps write") struct RealWorldFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let utc = TimeZone(identifier: "UTC")!
    static let now = LocationHistory.milliseconds(iso: "2026-06-01T00:00:00Z")!
    static var horizon: ClosedRange<Int64> { CalendarReader.horizon(library: nil, now: now) }

    static func ms(_ iso: String) -> Int64 { LocationHistory.milliseconds(iso: iso)! }

    static func calendar(_ events: String) -> [UInt8] {
        Array(("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + events + "END:VCALENDAR\r\n").utf8)
    }

    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// exiftool's reading of one tag, numeric (`-n`).
    static func exiftool(_ tag: String, _ path: String) throws -> String {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["exiftool", "-s3", "-n", "-" + tag, path])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: 1. Bounds

    @Test("1: a DURATION of 10^18 weeks leaves that event out at once, and the vCard imported after it is imported")
    func durationOverflow() throws {
        let temporary = try TemporaryStore()
        let ics = temporary.directory + "/overflow.ics"
        // The 11 lines as reported.
        try Self.write("""
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//fuzz//EN\r
            BEGIN:VEVENT\r
            UID:overflow@example.com\r
            DTSTAMP:20240101T000000Z\r
            DTSTART:20240504T180000Z\r
            DURATION:P999999999999999999W\r
            SUMMARY:Forever\r
            END:VEVENT\r
            END:VCALENDAR\r

            """, to: ics)
        let vcf = temporary.directory + "/two.vcf"
        try Self.write("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Maya Lee\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nFN:Sam Okafor\r\nEND:VCARD\r\n", to: vcf)
        let results = ExportImporter(store: temporary.store).run([ics, vcf]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["ics", "vcard"])
        #expect(results[0].error == nil)
        #expect(results[0].counts == ["events left out (the event at line 4: line 8: DURATION \"P999999999999999999W\" is longer than a century)": 1])
        #expect(results[1].counts["contacts"] == 2)
    }

    @Test("1: a daily rule that matches once in decades is stepped through within its bounds; one by the second, or one libical cannot expand, costs its event only")
    func recurrenceBound() throws {
        let read = try CalendarReader.events(Self.calendar("""
            BEGIN:VEVENT\r
            UID:rare\r
            DTSTART:20240530T100000Z\r
            RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:secondly\r
            DTSTART:20240530T100000Z\r
            RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:impossible\r
            DTSTART:20240530T100000Z\r
            RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:fine\r
            DTSTART:20240504T180000Z\r
            END:VEVENT\r

            """), file: "rare.ics", horizon: Self.horizon, timeZone: Self.utc)
        #expect(read.events.map(\.uid) == ["rare", "fine"])
        #expect(read.events[0].occurrences.first?.startMs == Self.ms("2024-05-30T10:00:00Z"), "DTSTART is the first occurrence, whatever the rule")
        #expect(read.skipped.map { "\($0.line): \($0.reason)" } == [
            "9: line 12: RRULE \"FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO\" repeats by the second or minute, which is not expanded",
            "14: its recurrence rule cannot be expanded",
        ])
    }

    // MARK: 2. TIFF directories past the first 64 KB

    @Test("2: a TIFF whose directories lie after 90 KB of pixels (as a DNG's EXIF lies after its preview) is read, dated as exiftool reads it")
    func tiffDirectoryLate() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-tiff")
        let path = folder.path + "/late.tif"
        // A 300×300 grey TIFF laid out as cameras do: header, pixels, then IFD0 and its EXIF IFD.
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value + Array(repeating: 0, count: 4 - value.count)
        }
        let pixels = (0..<90_000).map { UInt8($0 % 251) }
        let ifd0 = 8 + pixels.count
        let ifd0Size = 2 + 10 * 12 + 4
        let exifIFD = ifd0 + ifd0Size
        let exifSize = 2 + 1 * 12 + 4
        let date = exifIFD + exifSize
        var file = Array("II".utf8) + le16(42) + le32(ifd0) + pixels
        file += le16(10)
        file += entry(256, 3, 1, le16(300)) + entry(257, 3, 1, le16(300)) + entry(258, 3, 1, le16(8)) + entry(259, 3, 1, le16(1))
        file += entry(262, 3, 1, le16(1)) + entry(273, 4, 1, le32(8)) + entry(277, 3, 1, le16(1)) + entry(278, 3, 1, le16(300))
        file += entry(279, 4, 1, le32(pixels.count)) + entry(0x8769, 4, 1, le32(exifIFD)) + le32(0)
        file += le16(1) + entry(0x9003, 2, 20, le32(date)) + le32(0)
        file += Array("2019:07:14 09:30:00\0".utf8)
        try Data(file).write(to: URL(fileURLWithPath: path))
        #expect(try Self.exiftool("DateTimeOriginal", path) == "2019:07:14 09:30:00")
        let media = try MediaProbe.probe(path: path, timeZone: Self.utc)
        #expect(media.takenAtMs == Self.ms("2019-07-14T09:30:00Z"))
        #expect(media.pixelWidth == 300)
        #expect(media.pixelHeight == 300)
    }

    // MARK: 3. GPS as signed rationals

    @Test("3: GPS written as SRATIONAL (as a Nokia 8.3 writes it) is read, as exiftool reads it")
    func signedRationalGPS() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-gps")
        let path = folder.path + "/nokia.jpg"
        try MediaFixtures.jpeg(at: path, exif: .init(dateTimeOriginal: "2021:08:01 12:00:00", latitude: 60.1699, longitude: 24.9384,
                                                    make: "HMD Global", model: "Nokia 8.3 5G"))
        // exiftool writes RATIONAL (type 5); the phone writes SRATIONAL (type 10): GPSLatitude (2)
        // and GPSLongitude (4), three components each, in exiftool's big-endian EXIF.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var patched = 0
        for tag: UInt8 in [2, 4] {
            let entry: [UInt8] = [0, tag, 0, 5, 0, 0, 0, 3]
            guard let at = (0..<(bytes.count - 8)).first(where: { bytes[$0..<($0 + 8)].elementsEqual(entry) }) else { continue }
            bytes[at + 3] = 10
            patched += 1
        }
        try #require(patched == 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reference = try Self.exiftool("GPSLatitude", path)
        #expect(abs((Double(reference) ?? 0) - 60.1699) < 1e-4, "exiftool reads \(reference)")
        let media = try MediaProbe.probe(path: path, timeZone: Self.utc)
        let place = try #require(media.coordinate)
        #expect(abs(place.latitude - 60.1699) < 1e-4)
        #expect(abs(place.longitude - 24.9384) < 1e-4)
    }

    // MARK: 4. Live Photos

    @Test("4: a clip pairs only with a still it agrees with, and once: a 2015 still of the same name stays a photo of its own")
    func livePhotosAgree() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Phone"
        for folder in ["old", "new"] { try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true) }
        // The same stem twice in one folder (a .jpg from 2015 with GPS, a .HEIC from 2020) and a 2020 clip.
        try MediaFixtures.jpeg(at: root + "/new/IMG_0042.jpg", exif: .init(dateTimeOriginal: "2015:06:01 10:00:00", offsetTimeOriginal: "+00:00",
                                                                           latitude: 51.5, longitude: -0.12, make: "Apple", model: "iPhone 6"))
        try MediaFixtures.heic(at: root + "/new/IMG_0042.HEIC", exif: .init(dateTimeOriginal: "2020:03:01 10:00:00", offsetTimeOriginal: "+00:00",
                                                                            make: "Apple", model: "iPhone 11"))
        try MediaFixtures.clip(at: root + "/new/IMG_0042.MOV", seconds: 2, creationDate: "2020-03-01T10:00:01+0000")
        // A clip whose only still of its name is five years older: no pair. (Another picture than
        // new/IMG_0042.jpg's: the same bytes would be one photo, a copy.)
        try MediaFixtures.jpeg(at: root + "/old/IMG_0007.jpg", seed: 1, exif: .init(dateTimeOriginal: "2015:06:01 10:00:00", offsetTimeOriginal: "+00:00",
                                                                           latitude: 51.5, longitude: -0.12, make: "Apple", model: "iPhone 6"))
        try MediaFixtures.clip(at: root + "/old/IMG_0007.MOV", seconds: 2, creationDate: "2020-03-01T10:00:01+0000")
        let report = try SourceIndexer(store: store, timeZone: Self.utc).scan(try store.addSource(path: root, timeMs: 0))
        #expect(report.livePhotos == 1)
        let items = try store.items()
        let live = try #require(items.first { $0.kind == .livePhoto })
        #expect(live.startMs == Self.ms("2020-03-01T10:00:00Z"))
        #expect(live.coordinate == nil)
        let photos = items.filter { $0.kind == .photo }
        #expect(photos.count == 2)
        #expect(photos.allSatisfy { $0.startMs == Self.ms("2015-06-01T10:00:00Z") && $0.coordinate != nil })
        #expect(items.filter { $0.kind == .video }.count == 1, "the 2020 clip of old/ stays a video")
    }

    // MARK: 5. FIT relative times

    @Test("5: a session start_time below 0x10000000 is a relative time: the session is dated by the file's own timestamps")
    func fitRelativeStart() throws {
        var fit = WorkoutFileTests.FITBuilder()
        fit.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        fit.data(local: 0, [4])
        let start = WorkoutFileTests.fitStart
        fit.define(local: 1, global: 20, fields: [(253, 4, 0x86), (3, 1, 0x02)])
        for second in stride(from: UInt32(0), through: 600, by: 60) { fit.data(local: 1, WorkoutFileTests.le32(start + second) + [130]) }
        // session: timestamp (its end), start_time 1200 s after power-on, running, 600 s elapsed.
        fit.define(local: 2, global: 18, fields: [(253, 4, 0x86), (2, 4, 0x86), (5, 1, 0x00), (7, 4, 0x86)])
        fit.data(local: 2, WorkoutFileTests.le32(start + 600) + WorkoutFileTests.le32(1_200) + [1] + WorkoutFileTests.le32(600_000))
        let run = try #require(try FITReader.read(fit.file(), file: "relative.fit").workouts.first)
        #expect(run.startMs == (Int64(start) + FITReader.epochOffsetSeconds) * 1000)
        #expect(run.endMs == run.startMs + 600_000)
    }

    @Test("5: a session with no start_time, timestamp or timed record (Garmin's SDK test file of developer data) is refused, not dated 31 Dec 1989")
    func fitUndatedSession() throws {
        var fit = WorkoutFileTests.FITBuilder()
        fit.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        fit.data(local: 0, [4])
        // session: its sport only.
        fit.define(local: 1, global: 18, fields: [(5, 1, 0x00)])
        fit.data(local: 1, [1])
        do {
            _ = try FITReader.read(fit.file(), file: "undated.fit")
            Issue.record("a session without any date was imported")
        } catch {
            #expect(error.message.contains("no date"))
        }
    }

    // MARK: 6. MP4 brands

    @Test("6: an MP4 of major brand mp4v and a 3GP are videos", arguments: [("brand.mp4", ["-brand", "mp4v"]), ("phone.3gp", ["-f", "3gp"])])
    func mp4Brands(name: String, options: [String]) throws {
        let folder = try TemporaryDirectory(prefix: "pkd-brand")
        let path = folder.path + "/" + name
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=176x144:rate=10",
                                         "-c:v", name.hasSuffix(".3gp") ? "h263" : "mpeg4"] + options + [path])
        let major = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path))[8..<12], as: UTF8.self)
        #expect(name.hasSuffix(".3gp") ? major.hasPrefix("3g") : major == "mp4v", "major brand \(major)")
        let media = try MediaProbe.probe(path: path, timeZone: Self.utc)
        #expect(media.kind == .video)
        #expect(media.pixelWidth == 176)
        #expect(MediaFormat(head: [0, 0, 0, 24] + Array("ftypXXXX".utf8) + [0, 0, 0, 0] + Array("mp42isom".utf8)) == .mp4,
                "an unknown major brand with MP4 compatible brands")
    }

    // MARK: 7. Import order

    @Test("7: a 1997 weekly series imports its occurrences into an empty store, the same as into a library of 1997")
    func importOrder() throws {
        let text = Self.calendar("BEGIN:VEVENT\r\nUID:choir\r\nDTSTART:19970902T090000Z\r\nRRULE:FREQ=WEEKLY;COUNT=10\r\nSUMMARY:Choir\r\nEND:VEVENT\r\n")
        let empty = try CalendarReader.read(text, file: "choir.ics", horizon: Self.horizon, timeZone: Self.utc)
        let old = try CalendarReader.read(text, file: "choir.ics", horizon: CalendarReader.horizon(
            library: Self.ms("1997-01-01T00:00:00Z")...Self.ms("1998-01-01T00:00:00Z"), now: Self.now), timeZone: Self.utc)
        #expect(empty[0].occurrences.count == 10)
        #expect(empty == old)

        let temporary = try TemporaryStore()
        let path = temporary.directory + "/choir.ics"
        try Data(text).write(to: URL(fileURLWithPath: path))
        let result = try #require(ExportImporter(store: temporary.store).run([path]) { _, _, _, _ in }.first)
        #expect(result.counts == ["events": 1, "occurrences": 10])
        #expect(try temporary.store.eventCount() == 10)
    }

    @Test("7: a series that ended just before the horizon, its last occurrences within the day's slack either side of it, is read from its own start (vobject's recurrence.ics)")
    func seriesEndingAtTheHorizon() throws {
        // The horizon begins 2006-06-01T00:00Z (20 years before now); the series' last two days fall in the slack before it.
        #expect(Self.horizon.lowerBound == Self.ms("2006-06-01T00:00:00Z"))
        let text = Self.calendar("BEGIN:VEVENT\r\nUID:daily\r\nDTSTART:20060501T120000Z\r\nRRULE:FREQ=DAILY;COUNT=31\r\nSUMMARY:May\r\nEND:VEVENT\r\n")
        let events = try CalendarReader.read(text, file: "may.ics", horizon: Self.horizon, timeZone: Self.utc)
        #expect(events.first?.occurrences.count == 31)
    }

    @Test("7: a calendar with no event names what it holds instead of a bare 'nothing to import'")
    func calendarWithoutEvents() throws {
        let temporary = try TemporaryStore()
        let path = temporary.directory + "/todo.ics"
        try Data(Self.calendar("BEGIN:VTODO\r\nUID:t\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n")).write(to: URL(fileURLWithPath: path))
        let result = try #require(ExportImporter(store: temporary.store).run([path]) { _, _, _, _ in }.first)
        #expect(result.counts == ["calendar left out (no event, VEVENT, in it: it holds VTODO only)": 1])
    }

    // MARK: 8. Exports not recognised

    static let iosSegments = """
        {"endTime": "2024-05-04T12:00:00.000-04:00", "startTime": "2024-05-04T08:00:00.000-04:00",
         "visit": {"hierarchyLevel": "0", "topCandidate": {"probability": "0.80", "semanticType": "Home",
                   "placeID": "ChIJhome", "placeLocation": "geo:40.782900,-73.965400"}, "probability": "0.91"}},
        {"endTime": "2024-05-04T12:40:00.000-04:00", "startTime": "2024-05-04T12:00:00.000-04:00",
         "activity": {"probability": "0.97", "end": "geo:40.800500,-73.972500", "topCandidate": {"type": "running", "probability": "0.9"},
                      "distanceMeters": "2510.0", "start": "geo:40.782900,-73.965400"}},
        {"endTime": "2024-05-04T13:05:00.000-04:00", "startTime": "2024-05-04T12:50:00.000-04:00",
         "activity": {"probability": "0.95", "end": "geo:40.782900,-73.965400", "topCandidate": {"type": "walking", "probability": "0.9"},
                      "distanceMeters": "1120.0", "start": "geo:40.791000,-73.969000"}},
        {"endTime": "2024-05-04T14:00:00.000-04:00", "startTime": "2024-05-04T12:00:00.000-04:00",
         "timelinePath": [{"point": "geo:40.790000,-73.968000", "durationMinutesOffsetFromStartTime": "20"}]}
        """

    @Test("8: Google Maps' iOS location-history.json, array- and object-rooted, is read: a visit with its label, a run with its path, a short walk no workout")
    func iosLocationHistory() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-ios")
        let array = folder.path + "/location-history.json"
        try Self.write("[" + Self.iosSegments + "]", to: array)
        #expect(ExportKind.detect(ExportKind.prefix(ofFile: array)!, name: "location-history.json") == .mapsHistory)
        let data = try GoogleMapsLocationHistory.read(path: array, name: "location-history.json")
        #expect(data.visits.count == 1)
        #expect(data.visits.first?.semantic == "home")
        #expect(data.visits.first?.placeID == "ChIJhome")
        #expect(data.visits[0].startMs == Self.ms("2024-05-04T12:00:00Z"))
        // The 15-minute walk home is the way home, not a workout (as in Takeout's histories).
        #expect(data.workouts.count == 1)
        let run = try #require(data.workouts.first)
        #expect(run.activityType == HealthKitActivity.running)
        #expect(run.distanceMeters == 2510)
        #expect(run.route.map(\.timeMs) == [Self.ms("2024-05-04T16:00:00Z"), Self.ms("2024-05-04T16:20:00Z"), Self.ms("2024-05-04T16:40:00Z")])

        let object = folder.path + "/one.json"
        try Self.write(String(Self.iosSegments.split(separator: "\n").prefix(3).joined(separator: "\n").dropLast()), to: object)
        #expect(ExportKind.detect(ExportKind.prefix(ofFile: object)!, name: "one.json") == .mapsHistory)
        #expect(try GoogleMapsLocationHistory.read(path: object, name: "one.json").visits.count == 1)
    }

    @Test("8: Daylio's older CSV (year,date,weekday,time,mood,…) is read")
    func olderDaylio() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-daylio")
        let path = folder.path + "/daylio_export.csv"
        try Self.write("year,date,weekday,time,mood,activities,note\n2018,May 4,Friday,21:15,rad,friends | movies,\"\"\n2018,3 May,Thursday,8:05 am,meh,work,\"\"\n", to: path)
        #expect(ExportKind.detect(ExportKind.prefix(ofFile: path)!, name: "daylio_export.csv") == .daylio)
        let data = try DaylioExport.read(path: path, name: "daylio_export.csv", timeZone: Self.utc)
        #expect(data.moods.map(\.startMs) == [Self.ms("2018-05-04T21:15:00Z"), Self.ms("2018-05-03T08:05:00Z")])
        #expect(data.moods.map(\.valence) == [1, 0])
    }

    @Test("8: an OwnTracks .rec separated by spaces is read")
    func ownTracksSpaces() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-owntracks")
        let path = folder.path + "/2024-05.rec"
        try Self.write("""
            2024-05-04T10:11:12Z * {"_type":"location","tid":"ph","lat":40.78,"lon":-73.96,"tst":1714817472,"acc":12}
            2024-05-04T10:11:20Z lwt {"_type":"lwt","tst":1714817400}
            2024-05-04T10:21:12Z *                  {"_type":"location","tid":"ph","lat":40.781,"lon":-73.961,"tst":1714818072,"acc":10}

            """, to: path)
        #expect(ExportKind.detect(ExportKind.prefix(ofFile: path)!, name: "2024-05.rec") == .owntracks)
        let data = try OwnTracksRecorder.read(path: path)
        #expect(data.points.map(\.timeMs) == [1_714_817_472_000, 1_714_818_072_000])
    }

    @Test("8: a chained FIT (an activity followed by a settings file) gives the activity")
    func chainedActivityAndSettings() throws {
        var settings = WorkoutFileTests.FITBuilder()
        settings.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        settings.data(local: 0, [2])  // file type 2: settings
        let data = try FITReader.read(WorkoutFileTests.handBuiltRun() + settings.file(), file: "chained.fit")
        #expect(data.workouts.count == 1)
        #expect(data.workouts.first?.startMs == 1_714_822_230_000)
        #expect(throws: ImportError.self) { try FITReader.read(settings.file(), file: "settings.fit") }
    }

    @Test("8: a file that is no export is named with what it is")
    func notAnExport() throws {
        let temporary = try TemporaryStore()
        let text = temporary.directory + "/notes.txt"
        try Self.write("shopping list\nmilk\n", to: text)
        let json = temporary.directory + "/user.json"
        try Self.write("{\"user_id\": 1, \"user_name\": \"example\"}", to: json)
        let photo = temporary.directory + "/photo.jpg"
        try MediaFixtures.jpeg(at: photo)
        let results = ExportImporter(store: temporary.store).run([text, json, photo]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["", "", ""])
        #expect(results[0].error == "notes.txt: not an export pickerd reads: text whose first line (\"shopping list\") is no export's")
        #expect(results[1].error == "user.json: not an export pickerd reads: JSON whose keys (user_id, user_name) are no export's")
        #expect(results[2].error?.hasPrefix("photo.jpg: not an export pickerd reads: image/jpeg (photos and videos are indexed") == true)
    }

    // MARK: 9. One odd event

    @Test("9: an event without DTSTART is left out with its reason; Outlook's and Thunderbird's TZIDs and RFC 9253's LINK are read")
    func oddEvents() throws {
        let read = try CalendarReader.events(Self.calendar("""
            BEGIN:VEVENT\r
            UID:nostart\r
            SUMMARY:No start\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:outlook\r
            DTSTART;TZID=Central Standard Time:20240504T090000\r
            DTEND;TZID=Central Standard Time:20240504T100000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:thunderbird\r
            DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20240504T090000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:link\r
            DTSTART:20240504T090000Z\r
            LINK;LINKREL="latest-version";VALUE=URI:https://example.com/event\r
            END:VEVENT\r

            """), file: "odd.ics", horizon: Self.horizon, timeZone: Self.utc)
        #expect(read.skipped.map(\.line) == [4])
        #expect(read.skipped.first?.reason == "an event (BEGIN:VEVENT) with no DTSTART")
        let byUID = Dictionary(uniqueKeysWithValues: read.events.map { ($0.uid, $0) })
        #expect(byUID["outlook"]?.occurrences.map { [$0.startMs, $0.endMs] } == [[Self.ms("2024-05-04T14:00:00Z"), Self.ms("2024-05-04T15:00:00Z")]])
        #expect(byUID["outlook"]?.timeZone == "America/Chicago")
        #expect(byUID["thunderbird"]?.occurrences.first?.startMs == Self.ms("2024-05-04T13:00:00Z"))
        #expect(byUID["link"]?.occurrences.first?.startMs == Self.ms("2024-05-04T09:00:00Z"))
    }

    // MARK: 10. Silent skips

    @Test("9: a line after END:VCALENDAR, a VFREEBUSY's property without a value and an odd X- line refuse nothing: pickerd reads none of them (python-icalendar's issues 350, 348 and 168)")
    func oddLinesPickerdDoesNotRead() throws {
        let event = "BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20240504T180000Z\r\nSUMMARY:Dinner\r\nEND:VEVENT\r\n"
        var trailing = Self.calendar(event)
        trailing += Array("X-COMMENT:Cached from 2022-02-20 14:28:21 - new at most every 1800sec.\r\n".utf8)
        #expect(try CalendarReader.read(trailing, file: "350.ics", horizon: Self.horizon, timeZone: Self.utc).map(\.summary) == ["Dinner"])
        let freeBusy = Self.calendar("BEGIN:VFREEBUSY\r\nFREEBUSY;FBTYPE=FREE:20190624T063000Z/20190624T163000Z\r\nORGANIZER;CN=Sixt SE\r\nEND:VFREEBUSY\r\n" + event)
        #expect(try CalendarReader.read(freeBusy, file: "348.ics", horizon: Self.horizon, timeZone: Self.utc).map(\.summary) == ["Dinner"])
        // Nor does an odd X- line in an event (Apple's X-APPLE-RADIUS=… cut from its property, X-BAD/SLASH:TRUE).
        let apple = Self.calendar("BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20240504T180000Z\r\nX-APPLE-RADIUS=49.91307046514149\r\nX-BAD/SLASH:TRUE\r\nSUMMARY:Dinner\r\nEND:VEVENT\r\n")
        #expect(try CalendarReader.read(apple, file: "168.ics", horizon: Self.horizon, timeZone: Self.utc).map(\.summary) == ["Dinner"])
        // Before the calendar, and among its own or its time zones' lines, a line that is no property still refuses it.
        #expect(throws: ImportError.self) {
            try CalendarReader.read(Self.calendar("not a property\r\n" + event), file: "odd.ics", horizon: Self.horizon, timeZone: Self.utc)
        }
    }

    @Test("9: an RRULE with its separators escaped (Ruby's icalendar gem: FREQ=DAILY\\;COUNT=10) is read as the rule it escapes")
    func escapedRecurrenceRule() throws {
        let text = Self.calendar("BEGIN:VEVENT\r\nUID:r\r\nRRULE:FREQ=DAILY\\;COUNT=10\r\nDTSTART:20240504T080000Z\r\nSUMMARY:Something\r\nEND:VEVENT\r\n")
        let events = try CalendarReader.read(text, file: "ruby_rrule.ics", horizon: Self.horizon, timeZone: Self.utc)
        #expect(events.first?.occurrences.count == 10)
    }

    @Test("10: a BigTIFF is named as the photo it is, not as no photo at all; a WebP's and an AVIF's first bytes alone are read as those formats and named broken (Pillow's and pillow-heif's test images, cut)")
    func unreadPhotoFormatsAreNamed() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-unread")
        let cut: [(String, [UInt8], String)] = [
            ("flower.webp", Array("RIFF".utf8) + [0x26, 0x01, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 20), "WebP: truncated"),
            ("fox.avif", [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8) + [UInt8](repeating: 0, count: 16), "AVIF: "),
        ]
        for (name, head, start) in cut {
            let path = folder.path + "/" + name
            try Data(head).write(to: URL(fileURLWithPath: path))
            do {
                _ = try MediaProbe.probe(path: path, timeZone: Self.utc)
                Issue.record("\(name) was read")
            } catch {
                #expect(error.kind == .corrupt, "\(name): \(error.message)")
                #expect(error.message.hasPrefix(start), "\(name): \(error.message)")
            }
        }
        let heads: [(String, [UInt8], String)] = [
            ("hopper_bigtiff.tif", [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 24), "a BigTIFF"),
        ]
        for (name, head, what) in heads {
            let path = folder.path + "/" + name
            try Data(head).write(to: URL(fileURLWithPath: path))
            do {
                _ = try MediaProbe.probe(path: path, timeZone: Self.utc)
                Issue.record("\(name) was read")
            } catch {
                #expect(error.kind == .unsupported)
                #expect(error.message == "\(what): a photo format pickerd does not read yet")
            }
        }
    }

    @Test("A GPX of two tracks in neighbouring minutes, imported twice (gpxpy's cerknicko-jezero.gpx and its copies), keeps both")
    func neighbouringTracksImportedTwice() throws {
        func point(_ lat: Double, _ time: String) -> String { "<trkpt lat=\"\(lat)\" lon=\"14.35\"><time>\(time)</time></trkpt>" }
        let gpx = """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>7</name><trkseg>\(point(45.750, "2010-08-05T16:04:51Z"))\(point(45.7501, "2010-08-05T16:05:04Z"))</trkseg></trk>
            <trk><name>8</name><trkseg>\((0..<21).map { point(45.751 + Double($0) * 0.0005, String(format: "2010-08-05T16:%02d:37Z", 5 + $0 * 9 / 10)) }.joined())</trkseg></trk>
            </gpx>
            """
        let temporary = try TemporaryStore()
        for name in ["cerknicko-jezero.gpx", "cerknicko-jezero-no-creator.gpx"] {
            try Self.write(gpx, to: temporary.directory + "/" + name)
            _ = ExportImporter(store: temporary.store).run([temporary.directory + "/" + name]) { _, _, _, _ in }
        }
        let starts = try temporary.store.items(startingFrom: Self.ms("2010-08-05T00:00:00Z"), to: Self.ms("2010-08-06T00:00:00Z"))
            .filter { if case .workout = $0.asset { return true } else { return false } }.map(\.startMs).sorted()
        #expect(starts == [Self.ms("2010-08-05T16:04:51Z"), Self.ms("2010-08-05T16:05:37Z")])
    }

    @Test("10: a hidden folder is named with its reason")
    func hiddenFolder() throws {
        let temporary = try TemporaryStore()
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root + "/.thumbnails", withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: root + "/.thumbnails/a.jpg")
        try MediaFixtures.jpeg(at: root + "/b.jpg")
        let report = try SourceIndexer(store: temporary.store, timeZone: Self.utc).scan(try temporary.store.addSource(path: root, timeMs: 0))
        #expect(report.skipped.map(\.path) == [root + "/.thumbnails"])
        #expect(report.skipped.first?.reason == "a hidden folder (its name starts with a dot): not looked into")
        // Kept for `pickerctl sources list`, once; a scan of one folder alone leaves it; a full
        // scan after it went forgets it.
        let source = try #require(try temporary.store.sources().first)
        #expect(try temporary.store.skippedFolders()[source.id]?.map(\.path) == [root + "/.thumbnails"])
        _ = try SourceIndexer(store: temporary.store, timeZone: Self.utc).scan(source, folders: [ScanFolder(path: root, recursive: false)])
        _ = try SourceIndexer(store: temporary.store, timeZone: Self.utc).scan(source)
        #expect(try temporary.store.skippedFolders()[source.id]?.map(\.path) == [root + "/.thumbnails"])
        try FileManager.default.removeItem(atPath: root + "/.thumbnails")
        _ = try SourceIndexer(store: temporary.store, timeZone: Self.utc).scan(source)
        #expect(try temporary.store.skippedFolders()[source.id] == nil)
    }

    @Test("10: a broken PNG's message shows its chunk type escaped, never raw bytes")
    func brokenPNGMessage() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-png")
        let path = folder.path + "/broken.png"
        try MediaFixtures.png(at: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The chunk after IHDR: a length past the end and a type of control bytes.
        bytes.replaceSubrange(33..<41, with: [0x7F, 0xFF, 0xFF, 0xF0, 0x00, 0x1B, 0x0A, 0xC3])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: ProbeError.self) { try MediaProbe.probe(path: path, timeZone: Self.utc) }
        do {
            _ = try MediaProbe.probe(path: path, timeZone: Self.utc)
        } catch {
            #expect(error.message == "PNG: truncated (chunk \\x00\\x1B\\x0A\\xC3 runs past the end of the file)")
        }
    }

    @Test("10: an old Canon's 1024×768 JPEG, its make only in a CIFF heap in APP0, is a camera's photo, not a screenshot")
    func ciffCamera() throws {
        let folder = try TemporaryDirectory(prefix: "pkd-ciff")
        let plain = folder.path + "/plain.jpg"
        try MediaFixtures.run("convert", ["-size", "1024x768", "gradient:green-white", "-quality", "60", "-strip", plain])
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        // The heap as a PowerShot S10 laid it out: "II", header length 26, HEAPJPGM, then a heap holding
        // one sub-heap (0x300A) whose one record is the make and model (0x080A).
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        let text = Array("Canon\0Canon PowerShot S10\0".utf8)
        let inner = text + le16(1) + le16(0x080A) + le32(text.count) + le32(0) + le32(text.count)
        let outer = inner + le16(1) + le16(0x300A) + le32(inner.count) + le32(0) + le32(inner.count)
        let payload = Array("II".utf8) + le32(26) + Array("HEAPJPGM".utf8) + Array(repeating: 0, count: 12) + outer
        jpeg.insert(contentsOf: [0xFF, 0xE0] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        let path = folder.path + "/IMG_0001.JPG"
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        let media = try MediaProbe.probe(path: path, timeZone: Self.utc)
        #expect(media.make == "Canon")
        #expect(media.model == "Canon PowerShot S10")
        #expect(NotAMemoryRules.classify(media, path: path) == nil)
        #expect(NotAMemoryRules.classify(try MediaProbe.probe(path: plain, timeZone: Self.utc), path: plain) == .screenshot,
                "without its CIFF it looks like a screen")
    }

    // MARK: 11, 12. Found by the labelled-life benchmark

    @Test("11: Google Calendar's empty DESCRIPTION: and LOCATION: are just empty")
    func emptyProperties() throws {
        let events = try CalendarReader.read(Self.calendar("""
            BEGIN:VEVENT\r
            DTSTART:20240504T180000Z\r
            DTEND:20240504T190000Z\r
            DTSTAMP:20240501T000000Z\r
            UID:0abc123@google.com\r
            CREATED:20240501T000000Z\r
            DESCRIPTION:\r
            LAST-MODIFIED:20240501T000000Z\r
            LOCATION:\r
            SEQUENCE:0\r
            STATUS:CONFIRMED\r
            SUMMARY:Dinner\r
            TRANSP:OPAQUE\r
            END:VEVENT\r

            """), file: "basic.ics", horizon: Self.horizon, timeZone: Self.utc)
        #expect(events.map(\.summary) == ["Dinner"])
        #expect(events.first?.location.isEmpty == true)
    }

    @Test("12: a ListenBrainz export zip whose feedback.jsonl is empty (2 deflated bytes, as Python's zipfile writes it) is unpacked")
    func emptyZipMember() throws {
        let temporary = try TemporaryStore()
        let zip = Self.fixtures.appendingPathComponent("listenbrainz_export_empty_feedback.zip").path
        let results = ExportImporter(store: temporary.store).run([zip]) { _, _, _, _ in }
        #expect(results.map { ($0.file as NSString).lastPathComponent } == ["feedback.jsonl", "1.jsonl", "user.json"])
        #expect(results.first { $0.kind == "listenbrainz" }?.counts["songs"] == 2)
        #expect(results.first { $0.file.hasSuffix("feedback.jsonl") }?.error == "feedback.jsonl: not an export pickerd reads: the file is empty")
    }
}
