import Foundation
import PickerdImport
import PickerdMoments
import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// One photo however many files hold it (issue 41): copies of the same bytes anywhere in the
/// source, and an edited version beside its original, are one item; which file shows it does not
/// change on a rescan, and a copy that goes leaves the item in place.
@Suite("One item per photo: copies and edited versions", .serialized)
struct PhotoCopiesTests {
    static func lisbon(_ time: String) -> MediaFixtures.Exif { SourceIndexerTests.lisbon(time) }

    /// The photo items, by the name of the file each shows.
    func photos(_ store: Store) throws -> [String: LibraryItem] {
        Dictionary(uniqueKeysWithValues: try store.items().filter { $0.kind == .photo }.map {
            ((($0.media.first?.relativePath ?? "") as NSString).lastPathComponent, $0)
        })
    }

    /// The files recorded for an item, by path relative to `root`, with their roles.
    func files(_ store: Store, _ item: LibraryItem, root: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try store.sourceFiles(ofItem: item.id).map { ($0.path.replacingOccurrences(of: root + "/", with: ""), $0.role) })
    }

    @Test("byte-identical copies in three folders are one item; a rescan keeps the file shown; the shown file deleted, a copy shows the same item")
    func identicalCopies() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        let fm = FileManager.default
        for folder in ["Takeout/Photos from 2024", "Takeout/Lisbon", "Backup"] {
            try fm.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let original = root + "/Takeout/Photos from 2024/IMG_0001.jpg"
        try MediaFixtures.jpeg(at: original, seed: 1, exif: Self.lisbon("10:00"))
        try fm.copyItem(atPath: original, toPath: root + "/Takeout/Lisbon/IMG_0001.jpg")
        try fm.copyItem(atPath: original, toPath: root + "/Backup/IMG_0001 (1).jpg")
        // Same size, one byte different near the end (inside the image data): another photo.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        bytes[bytes.count - 10] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/Takeout/Photos from 2024/IMG_0002.jpg"))

        let source = try store.addSource(path: root, timeMs: 0)
        let indexer = SourceIndexer(store: store)
        let first = try indexer.scan(source)
        #expect(first.skipped.isEmpty, "\(first.skipped)")
        var items = try photos(store)
        #expect(items.count == 2, "the three copies are one item; the photo of the same size another: \(items.keys.sorted())")
        let item = try #require(items["IMG_0001 (1).jpg"], "the first in path order shows it: \(items.keys.sorted())")
        #expect(try files(store, item, root: root) == ["Backup/IMG_0001 (1).jpg": "photo", "Takeout/Lisbon/IMG_0001.jpg": "copy",
                                                       "Takeout/Photos from 2024/IMG_0001.jpg": "copy"])
        #expect(items["IMG_0002.jpg"] != nil)

        // A rescan reads nothing and changes nothing.
        let again = try indexer.scan(source)
        #expect(again.unchanged == 4 && again.added == 0 && again.changed == 0)
        #expect(try photos(store)["IMG_0001 (1).jpg"]?.id == item.id)

        // A copy that is not shown goes: the item stays as it was.
        try fm.removeItem(atPath: root + "/Takeout/Lisbon/IMG_0001.jpg")
        let lessOne = try indexer.scan(source)
        #expect(lessOne.removed == 1)
        items = try photos(store)
        #expect(items["IMG_0001 (1).jpg"]?.id == item.id)
        #expect(try files(store, item, root: root) == ["Backup/IMG_0001 (1).jpg": "photo", "Takeout/Photos from 2024/IMG_0001.jpg": "copy"])

        // The shown file goes: the remaining copy shows the same item (same id, date and place).
        try fm.removeItem(atPath: root + "/Backup/IMG_0001 (1).jpg")
        _ = try indexer.scan(source)
        items = try photos(store)
        #expect(items.count == 2, "\(items.keys.sorted())")
        let shown = try #require(items["IMG_0001.jpg"])
        #expect(shown.id == item.id, "the item keeps its id")
        #expect(shown.startMs == item.startMs)
        #expect(try files(store, shown, root: root) == ["Takeout/Photos from 2024/IMG_0001.jpg": "photo"])

        // The engine suggests the photo once.
        _ = try MomentEngine(store: store).refresh(touching: [0...Int64.max / 2])
        for suggestion in try store.suggestions() {
            #expect(Set(suggestion.itemIDs).count == suggestion.itemIDs.count)
        }
    }

    @Test("an edited version and its original are one item showing the edit; an edit without EXIF has its original's date and place")
    func editedVersions() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Google Photos: the edit saved without EXIF (a Takeout download).
        try MediaFixtures.jpeg(at: root + "/IMG_1234.jpg", seed: 3, exif: Self.lisbon("10:00"))
        try MediaFixtures.jpeg(at: root + "/IMG_1234-edited.jpg", seed: 4)
        // iOS: IMG_E0005.JPG is the edit of IMG_0005.HEIC.
        try MediaFixtures.heic(at: root + "/IMG_0005.HEIC", seed: 5, exif: Self.lisbon("11:00"))
        try MediaFixtures.jpeg(at: root + "/IMG_E0005.JPG", seed: 6, exif: Self.lisbon("11:00"))
        // Not an edit: a name that only contains the word.
        try MediaFixtures.jpeg(at: root + "/edited-by-hand.jpg", seed: 7, exif: Self.lisbon("12:00"))

        let source = try store.addSource(path: root, timeMs: 0)
        _ = try SourceIndexer(store: store).scan(source)
        let items = try photos(store)
        #expect(Set(items.keys) == ["IMG_1234-edited.jpg", "IMG_E0005.JPG", "edited-by-hand.jpg"], "\(items.keys.sorted())")
        let google = try #require(items["IMG_1234-edited.jpg"])
        #expect(google.startMs == 1_714_813_200_000, "the original's date: 2024-05-04 10:00 +01:00")
        #expect(abs((google.coordinate?.latitude ?? 0) - 38.7223) < 0.0001, "the original's place")
        #expect(try files(store, google, root: root) == ["IMG_1234-edited.jpg": "photo", "IMG_1234.jpg": "original"])
        let apple = try #require(items["IMG_E0005.JPG"])
        #expect(try files(store, apple, root: root) == ["IMG_E0005.JPG": "photo", "IMG_0005.HEIC": "original"])
    }

    @Test("an edit found after its original takes the original's item; an original found after its edit joins the edit's")
    func editsAcrossScans() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: root + "/IMG_3000.jpg", seed: 8, exif: Self.lisbon("09:00"))
        try MediaFixtures.jpeg(at: root + "/IMG_4000-edited.jpg", seed: 9, exif: Self.lisbon("09:30"))
        let source = try store.addSource(path: root, timeMs: 0)
        let indexer = SourceIndexer(store: store)
        _ = try indexer.scan(source)
        let before = try photos(store)
        let original = try #require(before["IMG_3000.jpg"])
        let edit = try #require(before["IMG_4000-edited.jpg"])

        try MediaFixtures.jpeg(at: root + "/IMG_3000-edited.jpg", seed: 10, exif: Self.lisbon("09:00"))
        try MediaFixtures.jpeg(at: root + "/IMG_4000.jpg", seed: 11, exif: Self.lisbon("09:30"))
        _ = try indexer.scan(source)
        let after = try photos(store)
        #expect(Set(after.keys) == ["IMG_3000-edited.jpg", "IMG_4000-edited.jpg"], "\(after.keys.sorted())")
        #expect(after["IMG_3000-edited.jpg"]?.id == original.id, "the edit shows the original's item")
        #expect(after["IMG_4000-edited.jpg"]?.id == edit.id, "the original joins its edit's item")
        #expect(try files(store, try #require(after["IMG_3000-edited.jpg"]), root: root) == ["IMG_3000-edited.jpg": "photo", "IMG_3000.jpg": "original"])
        #expect(try files(store, try #require(after["IMG_4000-edited.jpg"]), root: root) == ["IMG_4000-edited.jpg": "photo", "IMG_4000.jpg": "original"])

        // A rescan changes nothing.
        let again = try indexer.scan(source)
        #expect(again.added == 0 && again.changed == 0 && again.removed == 0)
        #expect(try photos(store).mapValues(\.id) == after.mapValues(\.id))
    }
}
