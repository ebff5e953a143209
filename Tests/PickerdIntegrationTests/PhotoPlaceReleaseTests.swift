import Foundation
import PickerdTestKit
import Testing

/// A photo's own place name (its IPTC/XMP location, IPTC-IIM) is location: it reaches an app only
/// with a place the person keeps, as coordinates do.
@Suite("A photo's own place name leaves only with a kept place")
struct PhotoPlaceReleaseTests {
    @Test("photos naming Jardim do Torel: kept without their place, the name is in no byte of the outcome nor of any file; with the place it is",
          arguments: [false, true])
    func release(placeKept: Bool) throws {
        let keep = placeKept ? #"["photo", "location"]"# : #"["photo"]"#
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Torel", "keep": \#(keep)}]}"#)
        let pictures = pickerd.root + "/Pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        for (i, time) in ["10:00", "10:20", "10:40"].enumerated() {
            let path = "\(pictures)/IMG_000\(i + 1).JPG"
            try MediaFixtures.jpeg(at: path, seed: i, exif: .init(
                dateTimeOriginal: "2024:05:04 \(time):00", offsetTimeOriginal: "+01:00", latitude: 38.7183, longitude: -9.1408,
                make: "Apple", model: "iPhone 13", exposureTime: 0.008))
            // As Lightroom (XMP) and older tools (IPTC-IIM in APP13) write a photo's place.
            try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Jardim do Torel", "-XMP-photoshop:City=Lisboa",
                                         "-IPTC:Sub-location=Jardim do Torel", "-IPTC:City=Lisboa"], to: path)
        }
        let added = try pickerd.ctl(["sources", "add", pictures])
        #expect(added.status == 0, "\(added.stderr)")
        let outcome = try #require(try testClient(pickerd, "present").last, "\(pickerd.logText)")
        #expect(outcome["result"] as? String == "approved", "\(outcome) \(pickerd.logText)")
        let items = outcome["items"] as? [[String: String]] ?? []
        #expect(items.filter { $0["kind"] == "photo" }.count == 3, "\(items)")
        // Every byte of the outcome's frame (its items' fields and title) as the app received it.
        let raw = try #require(Data(base64Encoded: outcome["raw"] as? String ?? ""))
        #expect((raw.range(of: Data("Torel".utf8)) != nil) == placeKept, "the frame names it only with the place kept")
        let title = outcome["title"] as? String ?? ""
        #expect(title.contains("Torel") == placeKept, "\(title)")
        let files = (outcome["descriptors"] as? [[String: Any]] ?? []).compactMap { ($0["base64"] as? String).flatMap { Data(base64Encoded: $0) } }
        #expect(files.count == 3)
        let inFiles = files.filter { $0.range(of: Data("Torel".utf8)) != nil }.count
        // Kept with its place, a file leaves as it is, its names in it.
        #expect(inFiles == (placeKept ? 3 : 0), "\(inFiles) of \(files.count) files hold the name")
        pickerd.stop()
    }
}
