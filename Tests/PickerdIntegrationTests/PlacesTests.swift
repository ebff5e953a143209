import Foundation
import PickerdTestKit
import Testing

/// `pickerctl places` through a real pickerd: six weeks of imported visits in Porto (a flat, a move
/// to another, an office, a café, a bar once) become two homes with their dates, work and a frequent
/// place.
@Suite("pickerctl places", .serialized)
struct PlacesTests {
    /// Six weeks from Monday 4 March 2024: nights in Casa da Ana for three weeks, then in Casa Nova;
    /// weekdays at Acme; after work at Café Majestic on the first week's weekdays; Bar Aduela once.
    static func makeTakeout(_ root: String) throws {
        let history = root + "/Takeout/Location History (Timeline)/Semantic Location History/2024"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        let monday = Date(timeIntervalSince1970: 1_709_510_400)  // 2024-03-04T00:00:00Z
        let iso = ISO8601DateFormatter()
        func at(_ day: Int, _ hour: Double) -> String { iso.string(from: monday.addingTimeInterval(Double(day) * 86_400 + hour * 3_600)) }
        var objects: [[String: Any]] = []
        for day in 0..<42 {
            let home = day < 21 ? ("Casa da Ana", 41.1579, -8.6291) : ("Casa Nova", 41.1450, -8.6100)
            objects.append(ImportTests.placeVisit(home.0, home.1, home.2, at(day, 18), at(day, 31.5)))
            if day % 7 < 5 {
                objects.append(ImportTests.placeVisit("Acme Lda", 41.1780, -8.5960, at(day, 8.5), at(day, 16.75)))
                if day < 7 { objects.append(ImportTests.placeVisit("Café Majestic", 41.1470, -8.6065, at(day, 17), at(day, 17.75))) }
            }
            if day == 5 { objects.append(ImportTests.placeVisit("Bar Aduela", 41.1601, -8.6291, at(day, 16), at(day, 17.5))) }
        }
        let data = try JSONSerialization.data(withJSONObject: ["timelineObjects": objects])
        try data.write(to: URL(fileURLWithPath: history + "/2024_MARCH.json"))
    }

    @Test("imported visits: pickerctl places names both homes with their dates, work and a frequent café, not a bar visited once")
    func knownPlaces() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "Europe/Lisbon"])
        let empty = try pickerd.ctl(["places"])
        #expect(empty.status == 0 && empty.stdout.hasPrefix("no known places yet"), "\(empty.stdout) \(empty.stderr)")
        try Self.makeTakeout(pickerd.root)
        let imported = try pickerd.ctl(["import", pickerd.root + "/Takeout"])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")

        let places = try pickerd.ctl(["places"])
        #expect(places.status == 0, "\(places.stderr)")
        let lines = places.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ROLE") == true, "\(places.stdout)")
        let rows = lines.dropFirst().map { $0.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(rows.count == 4, "\(places.stdout)")
        #expect(rows.first == ["home", "Casa da Ana", "Porto", "41.158° N, 8.629° W", "22", "until 2024-03-25"], "\(places.stdout)")
        #expect(rows.dropFirst().first == ["home", "Casa Nova", "Porto", "41.145° N, 8.610° W", "22", "since 2024-03-25"], "\(places.stdout)")
        #expect(rows.dropFirst(2).first?.prefix(2) == ["work", "Acme Lda"], "\(places.stdout)")
        #expect(rows.dropFirst(3).first?.prefix(2) == ["frequent", "Café Majestic"], "\(places.stdout)")
        #expect(!places.stdout.contains("Bar Aduela"))
        #expect(pickerd.stop() == 0)
    }
}
