import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// A Google Photos Takeout laid out as Takeout writes it (`Takeout/Google Photos/<album or "Photos
/// from YYYY">/`, a JSON sidecar beside each photo, names cut to Takeout's length, `(1)` copies,
/// `-edited` versions sharing their original's sidecar, an album's `metadata.json`), indexed as a
/// source: the sidecar's time and place are the photo's where its own file has none, the file's
/// own win where both are, and a broken sidecar is named with its reason.
///
/// The layout follows what the open tools that read Takeouts document: gphotos-321sync's
/// Google_Takeout_Structure.md (papa-vova/gphotos-321sync: field list, `.supplemental-metadat.json`
/// cuts, `NAME.jpg.supplemental-metadata(1).json`, `-edited`/`-bearbeitet`/`-modifié` sharing the
/// original's sidecar) and immich-go's "The Google Photos takeout case" (simulot/immich-go: album
/// `metadata.json` in the person's language).
@Suite("Google Photos Takeout sidecars", .serialized)
struct TakeoutSidecarTests {
    /// A sidecar as Takeout writes it (two-space indent, timestamps as strings of seconds).
    static func sidecar(title: String, taken: Int64?, latitude: Double = 0, longitude: Double = 0,
                        exifLatitude: Double = 0, exifLongitude: Double = 0, people: [String] = [], description: String = "") -> String {
        let peopleJSON = people.isEmpty ? "" : ",\n  \"people\": [" + people.map { "{\n    \"name\": \"\($0)\"\n  }" }.joined(separator: ", ") + "]"
        let takenJSON = taken.map { ",\n  \"photoTakenTime\": {\n    \"timestamp\": \"\($0)\",\n    \"formatted\": \"16 Mar 2026, 08:15:23 UTC\"\n  }" } ?? ""
        return """
            {
              "title": "\(title)",
              "description": "\(description)",
              "imageViews": "3",
              "creationTime": {
                "timestamp": "1773740000",
                "formatted": "17 Mar 2026, 09:33:20 UTC"
              }\(takenJSON),
              "geoData": {
                "latitude": \(latitude),
                "longitude": \(longitude),
                "altitude": 0.0,
                "latitudeSpan": 0.0,
                "longitudeSpan": 0.0
              },
              "geoDataExif": {
                "latitude": \(exifLatitude),
                "longitude": \(exifLongitude),
                "altitude": 0.0,
                "latitudeSpan": 0.0,
                "longitudeSpan": 0.0
              }\(peopleJSON),
              "url": "https://photos.google.com/photo/AF1QipOyLtYKtmMPyLhse9O8lOcWmb6LND5",
              "googlePhotosOrigin": {
                "mobileUpload": {
                  "deviceType": "ANDROID_PHONE"
                }
              }
            }
            """
    }

