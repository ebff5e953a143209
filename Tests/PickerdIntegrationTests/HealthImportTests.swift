import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// `pickerctl import` of Apple Health's export.zip and Gadgetbridge's database through a real
/// pickerd (issue 34): workouts and walks are imported, a truncated export.xml is refused whole with
/// its line, and the rest goes on.
@Suite("Importing Apple Health and Gadgetbridge exports", .serialized)
struct HealthImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PickerdImportTests/Fixtures").path

    @Test("export.zip, a Gadgetbridge folder and a truncated export.xml: the first two imported, the third refused with its line")
    func healthAndGadgetbridge() throws {
        let pickerd = try RunningPickerd(seed: false)
        let imported = try pickerd.ctl(["import", Self.fixtures + "/apple_health_export.zip", Self.fixtures + "/gadgetbridge",
                                        Self.fixtures + "/apple_health_truncated.xml"])
        #expect(imported.status == 1, "\(imported.stdout)")
        let lines = imported.stdout.split(separator: "\n").map(String.init)
        let health = lines.first { $0.contains("apple_health_export.zip/apple_health_export/export.xml (apple-health)") } ?? ""
        #expect(health.contains("4 workouts"), "\(imported.stdout)")
        #expect(health.contains("1 walks and runs"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("route_2024-05-04_7.05am.gpx"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("export_cda.xml"), "\(imported.stdout)")
        let gadgetbridge = lines.first { $0.contains("gadgetbridge/Gadgetbridge (gadgetbridge)") } ?? ""
        #expect(gadgetbridge.contains("4 workouts"), "\(imported.stdout)")
        #expect(gadgetbridge.contains("2 walks and runs"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("gadgetbridge-track-"), "\(imported.stdout)")
        let truncated = lines.first { $0.contains("apple_health_truncated.xml") } ?? ""
        #expect(truncated.contains("not imported"), "\(imported.stdout)")
        #expect(truncated.contains("line "), "\(imported.stdout)")
        #expect(truncated.contains("truncated"), "\(imported.stdout)")
        #expect(try pickerd.ctl(["status"]).status == 0)
        // The runs become moments: the Health run's and the Gadgetbridge run's workouts are in suggestions.
        let store = try Store(dataDirectory: pickerd.data)
        let runs = try store.items().filter { item in
            if case .workout(let w) = item.asset { return w.details?.activityType == 37 }
            return false
        }
        #expect(runs.count == 2)
        let suggestions = try store.suggestions()
        for run in runs {
            #expect(suggestions.contains { $0.itemIDs.contains(run.id) }, "\(suggestions.map(\.title))")
        }
        pickerd.stop()
    }

    @Test("State of Mind through pickerd: a ZIP64 export.zip's samples become StateOfMind items, those it cannot read counted")
    func stateOfMind() throws {
        let pickerd = try RunningPickerd(seed: false)
        let imported = try pickerd.ctl(["import", Self.fixtures + "/apple_health_zip64.zip"])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        let line = imported.stdout.split(separator: "\n").first { $0.contains("apple_health_zip64.zip/apple_health_export/export.xml (apple-health)") } ?? ""
        #expect(line.contains("3 moods"), "\(imported.stdout)")
        #expect(line.contains("4 State of Mind samples left out (no date or valence pickerd reads)"), "\(imported.stdout)")
        let store = try Store(dataDirectory: pickerd.data)
        let states = try store.items().compactMap { item -> StateOfMindSample? in
            if case .stateOfMind(let s) = item.asset { return s.state }
            return nil
        }
        #expect(states.map(\.valence).sorted() == [-1, -0.4, 0.62])
        #expect(states.contains { $0.kind == .dailyMood && $0.labels == [.happy, .grateful] && $0.associations == [.family, .fitness] })
        pickerd.stop()
    }
}
