import Foundation
import Glibc
import PickerdTestKit
import Testing

/// `pickerctl import` on files the person named (issue 29, item 8): a file that imported nothing makes
/// the command fail and says what the file is and why; a file found in a folder that is no export is
/// named and left alone; a calendar with one odd event imports the rest and names the one left out.
@Suite("Importing a named file that holds nothing", .serialized)
struct ImportNamedFileTests {
    @Test("a named file that is no export exits 1 saying what it is; in a folder it is named and left alone")
    func namedFileNotAnExport() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "UTC"])
        let notes = pickerd.root + "/notes.txt"
        try "shopping list\nmilk\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let named = try pickerd.ctl(["import", notes])
        #expect(named.status == 1, "\(named.stdout) \(named.stderr)")
        #expect(named.stdout.contains("\(notes): not imported: notes.txt: not an export pickerd reads: text whose first line (\"shopping list\") is no export's"),
                "\(named.stdout)")

        let folder = pickerd.root + "/exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "shopping list\n".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        try "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Maya Lee\r\nEND:VCARD\r\n".write(toFile: folder + "/maya.vcf", atomically: true, encoding: .utf8)
        let walked = try pickerd.ctl(["import", folder])
        #expect(walked.status == 0, "\(walked.stdout) \(walked.stderr)")
        #expect(walked.stdout.contains("\(folder)/notes.txt: left alone: notes.txt: not an export pickerd reads"), "\(walked.stdout)")
        #expect(walked.stdout.contains("1 file not recognised as an export, left alone"))
    }

    @Test("a named calendar of one event left out exits 1 with the event's line and reason; with another event it imports that one")
    func calendarWithNothingKept() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "UTC"])
        let head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:No start\r\nEND:VEVENT\r\n"
        let empty = pickerd.root + "/empty.ics"
        try (head + "END:VCALENDAR\r\n").write(toFile: empty, atomically: true, encoding: .utf8)
        let refused = try pickerd.ctl(["import", empty])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stdout.contains("\(empty) (ics): not imported: 1 events left out (the event at line 3: an event (BEGIN:VEVENT) with no DTSTART)"),
                "\(refused.stdout)")

        let kept = pickerd.root + "/kept.ics"
        try (head + "BEGIN:VEVENT\r\nUID:b\r\nDTSTART:20240504T180000Z\r\nSUMMARY:Dinner\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
            .write(toFile: kept, atomically: true, encoding: .utf8)
        let imported = try pickerd.ctl(["import", kept])
        #expect(imported.status == 0, "\(imported.stdout)")
        #expect(imported.stdout.contains("1 events") && imported.stdout.contains("1 events left out"), "\(imported.stdout)")
    }
}