    @Test("sidecar names are matched as Takeout writes them: cut, (1), older .json, -edited in several languages")
    func matching() {
        let folder = "/t/Takeout/Google Photos/Photos from 2026"
        let long = "PXL_20260316_081523123.PORTRAIT.ORIGINAL.jpg"  // 44 characters
        let files = [
            "IMG_1234.jpg", "IMG_1234.jpg.supplemental-metadata.json",
            "IMG_1234(1).jpg", "IMG_1234.jpg.supplemental-metadata(1).json",
            "IMG_1234-edited.jpg", "IMG_1234-bearbeitet.jpg",
            "DSC_0042.JPG", "DSC_0042.JPG.json",
            "DSC_0043(1).JPG", "DSC_0043.JPG(1).json",
            "IMG_5555-modifié.jpg", "IMG_5555.jpg.supplemental-metadata.json",
            long, long + ".s.json",  // 51 characters: cut inside "supplemental-metadata"
            "Screenshot_20190105-103040_com.google.android.youtube.jpg", "Screenshot_20190105-103040_com.google.android..json",
            "orphan.jpg.supplemental-metadata.json",
        ].map { folder + "/" + $0 } + ["/t/Takeout/Google Photos/Trip/metadata.json", "/t/Takeout/Google Photos/Trip/a.jpg"]
        let found = TakeoutSidecars(files)
        func sidecar(_ name: String) -> String? { found.sidecar[folder + "/" + name].map { String($0.dropFirst(folder.count + 1)) } }
        #expect(sidecar("IMG_1234.jpg") == "IMG_1234.jpg.supplemental-metadata.json")
        #expect(sidecar("IMG_1234(1).jpg") == "IMG_1234.jpg.supplemental-metadata(1).json")
        #expect(sidecar("IMG_1234-edited.jpg") == "IMG_1234.jpg.supplemental-metadata.json")
        #expect(sidecar("IMG_1234-bearbeitet.jpg") == "IMG_1234.jpg.supplemental-metadata.json")
        #expect(sidecar("IMG_5555-modifié.jpg") == "IMG_5555.jpg.supplemental-metadata.json")
        #expect(sidecar("DSC_0042.JPG") == "DSC_0042.JPG.json")
        #expect(sidecar("DSC_0043(1).JPG") == "DSC_0043.JPG(1).json")
        #expect(sidecar(long) == long + ".s.json")
        #expect(sidecar("Screenshot_20190105-103040_com.google.android.youtube.jpg") == "Screenshot_20190105-103040_com.google.android..json")
        #expect(found.unmatched[folder + "/orphan.jpg.supplemental-metadata.json"]?.contains("names no photo") == true, "\(found.unmatched)")
        #expect(found.notMedia.contains("/t/Takeout/Google Photos/Trip/metadata.json"))
        #expect(found.sidecar["/t/Takeout/Google Photos/Trip/a.jpg"] == nil)
    }

