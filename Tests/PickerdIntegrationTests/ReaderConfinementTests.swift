import Foundation
import Glibc
import PickerdTestKit
import Testing

/// Issue 28: every file of the person's is read by pickerd-reader, a process that shuts itself in
/// (seccomp, Landlock, no_new_privs, rlimits) and that pickerd kills past its time or memory. Each
/// hostile input the issue names costs that one file; pickerd keeps serving, its own memory stays
/// where it was, and a file that broke its reader is remembered, not read again at each start.
@Suite("Files are read by a confined reader", .serialized)
struct ReaderConfinementTests {
    /// How a process ended: its exit status, or 128 + the signal that ended it.
    static func ending(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = BuiltProducts.url("pickerd-reader")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    @Test("a reader that opens a file, makes a socket or starts a program is killed by its filter (SIGSYS); reading is allowed")
    func filterKills() throws {
        #expect(try Self.ending(["--self-test", "read"]) == 0)
        for forbidden in ["open", "connect", "exec"] {
            #expect(try Self.ending(["--self-test", forbidden]) == 128 + SIGSYS, "\(forbidden)")
        }
    }

    @Test("the calendars that hung or crashed pickerd (a rule that never occurs, a duration of ten quintillion weeks, 500,000 nested components) each cost one file; pickerd serves on, its memory flat")
    func hostileCalendars() throws {
        let pickerd = try RunningPickerd(seed: false, extra: ["--reader-cpu-seconds", "2"], environment: ["TZ": "UTC"])
        let pid = try #require(pickerd.pid)
        let before = peakResidentMiB(pid)
        let head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T100000Z\r\n"
        let files: [(String, String)] = [
            ("never.ics", head + "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30\r\nSUMMARY:Never\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"),
            ("forever.ics", head + "DURATION:P999999999999999999W\r\nSUMMARY:Forever\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"),
            ("nested.ics", "BEGIN:VCALENDAR\r\n" + String(repeating: "BEGIN:X-A\r\n", count: 500_000)
                + String(repeating: "END:X-A\r\n", count: 500_000) + "END:VCALENDAR\r\n"),
        ]
        for (name, text) in files {
            let path = pickerd.root + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let imported = try pickerd.ctl(["import", path])
            #expect(imported.status == 1, "\(name): \(imported.stdout) \(imported.stderr)")
            #expect(imported.stdout.contains("not imported"), "\(name): \(imported.stdout)")
            #expect(try pickerd.ctl(["status"]).status == 0, "\(name)")
        }
        // A good calendar after them is read as ever.
        let good = pickerd.root + "/good.ics"
        try (head + "SUMMARY:Dinner\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").write(toFile: good, atomically: true, encoding: .utf8)
        let imported = try pickerd.ctl(["import", good])
        #expect(imported.status == 0, "\(imported.stdout)")
        #expect(imported.stdout.contains("1 events"), "\(imported.stdout)")
        #expect(peakResidentMiB(pid) - before < 64, "pickerd grew from \(before) to \(peakResidentMiB(pid)) MiB")
        #expect(pickerd.stop() == 0)
    }

    @Test("a 200 KB .gpx.gz of 63 MB of track and a 100-megapixel PNG dropped into a watched folder cost those files; the photo beside them is indexed; after a restart neither is read again")
    func hostileFolder() throws {
        let pickerd = try RunningPickerd(seed: false, extra: ["--reader-memory-mib", "160"], environment: ["TZ": "UTC"])
        let pid = try #require(pickerd.pid)
        let before = peakResidentMiB(pid)
        let pictures = pickerd.root + "/Pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: pictures + "/IMG_0001.jpg", exif: .init(dateTimeOriginal: "2024:05:04 10:00:00"))
        // The track: 700,000 points, gzip'd (a reader that builds a tree of it needs about a GB).
        let point = "<trkpt lat=\"52.5200\" lon=\"13.4050\"><ele>34</ele><time>2024-05-04T08:00:00Z</time></trkpt>\n"
        let gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
            + String(repeating: point, count: 700_000) + "</trkseg></trk></gpx>\n"
        try gpx.write(toFile: pickerd.root + "/run.gpx", atomically: true, encoding: .utf8)
        #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/gzip"), ["-9", pickerd.root + "/run.gpx"]).status == 0)
        try FileManager.default.moveItem(atPath: pickerd.root + "/run.gpx.gz", toPath: pictures + "/run.gpx.gz")
        // 10,000 × 10,000 pixels of one colour: a few hundred KB of PNG, 300 MB decoded.
        try MediaFixtures.flatPNG(at: pictures + "/huge.png", side: 10_000)

        let added = try pickerd.ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stdout) \(added.stderr)")
        #expect(added.stdout.contains("skipped \(pictures)/run.gpx.gz: its reader ran past its memory")
                || added.stdout.contains("skipped \(pictures)/run.gpx.gz: its reader crashed"), "\(added.stdout)")
        let status = try pickerd.ctl(["status"])
        #expect(status.stdout.contains("library: 1 items") || status.stdout.contains("library: 2 items"), "\(status.stdout)")
        #expect(peakResidentMiB(pid) - before < 64, "pickerd grew from \(before) to \(peakResidentMiB(pid)) MiB")
        #expect(pickerd.stop() == 0)

        // At the next start the source is scanned again: the files that broke a reader are not read.
        let again = try RunningPickerd(seed: false, root: pickerd.root, extra: ["--reader-memory-mib", "160"], environment: ["TZ": "UTC"])
        let rescan = try again.ctl(["sources", "rescan"])
        #expect(rescan.status == 0, "\(rescan.stdout) \(rescan.stderr)")
        #expect(rescan.stdout.contains("0 new, 0 changed"), "\(rescan.stdout)")
        #expect(!again.logText.contains("a file's reader broke down"), "\(again.logText)")
        #expect(again.stop() == 0)
    }
}
