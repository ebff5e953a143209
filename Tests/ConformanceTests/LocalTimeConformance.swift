import Foundation
import PickerdTestKit
import Testing

/// Invariant 20: an item's local time (its offset from UTC) tells a region, so it leaves only with a
/// place the person kept, as a photo's GPS does. A Kyoto afternoon (three photos at 14:01–14:40
/// local, EXIF `OffsetTimeOriginal` +09:00, whose stay pickerd names from them) is approved twice:
/// with its place kept every item carries +09:00; with the photos alone none carries an offset.
enum KyotoAfternoon {
    /// Kept with its place, then without.
    static let script = #"{"reviews": [{"title": "Kyoto", "keep": ["photo", "location"]}, {"title": "Kyoto", "keep": ["photo"]}]}"#
    static let offset = 9 * 3600

    /// The photos, in a source of `pickerd`'s.
    static func plant(in pickerd: RunningPickerd) throws -> (Bool, String) {
        let pictures = pickerd.root + "/Kyoto"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        for (i, time) in ["14:01", "14:20", "14:40"].enumerated() {
            try MediaFixtures.jpeg(at: "\(pictures)/IMG_10\(i + 1).JPG", seed: i, exif: .init(
                dateTimeOriginal: "2026:04:11 \(time):00", offsetTimeOriginal: "+09:00", latitude: 35.0211, longitude: 135.7539,
                make: "Apple", model: "iPhone 13", exposureTime: 0.008))
        }
        let added = try pickerd.ctl(["sources", "add", pictures])
        return (added.status == 0, "sources add: \(added.stderr)")
    }

    /// Judges the two outcomes: the first's items all at +09:00 with a place among them, the second's
    /// photos with no offset at all.
    static func judge(_ kept: [String: Any]?, _ unkept: [String: Any]?) -> (Bool, String) {
        let withPlace = kept?["items"] as? [[String: Any]] ?? [], without = unkept?["items"] as? [[String: Any]] ?? []
        let kinds = withPlace.compactMap { $0["kind"] as? String }
        let offsets = withPlace.map { ($0["utcOffset"] as? String).flatMap { Int($0) } }
        let placeRight = kinds.contains("location") && kinds.contains("photo") && offsets.allSatisfy { $0 == offset }
        let leaked = without.compactMap { $0["utcOffset"] as? String }
        let noneWithout = !without.isEmpty && without.allSatisfy { $0["kind"] as? String == "photo" } && leaked.isEmpty
        return (placeRight && noneWithout,
                "place kept (\(kept?["title"] ?? "none")): \(kinds) at \(offsets.map { $0.map(String.init) ?? "none" }); "
                + "photos alone: \(without.count) items, offsets \(leaked)")
    }
}

extension ConformanceTests {
    @Test("20. an item's local time leaves only with a kept place: +09:00 for a Kyoto afternoon with its place, no offset without",
          arguments: Caller.allCases)
    func localTime(caller: Caller) throws {
        let world = try World(script: KyotoAfternoon.script)
        check(20, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let (planted, why) = try KyotoAfternoon.plant(in: world.pickerd)
            guard planted else { return (false, why) }
            let kept = try world.run(caller, "present").lines.last, unkept = try world.run(caller, "present").lines.last
            return KyotoAfternoon.judge(kept, unkept)
        }
    }
}

extension ClientLibraryConformance {
    @Test("20. an item's local time reaches the app only with a kept place (js_item_get_utc_offset)", arguments: LibraryCaller.allCases)
    func localTime(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: KyotoAfternoon.script)
        checkLibrary(20, caller) {
            let (planted, why) = try KyotoAfternoon.plant(in: world.pickerd)
            guard planted else { return (false, why) }
            let kept = try world.run(caller, "present").last, unkept = try world.run(caller, "present").last
            return KyotoAfternoon.judge(kept, unkept)
        }
    }
}
