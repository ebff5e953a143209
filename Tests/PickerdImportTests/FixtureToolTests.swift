import Foundation
import PickerdTestKit
import Testing

/// The fixture tools are there and make what the importer tests rely on.
@Suite struct FixtureToolTests {
    @Test func theToolsMakeEveryKindOfFile() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-fixtures")
        try MediaFixtures.jpeg(at: dir.path + "/a.jpg", exif: .init(dateTimeOriginal: "2024:05:04 10:11:12", latitude: 45.5, longitude: -122.6))
        try MediaFixtures.heic(at: dir.path + "/a.heic", exif: .init(dateTimeOriginal: "2024:05:04 10:11:12"))
        try MediaFixtures.png(at: dir.path + "/a.png")
        try MediaFixtures.clip(at: dir.path + "/a.mov", creationDate: "2024-05-04T10:11:13+0200", iso6709: "+45.5000-122.6000/")
        for name in ["a.jpg", "a.heic", "a.png", "a.mov"] {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: dir.path + "/" + name)[.size] as? Int)
            #expect(size > 100, "\(name) is \(size) bytes")
        }
    }
}
