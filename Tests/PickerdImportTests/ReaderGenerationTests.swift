import Foundation
@testable import PickerdImport
import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A library indexed by an older pickerd: files its readers read before they took a photo's place,
/// or could not read at all (a WebP before issue 41), are read again by the next scan, however
/// unchanged, and keep their items (``SourceFile/readBy``).
@Suite("Files an older pickerd read")
struct ReaderGenerationTests {
    /// Makes `path`'s record and item what a pickerd of reader generation 1 left: the record marked
    /// read by it, and `item` as that pickerd wrote it (`nil`: none; the record then says why).
    static func asOlderPickerdLeft(_ store: Store, _ path: String, item: LibraryItem?, problem: String = "") throws {
        let source = try #require(try store.sources().first)
        var record = try #require(try store.sourceFiles(of: source.id)[path])
        var changes = SourceChanges()
        record.readBy = 1
        if let item {
            changes.items = [item]
        } else {
            if let id = record.itemID { changes.removedItems = [id] }
            record.itemID = nil
            record.role = ""
            record.problem = problem
        }
        changes.files = [record]
        try store.apply(changes)
    }

    /// A store whose one source is a new folder, its files made by `make` (given the folder's
    /// path), scanned once.
    struct Library {
        let temporary: TemporaryStore, folder: TemporaryDirectory, source: Source, indexer: SourceIndexer, first: ScanReport
        var store: Store { temporary.store }

        init(_ make: (String) throws -> Void) throws {
            temporary = try TemporaryStore()
            folder = try TemporaryDirectory(prefix: "pkd-generation")
            try make(folder.path)
            source = try temporary.store.addSource(path: folder.path, timeMs: 0)
            indexer = SourceIndexer(store: temporary.store)
            first = try indexer.scan(source)
        }

        /// Scans the source again.
        func rescan() throws -> ScanReport { try indexer.scan(try #require(try store.sources().first)) }
    }

    @Test("a photo indexed before pickerd read IPTC/XMP places gets its place on the next scan, same item; then it is left alone")
    func placeReadAgain() throws {
        var jpeg = ""
        let library = try Library { folder in
            jpeg = folder + "/IMG_0001.JPG"
            try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
            try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Princes Rock Lookout", "-XMP-photoshop:City=Wentworth Falls"], to: jpeg)
        }
        let store = library.store
        var item = try #require(try store.items().first { $0.kind == .photo })
        #expect(try store.sourceFiles(of: library.source.id)[jpeg]?.readBy == SourceFile.readers)

        // What a pickerd before v16 left: the same photo, no place.
        item.filePlaceName = nil
        item.filePlaceCity = nil
        try Self.asOlderPickerdLeft(store, jpeg, item: item)
        #expect(try store.items([item.id]).first?.filePlaceName == nil)
        // An unchanged file it had read was left alone by every scan until now.
        let report = try library.rescan()
        #expect(report.readAgain == 1 && report.changed == 0 && report.added == 0 && report.unchanged == 0, "\(report)")
        let again = try #require(try store.items([item.id]).first)
        #expect(again.filePlaceName == "Princes Rock Lookout" && again.filePlaceCity == "Wentworth Falls", "\(again)")
        #expect(try store.items().filter { $0.kind == .photo }.count == 1, "the same item, not a second")
        #expect(try store.sourceFiles(of: library.source.id)[jpeg]?.readBy == SourceFile.readers)
        // Read by today's readers: the next scan leaves it.
        let next = try library.rescan()
        #expect(next.readAgain == 0 && next.unchanged == 1, "\(next)")
    }

    @Test("a WebP an older pickerd recorded as a format it did not read is indexed by the next scan")
    func problemReadAgain() throws {
        var webp = ""
        let library = try Library { folder in
            webp = folder + "/PXL_20240504_101000000.webp"
            try MediaFixtures.webp(at: webp, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        }
        let store = library.store
        let id = try #require(try store.items().first { $0.kind == .photo }?.id)

        try Self.asOlderPickerdLeft(store, webp, item: nil, problem: "a photo format pickerd does not read yet")
        #expect(try store.items().isEmpty)
        let report = try library.rescan()
        #expect(report.readAgain == 1, "\(report)")
        let photo = try #require(try store.items().first { $0.kind == .photo }, "the WebP indexed")
        #expect(photo.id == id, "the id a file's path gives")
        let record = try #require(try store.sourceFiles(of: library.source.id)[webp])
        #expect(record.problem.isEmpty && record.readBy == SourceFile.readers, "\(record)")
    }

    @Test("a file today's readers refuse is not read again by every scan")
    func refusedStaysRefused() throws {
        var cut = ""
        let library = try Library { folder in
            cut = folder + "/IMG_0002.JPG"
            try MediaFixtures.jpeg(at: cut, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: cut))
            try bytes.prefix(40).write(to: URL(fileURLWithPath: cut))
        }
        #expect(library.first.skipped.count == 1, "\(library.first)")
        let record = try #require(try library.store.sourceFiles(of: library.source.id)[cut])
        #expect(!record.problem.isEmpty && record.readBy == SourceFile.readers, "\(record)")
        let next = try library.rescan()
        #expect(next.readAgain == 0 && next.unchanged == 1, "\(next)")
    }

    @Test("a photo kept twice, both files read by an older pickerd: read again, still one item with the same file shown")
    func copiesReadAgain() throws {
        let library = try Library { folder in
            try FileManager.default.createDirectory(atPath: folder + "/Backup", withIntermediateDirectories: true)
            try MediaFixtures.jpeg(at: folder + "/IMG_1248.JPG", exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
            try FileManager.default.copyItem(atPath: folder + "/IMG_1248.JPG", toPath: folder + "/Backup/IMG_1248 (1).JPG")
        }
        let store = library.store
        let item = try #require(try store.items().first { $0.kind == .photo })
        let before = try store.sourceFiles(of: library.source.id)
        #expect(Set(before.values.map(\.role)) == ["photo", "copy"], "\(before)")

        var changes = SourceChanges()
        changes.files = before.values.map { var record = $0; record.readBy = 1; return record }
        try store.apply(changes)
        let report = try library.rescan()
        #expect(report.readAgain == 2 && report.changed == 0, "\(report)")
        let photos = try store.items().filter { $0.kind == .photo }
        #expect(photos.map(\.id) == [item.id], "one item, the same: \(photos)")
        let after = try store.sourceFiles(of: library.source.id)
        #expect(after.mapValues(\.role) == before.mapValues(\.role) && after.values.allSatisfy { $0.readBy == SourceFile.readers }, "\(after)")
    }
}