    @Test("a sidecar's fields: time as UTC seconds, geoData over geoDataExif, 0/0 no place, people; broken ones named")
    func parsing() throws {
        let (media, people) = try TakeoutSidecar.parse(Array(Self.sidecar(title: "a.jpg", taken: 1_773_648_923, latitude: 52.52, longitude: 13.405,
                                                                           exifLatitude: 48.85, exifLongitude: 2.35, people: ["Ana", "Ben"]).utf8))
        #expect(media.kind == .sidecar)
        #expect(media.takenAtMs == 1_773_648_923_000)
        #expect(media.coordinate?.latitude == 52.52)
        #expect(people == ["Ana", "Ben"])
        let nowhere = try TakeoutSidecar.parse(Array(Self.sidecar(title: "b.jpg", taken: 1_773_648_923).utf8)).media
        #expect(nowhere.coordinate == nil)
        let exifOnly = try TakeoutSidecar.parse(Array(Self.sidecar(title: "c.jpg", taken: nil, exifLatitude: 48.85, exifLongitude: 2.35).utf8)).media
        #expect(exifOnly.coordinate?.latitude == 48.85)
        #expect(exifOnly.takenAtMs == nil)
        #expect(throws: ProbeError.self) { try TakeoutSidecar.parse(Array("not json {".utf8)) }
        #expect(throws: ProbeError.self) { try TakeoutSidecar.parse(Array("[1, 2]".utf8)) }
        #expect(throws: ProbeError.self) {
            try TakeoutSidecar.parse(Array(#"{"title": "d.jpg", "photoTakenTime": {"timestamp": "yesterday"}}"#.utf8))
        }
    }

    @Test("a Takeout indexed: photos without EXIF take the sidecar's time and place, the file's own EXIF wins, broken sidecars named")
    func takeout() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Takeout"
        let year = root + "/Google Photos/Photos from 2026"
        let album = root + "/Google Photos/Berlin in March"
        for folder in [year, album] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // 16 Mar 2026 08:15:23 UTC; Berlin.
        let taken: Int64 = 1_773_648_923
        // Stripped of EXIF by a download: the sidecar is all there is.
        try MediaFixtures.jpeg(at: year + "/IMG_20260316_091523.jpg", seed: 1)
        try Self.sidecar(title: "IMG_20260316_091523.jpg", taken: taken, latitude: 52.52, longitude: 13.405, exifLatitude: 52.52, exifLongitude: 13.405,
                         people: ["Ana"]).write(toFile: year + "/IMG_20260316_091523.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        // The camera's EXIF (Lisbon, its own offset) and a sidecar that disagrees (a date and place the
        // person changed in Google Photos): the file's own word wins.
        try MediaFixtures.jpeg(at: year + "/DSC_0042.JPG", seed: 2,
                               exif: .init(dateTimeOriginal: "2026:03:10 12:00:00", offsetTimeOriginal: "+00:00", latitude: 38.7223, longitude: -9.1393,
                                           make: "FUJIFILM", model: "X100V", exposureTime: 0.004))
        try Self.sidecar(title: "DSC_0042.JPG", taken: taken, latitude: 52.52, longitude: 13.405)
            .write(toFile: year + "/DSC_0042.JPG.json", atomically: true, encoding: .utf8)
        // A name Takeout cut to 51 characters, and a second photo of the same name "(1)".
        let long = "PXL_20260316_081523123.PORTRAIT.ORIGINAL.jpg"
        try MediaFixtures.jpeg(at: album + "/" + long, seed: 3)
        try Self.sidecar(title: long, taken: taken + 60, latitude: 52.5163, longitude: 13.3777)
            .write(toFile: album + "/" + long + ".s.json", atomically: true, encoding: .utf8)
        try MediaFixtures.jpeg(at: album + "/IMG_0001(1).jpg", seed: 4)
        try Self.sidecar(title: "IMG_0001.jpg", taken: taken + 120, latitude: 52.5200, longitude: 13.4094)
            .write(toFile: album + "/IMG_0001.jpg.supplemental-metadata(1).json", atomically: true, encoding: .utf8)
        // The album's own metadata (its title): read as no photo, never named as skipped.
        try """
            {
              "title": "Berlin in March",
              "description": "",
              "access": "protected",
              "date": {
                "timestamp": "1773740000",
                "formatted": "17 Mar 2026, 09:33:20 UTC"
              }
            }
            """.write(toFile: album + "/metadata.json", atomically: true, encoding: .utf8)
        // Broken: not JSON; a time that is not a number; a sidecar that names no photo.
        try MediaFixtures.jpeg(at: album + "/IMG_0002.jpg", seed: 5)
        try "{\"title\": \"IMG_0002.jpg\", \"photoTakenTime\": {".write(toFile: album + "/IMG_0002.jpg.supplemental-metadata.json",
                                                                      atomically: true, encoding: .utf8)
        try MediaFixtures.jpeg(at: album + "/IMG_0003.jpg", seed: 6)
        try #"{"title": "IMG_0003.jpg", "photoTakenTime": {"timestamp": "soon", "formatted": ""}}"#
            .write(toFile: album + "/IMG_0003.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        try Self.sidecar(title: "IMG_9999.jpg", taken: taken).write(toFile: album + "/IMG_9999.jpg.supplemental-metadata.json",
                                                                   atomically: true, encoding: .utf8)
        // A JSON file of some app's that is no sidecar: no photo, not a broken sidecar.
        try "print order 7 {".write(toFile: album + "/print-order.json", atomically: true, encoding: .utf8)

        let source = try store.addSource(path: root, timeMs: 0)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let report = try SourceIndexer(store: store, timeZone: zone).scan(source)
        let skipped = Dictionary(report.skipped.map { ($0.path.replacingOccurrences(of: root + "/Google Photos/", with: ""), $0.reason) },
                                 uniquingKeysWith: { a, _ in a })
        #expect(skipped["Berlin in March/IMG_0002.jpg.supplemental-metadata.json"]?.contains("not JSON") == true, "\(skipped)")
        #expect(skipped["Berlin in March/IMG_0003.jpg.supplemental-metadata.json"]?.contains("not a number") == true, "\(skipped)")
        #expect(skipped["Berlin in March/IMG_9999.jpg.supplemental-metadata.json"]?.contains("names no photo") == true, "\(skipped)")
        #expect(skipped["Berlin in March/metadata.json"] == nil)
        #expect(skipped["Berlin in March/print-order.json"] == "not a photo, video or workout file pickerd reads", "\(skipped)")
        #expect(skipped.count == 4, "\(skipped)")

        let items = try store.items()
        func item(_ name: String) -> LibraryItem? { items.first { $0.media.first?.filename == name } }
        #expect(items.count == 6)
        let stripped = try #require(item("IMG_20260316_091523.jpg"))
        #expect(stripped.startMs == taken * 1000)
        #expect(stripped.coordinate?.latitude == 52.52)
        let camera = try #require(item("DSC_0042.JPG"))
        #expect(camera.startMs == 1_773_144_000_000)  // 2026-03-10 12:00 +00:00, the camera's
        #expect(abs((camera.coordinate?.latitude ?? 0) - 38.7223) < 1e-6)
        #expect(item(long)?.startMs == (taken + 60) * 1000)
        #expect(item(long)?.coordinate?.latitude == 52.5163)
        #expect(item("IMG_0001(1).jpg")?.startMs == (taken + 120) * 1000)
        // A photo whose sidecar is broken is still indexed, with what its file says (its mtime).
        #expect(item("IMG_0002.jpg") != nil)
        #expect(item("IMG_0002.jpg")?.coordinate == nil)

        // A rescan changes nothing.
        let again = try SourceIndexer(store: store, timeZone: zone).scan(source)
        #expect(again.added == 0 && again.changed == 0 && again.removed == 0, "\(again)")
        #expect(try store.items().count == 6)

        // The sidecar changed alone (the person moved the photo's place in Google Photos and took
        // out again): its photo is read again, the same item with the new place.
        let strippedSidecar = year + "/IMG_20260316_091523.jpg.supplemental-metadata.json"
        try Self.sidecar(title: "IMG_20260316_091523.jpg", taken: taken, latitude: 48.8566, longitude: 2.3522)
            .write(toFile: strippedSidecar, atomically: true, encoding: .utf8)
        let moved = try SourceIndexer(store: store, timeZone: zone).scan(source)
        #expect(moved.changed == 1 && moved.added == 0 && moved.removed == 0, "\(moved)")
        #expect(try store.items().first { $0.id == stripped.id }?.coordinate?.latitude == 48.8566)
        // Deleted alone: the photo is read again without it, and what only the sidecar said leaves.
        try FileManager.default.removeItem(atPath: strippedSidecar)
        let without = try SourceIndexer(store: store, timeZone: zone).scan(source)
        #expect(without.changed == 1 && without.removed == 0, "\(without)")
        let alone = try #require(try store.items().first { $0.id == stripped.id })
        #expect(alone.coordinate == nil)
        #expect(alone.startMs != taken * 1000)
    }

    @Test("the person's XMP names win; the sidecar's people fill a photo that names no one")
    func people() {
        var media = ProbedMedia(kind: .photo, contentType: "image/jpeg")
        var people: [String] = []
        var side = ProbedMedia(kind: .sidecar, contentType: "application/json")
        side.takenAtMs = 1_000
        side.coordinate = Coordinate(latitude: 1, longitude: 2)
        TakeoutSidecars.complete(&media, people: &people, from: side, people: ["Ana"])
        #expect(people == ["Ana"] && media.takenAtMs == 1_000 && media.coordinate?.latitude == 1)
        var named = ["Ben"]
        var dated = ProbedMedia(kind: .photo, contentType: "image/jpeg")
        dated.takenAtMs = 5_000
        TakeoutSidecars.complete(&dated, people: &named, from: side, people: ["Ana"])
        #expect(named == ["Ben"] && dated.takenAtMs == 5_000)
    }
}
