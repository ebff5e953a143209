import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

/// The workout file readers (GPX, TCX, FIT) on real-format files: GPX and TCX written here, FIT
/// files made by fit-tool (Fixtures/, see its README) and FIT files built byte by byte below for the
/// edge cases.
@Suite struct WorkoutFileTests {
    // MARK: Fixtures

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// `ImportError` from a throwing read, or a test failure.
    static func importError(_ body: () throws(ImportError) -> ImportedData) -> ImportError? {
        do {
            _ = try body()
            Issue.record("expected an ImportError")
            return nil
        } catch {
            return error
        }
    }

    // MARK: Mapping and times

    @Test func activityNames() {
        for name in ["run", "Running", "trail_running", "TRAIL RUNNING", "treadmill-running"] { #expect(HealthKitActivity.rawValue(for: name) == 37) }
        for name in ["ride", "Cycling", "biking", "VirtualRide", "road_biking", "mountain_biking"] { #expect(HealthKitActivity.rawValue(for: name) == 13) }
        for name in ["walk", "Walking"] { #expect(HealthKitActivity.rawValue(for: name) == 52) }
        for name in ["hike", " Hiking "] { #expect(HealthKitActivity.rawValue(for: name) == 24) }
        for name in ["swim", "Swimming", "open_water_swimming"] { #expect(HealthKitActivity.rawValue(for: name) == 46) }
        for name in ["", "yoga", "Other", "runner"] { #expect(HealthKitActivity.rawValue(for: name) == 3000) }
        #expect(HealthKitActivity.rawValue(stravaType: "9") == 37)
        #expect(HealthKitActivity.rawValue(stravaType: "1") == 13)
        #expect(HealthKitActivity.rawValue(stravaType: "running") == nil)
        #expect([1, 2, 11, 17, 5, 0, 255].map { HealthKitActivity.rawValue(fitSport: $0) } == [37, 13, 52, 24, 46, 3000, 3000])
    }

    @Test func isoTimes() {
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00Z") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00.25Z") == 1_714_822_200_250)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T07:30:00-04:00") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T13:30:00+0200") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("1969-12-31T23:59:59Z") == -1000)
        #expect(WorkoutFiles.parseISO8601("2024-13-04T11:30:00Z") == nil)
        #expect(WorkoutFiles.parseISO8601("2024-05-04") == nil)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00Zjunk") == nil)
    }
}
