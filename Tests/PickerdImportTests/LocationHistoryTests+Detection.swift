import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import Testing

extension LocationHistoryTests {
    // MARK: Detection

    @Test func detectionByContentNotName() throws {
        func kind(_ text: String, _ name: String = "foo.txt") -> ExportKind? { ExportKind.detect(Array(text.utf8), name: name) }
        let records = Self.recordsJSON(Array(Self.dayPoints().prefix(40)))
        #expect(kind(records) == .records)
        #expect(kind(String(records.prefix(100))) == .records)
        #expect(kind(Self.semanticMonth, "notes.json") == .semantic)
        #expect(kind(Self.timelineJSON, "export") == .timeline)
        // A key deeper down never counts; a top-level key after another member does.
        #expect(kind("{\"meta\": {\"locations\": []}, \"semanticSegments\": []}") == .timeline)
        #expect(kind("\u{FEFF}\n {\"locations\" : [ ]}") == .records)
        #expect(kind("{\"something\": 1}") == nil)
        #expect(kind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- made by hand -->\n<gpx version=\"1.1\" creator=\"x\">") == .gpx)
        #expect(kind("<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\">") == .tcx)
        #expect(kind("<html><body>") == nil)
        #expect(ExportKind.detect([14, 0x20, 0x52, 0x08, 0, 0, 0, 0, 0x2E, 0x46, 0x49, 0x54, 0, 0], name: "a.bin") == .fit)
        #expect(ExportKind.detect([0x1F, 0x8B, 8, 0], name: "x") == .gzip)
        #expect(ExportKind.detect([0x50, 0x4B, 3, 4, 20, 0], name: "x") == .zip)
        #expect(ExportKind.detect([], name: "Records.json") == nil)
        #expect(kind("just some notes\nand more") == nil)
        #expect(kind("2024-05-04T10:11:12Z\t*                 \t{\"_type\":\"location\",\"lat\":1,\"lon\":2,\"tst\":3}\n") == .owntracks)
        // A prefix broken before any key: the name says which reader reports the break.
        #expect(kind("{\"locati", "Records.json") == .records)
        #expect(kind("{\"locati", "x.json") == nil)
    }

    @Test func isoTimesAgreeWithFoundation() {
        for text in ["2024-05-04T10:11:12Z", "2024-05-04T10:11:12.345Z", "2024-02-29T23:59:59.999999+05:30", "1999-12-31T20:00:00-0400",
                     "2024-05-04T10:11:12.1-04:00"] {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let g = ISO8601DateFormatter()
            let date = f.date(from: text) ?? g.date(from: text) ?? g.date(from: text.replacingOccurrences(of: "-0400", with: "-04:00"))
            let expected = date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
            #expect(LocationHistory.milliseconds(iso: text) == expected, "\(text)")
        }
        #expect(LocationHistory.milliseconds(iso: "2024-05-04T10:11:12") == nil)
        #expect(LocationHistory.milliseconds(iso: "2024-13-04T10:11:12Z") == nil)
    }

    // MARK: Bad input

    @Test func truncatedRecordsNamesTheLine() throws {
        let root = try Self.folder()
        let full = Self.recordsJSON(Array(Self.dayPoints().prefix(30)))
        let cut = String(full.prefix(full.count * 2 / 3))
        try cut.write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        let lines = cut.split(separator: "\n", omittingEmptySubsequences: false).count
        var seen = 0
        let error = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in seen += 1 } }
        #expect(error?.location == "line \(lines)")
        #expect(error?.message.contains("truncated") == true)
        #expect(error?.file == root + "/Records.json")
        #expect(throws: ImportError.self) { _ = try TakeoutRecords.read(path: root + "/Records.json") }

        // A Semantic month cut short says its line too.
        let month = String(Self.semanticMonth.prefix(700))
        try month.write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let semanticError = #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        #expect(semanticError?.location == "line \(month.split(separator: "\n", omittingEmptySubsequences: false).count)")

        // Broken syntax: a missing comma.
        try "{\n  \"locations\": [{\n    \"latitudeE7\": 1\n    \"longitudeE7\": 2\n  }]\n}".write(toFile: root + "/bad.json", atomically: true, encoding: .utf8)
        let syntax = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/bad.json") { _ in } }
        #expect(syntax?.location == "line 4")
    }

    @Test func outOfRangeCoordinateNamesTheRecord() throws {
        let root = try Self.folder()
        var points = Array(Self.dayPoints().prefix(5))
        points[2].1 = Coordinate(latitude: 95, longitude: -73.9)
        try Self.recordsJSON(points).write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        var seen = 0
        let error = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in seen += 1 } }
        #expect(error?.location?.hasPrefix("record 3 (line ") == true)
        #expect(error?.message.contains("latitudeE7 950000000 is out of range") == true)
        #expect(error?.description.hasPrefix(root + "/Records.json, record 3") == true)

        let month = Self.semanticMonth.replacingOccurrences(of: "\"longitudeE7\": -739772000,\n          \"placeId\": \"ChIJworkWORKwork\"",
                                                            with: "\"longitudeE7\": -1839772000,\n          \"placeId\": \"ChIJworkWORKwork\"")
        #expect(month != Self.semanticMonth)
        try month.write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        let semantic = #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        #expect(semantic?.location?.hasPrefix("timelineObjects[2]") == true)
    }

    @Test func emptyAndWrongFiles() throws {
        let root = try Self.folder()
        try "".write(toFile: root + "/Records.json", atomically: true, encoding: .utf8)
        let empty = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records.json") { _ in } }
        #expect(empty?.message == "the file is empty")
        try "  \n".write(toFile: root + "/2024_MAY.json", atomically: true, encoding: .utf8)
        #expect(throws: ImportError.self) { _ = try SemanticLocationHistory.read(path: root + "/2024_MAY.json") }
        try "".write(toFile: root + "/x.rec", atomically: true, encoding: .utf8)
        #expect(throws: ImportError.self) { _ = try OwnTracksRecorder.read(path: root + "/x.rec") }
        try "{\"semanticSegments\": []}".write(toFile: root + "/Records2.json", atomically: true, encoding: .utf8)
        let wrong = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/Records2.json") { _ in } }
        #expect(wrong?.message.contains("no \"locations\"") == true)
        let missing = #expect(throws: ImportError.self) { try TakeoutRecords.stream(path: root + "/nope.json") { _ in } }
        #expect(missing?.message.hasPrefix("cannot be opened") == true)
        // Empty arrays are fine: nothing to import.
        try "{\"locations\": []}".write(toFile: root + "/Records3.json", atomically: true, encoding: .utf8)
        #expect(try TakeoutRecords.read(path: root + "/Records3.json").visits.isEmpty)
        // A bad OwnTracks line names its line.
        try "2024-05-04T10:11:12Z\t*   \t{\"_type\":\"location\",\"lat\":91,\"lon\":2,\"tst\":3}\n".write(toFile: root + "/y.rec", atomically: true, encoding: .utf8)
        let own = #expect(throws: ImportError.self) { _ = try OwnTracksRecorder.read(path: root + "/y.rec") }
        #expect(own?.location == "line 1")
    }
}
