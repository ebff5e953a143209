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

    @Test("a photo indexed before pickerd read IPTC/XMP places gets its place on the next scan, same item; then it is left alone")
    func placeReadAgain() throws {
        let temporary = try TemporaryStore()
        let folder = try TemporaryDirectory(prefix: "pkd-generation")
        let jpeg = folder.path + "/IMG_0001.JPG"
        try MediaFixtures.jpeg(at: jpeg, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        try MediaFixtures.writeTags(["-XMP-iptcCore:Location=Princes Rock Lookout", "-XMP-photoshop:City=Wentworth Falls"], to: jpeg)
        let source = try temporary.store.addSource(path: folder.path, timeMs: 0)
        let indexer = SourceIndexer(store: temporary.store)
        _ = try indexer.scan(source)
        var item = try #require(try temporary.store.items().first { $0.kind == .photo })
        #expect(try temporary.store.sourceFiles(of: source.id)[jpeg]?.readBy == SourceFile.readers)

        // What a pickerd before v16 left: the same photo, no place.
        item.filePlaceName = nil
        item.filePlaceCity = nil
        try Self.asOlderPickerdLeft(temporary.store, jpeg, item: item)
        #expect(try temporary.store.items([item.id]).first?.filePlaceName == nil)
        // An unchanged file it had read was left alone by every scan until now.
        let report = try indexer.scan(try #require(try temporary.store.sources().first))
        #expect(report.readAgain == 1 && report.changed == 0 && report.added == 0 && report.unchanged == 0, "\(report)")
        let again = try #require(try temporary.store.items([item.id]).first)
        #expect(again.filePlaceName == "Princes Rock Lookout" && again.filePlaceCity == "Wentworth Falls", "\(again)")
        #expect(try temporary.store.items().filter { $0.kind == .photo }.count == 1, "the same item, not a second")
        #expect(try temporary.store.sourceFiles(of: source.id)[jpeg]?.readBy == SourceFile.readers)
        // Read by today's readers: the next scan leaves it.
        let next = try indexer.scan(try #require(try temporary.store.sources().first))
        #expect(next.readAgain == 0 && next.unchanged == 1, "\(next)")
    }

    @Test("a WebP an older pickerd recorded as a format it did not read is indexed by the next scan")
    func problemReadAgain() throws {
        let temporary = try TemporaryStore()
        let folder = try TemporaryDirectory(prefix: "pkd-generation")
        let webp = folder.path + "/PXL_20240504_101000000.webp"
        try MediaFixtures.webp(at: webp, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        let source = try temporary.store.addSource(path: folder.path, timeMs: 0)
        let indexer = SourceIndexer(store: temporary.store)
        _ = try indexer.scan(source)
        let id = try #require(try temporary.store.items().first { $0.kind == .photo }?.id)

        try Self.asOlderPickerdLeft(temporary.store, webp, item: nil, problem: "a photo format pickerd does not read yet")
        #expect(try temporary.store.items().isEmpty)
        let report = try indexer.scan(try #require(try temporary.store.sources().first))
        #expect(report.readAgain == 1, "\(report)")
        let photo = try #require(try temporary.store.items().first { $0.kind == .photo }, "the WebP indexed")
        #expect(photo.id == id, "the id a file's path gives")
        let record = try #require(try temporary.store.sourceFiles(of: source.id)[webp])
        #expect(record.problem.isEmpty && record.readBy == SourceFile.readers, "\(record)")
    }

    @Test("a file today's readers refuse is not read again by every scan")
    func refusedStaysRefused() throws {
        let temporary = try TemporaryStore()
        let folder = try TemporaryDirectory(prefix: "pkd-generation")
        let cut = folder.path + "/IMG_0002.JPG"
        try MediaFixtures.jpeg(at: cut, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: cut))
        try bytes.prefix(40).write(to: URL(fileURLWithPath: cut))
        let source = try temporary.store.addSource(path: folder.path, timeMs: 0)
        let indexer = SourceIndexer(store: temporary.store)
        let first = try indexer.scan(source)
        #expect(first.skipped.count == 1, "\(first)")
        let record = try #require(try temporary.store.sourceFiles(of: source.id)[cut])
        #expect(!record.problem.isEmpty && record.readBy == SourceFile.readers, "\(record)")
        let next = try indexer.scan(try #require(try temporary.store.sources().first))
        #expect(next.readAgain == 0 && next.unchanged == 1, "\(next)")
    }

    @Test("a photo kept twice, both files read by an older pickerd: read again, still one item with the same file shown")
    func copiesReadAgain() throws {
        let temporary = try TemporaryStore()
        let folder = try TemporaryDirectory(prefix: "pkd-generation")
        try FileManager.default.createDirectory(atPath: folder.path + "/Backup", withIntermediateDirectories: true)
        let original = folder.path + "/IMG_1248.JPG", copy = folder.path + "/Backup/IMG_1248 (1).JPG"
        try MediaFixtures.jpeg(at: original, exif: .init(dateTimeOriginal: "2024:05:04 10:10:00"))
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let source = try temporary.store.addSource(path: folder.path, timeMs: 0)
        let indexer = SourceIndexer(store: temporary.store)
        _ = try indexer.scan(source)
        let item = try #require(try temporary.store.items().first { $0.kind == .photo })
        let before = try temporary.store.sourceFiles(of: source.id)
        #expect(Set(before.values.map(\.role)) == ["photo", "copy"], "\(before)")

        var changes = SourceChanges()
        changes.files = before.values.map { var record = $0; record.readBy = 1; return record }
        try temporary.store.apply(changes)
        let report = try indexer.scan(try #require(try temporary.store.sources().first))
        #expect(report.readAgain == 2 && report.changed == 0, "\(report)")
        let photos = try temporary.store.items().filter { $0.kind == .photo }
        #expect(photos.map(\.id) == [item.id], "one item, the same: \(photos)")
        let after = try temporary.store.sourceFiles(of: source.id)
        #expect(after.mapValues(\.role) == before.mapValues(\.role) && after.values.allSatisfy { $0.readBy == SourceFile.readers }, "\(after)")
    }
}
