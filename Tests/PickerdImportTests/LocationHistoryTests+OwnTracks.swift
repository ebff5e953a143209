import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import Testing

extension LocationHistoryTests {
    // MARK: OwnTracks

    @Test func ownTracksRecorderPoints() throws {
        let root = try Self.folder() + "/rec/alice/phone"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // The Recorder's storage line: time, tab, topic ("*" padded to 18), tab, the app's JSON
        // (owntracks/recorder storage.c and README "The .rec files"; payload per the OwnTracks JSON
        // booklet's `_type: location`).
        var lines: [String] = []
        for i in 0..<16 {
            let tst = Int(Self.day / 1000) + 36_000 + i * 120
            let c = Self.offset(Self.museum, north: Double(i % 3) * 10, east: Double(i % 4) * 8)
            let iso = Self.iso(Int64(tst) * 1000)
            lines.append("\(iso)\t*                 \t{\"_type\":\"location\",\"acc\":12,\"alt\":35,\"batt\":80,\"bs\":1,\"conn\":\"w\",\"lat\":\(c.latitude),\"lon\":\(c.longitude),\"tid\":\"ph\",\"tst\":\(tst),\"vac\":3,\"vel\":0}")
            if i == 5 { lines.append("\(iso)\tlwt               \t{\"_type\":\"lwt\",\"tst\":\(tst)}") }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: root + "/2024-05.rec", atomically: true, encoding: .utf8)
        let data = try OwnTracksRecorder.read(path: root + "/2024-05.rec")
        #expect(data.points.count == 16)
        #expect(data.points.first?.timeMs == Self.day + 600 * Self.minute)
        #expect(data.points.first?.accuracy == 12 && data.points.first?.elevation == 35)
        #expect(data.visits.count == 1)
        #expect(data.visits.first.map { $0.endMs - $0.startMs } == 30 * Self.minute)
        #expect((data.visits.first?.coordinate.distance(to: Self.museum) ?? 1000) < 30)

        let prefix = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/2024-05.rec")).prefix(4096))
        #expect(ExportKind.detect(prefix, name: "2024-05.rec") == .owntracks)
    }

    @Test("OwnTracks waypoints the person named name the stays inside them; a stay outside any, or a malformed waypoint, names nothing")
    func ownTracksWaypoints() throws {
        let root = try Self.folder() + "/rec/alice/phone"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var lines: [String] = []
        let start = Int(Self.day / 1000) + 36_000
        // As the app publishes a region (the OwnTracks JSON booklet's `_type: waypoint`), stored by the Recorder.
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"Kissa Marunouchi\",\"lat\":\(Self.museum.latitude),\"lon\":\(Self.museum.longitude),\"rad\":80,\"tst\":\(start - 60)}")
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"\",\"lat\":1,\"lon\":2}")
        lines.append("\(Self.iso(Int64(start - 60) * 1000))\twaypoints         \t{\"_type\":\"waypoint\",\"desc\":\"Nowhere\",\"lat\":95,\"lon\":2}")
        // Half an hour inside the region, then half an hour 2 km away.
        for i in 0..<32 {
            let tst = start + i * 120
            let c = i < 16 ? Self.offset(Self.museum, north: Double(i % 3) * 10, east: Double(i % 4) * 8)
                : Self.offset(Self.museum, north: 2_000 + Double(i % 3) * 10, east: Double(i % 4) * 8)
            lines.append("\(Self.iso(Int64(tst) * 1000))\t*                 \t{\"_type\":\"location\",\"acc\":12,\"lat\":\(c.latitude),\"lon\":\(c.longitude),\"tst\":\(tst)}")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: root + "/2024-06.rec", atomically: true, encoding: .utf8)
        let data = try OwnTracksRecorder.read(path: root + "/2024-06.rec")
        #expect(data.points.count == 32, "waypoints are not points")
        try #require(data.visits.count == 2, "\(data.visits)")
        #expect(data.visits[0].placeName == "Kissa Marunouchi")
        #expect(data.visits[1].placeName == nil, "2 km away is outside the region")
    }

}
