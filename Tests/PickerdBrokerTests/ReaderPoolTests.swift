import Foundation
import Glibc
import Logging
@testable import PickerdBroker
import PickerdImport
import PickerdChecksum
import PickerdReaders
import PickerdTestKit
import Synchronization
import Testing

/// pickerd's pool of confined readers (issue 28), driven directly: a file that blows a reader up
/// costs that file, the next gets a new reader, and this process's memory never holds the decode.
@Suite("The confined readers' pool")
struct ReaderPoolTests {
    static func pool(memoryMiB: Int, cpuSeconds: Double = 30) -> ReaderPool {
        var configuration = ReaderPool.Configuration(executable: BuiltProducts.url("pickerd-reader").path, count: 1, timeZone: "UTC")
        configuration.maxResidentBytes = memoryMiB << 20
        configuration.maxDataMiB = UInt64(memoryMiB) * 4
        configuration.cpuSeconds = cpuSeconds
        return ReaderPool(configuration: configuration, logger: Logger(label: "test"))
    }

    @Test("an 81-megapixel PNG of 300 KB costs that file: its reader is killed past its memory; a JPEG after it is drawn by a new reader")
    func hugePreview() throws {
        let folder = NSTemporaryDirectory() + "pickerd-pool-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let huge = folder + "/huge.png", small = folder + "/small.jpg"
        try MediaFixtures.flatPNG(at: huge, side: 9000)
        try MediaFixtures.jpeg(at: small, width: 640, height: 480)

        let pool = Self.pool(memoryMiB: 160)
        defer { pool.stop() }
        let before = peakResidentMiB()
        var refused: ProbeError?
        do {
            _ = try pool.preview(path: huge, contentType: "image/png", maxSide: 320)
        } catch {
            refused = error
        }
        let error = try #require(refused, "a 300 MB decode fitted in a 160 MiB reader")
        #expect(error.message.contains("its reader ran past its memory"), "\(error)")
        #expect(pool.started.load(ordering: .relaxed) == 1)
        let png = try pool.preview(path: small, contentType: "image/jpeg", maxSide: 320)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(pool.started.load(ordering: .relaxed) == 2)
        // The decode itself needs at least 81 million pixels × 3 bytes (232 MiB): growing by less
        // than that shows it happened elsewhere. The peak is the whole test process's, and the tests
        // running beside this one (a gazetteer with its small places is 44 MB) may raise it too.
        #expect(peakResidentMiB() - before < 200, "this process grew from \(before) to \(peakResidentMiB()) MiB")
    }

    @Test("a reader's answers come back whole: a photo probed, a missing file named, the same reader reused")
    func probes() throws {
        let folder = NSTemporaryDirectory() + "pickerd-pool-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MediaFixtures.jpeg(at: folder + "/a.jpg", exif: .init(dateTimeOriginal: "2024:05:04 10:00:00", latitude: 52.52, longitude: 13.405))
        let pool = Self.pool(memoryMiB: 256)
        defer { pool.stop() }
        let (media, _) = try pool.probe(path: folder + "/a.jpg", timeZone: TimeZone(identifier: "Europe/Berlin")!, readPeople: true)
        let unconfined = try InProcessReading().probe(path: folder + "/a.jpg", timeZone: TimeZone(identifier: "Europe/Berlin")!, readPeople: true).media
        #expect(media == unconfined)
        #expect(throws: ProbeError.self) { try pool.probe(path: folder + "/gone.jpg", timeZone: .current, readPeople: false) }
        _ = try pool.probe(path: folder + "/a.jpg", timeZone: .current, readPeople: false)
        #expect(pool.started.load(ordering: .relaxed) == 1)
    }

    /// A zip of stored entries (names and bytes), as `zip -0` writes one.
    static func storedZip(_ entries: [(String, [UInt8])]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        var body: [UInt8] = [], central: [UInt8] = []
        for (name, bytes) in entries {
            let crc = Int(CRC32.checksum(bytes)), nameBytes = Array(name.utf8), offset = body.count
            let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc) + le32(bytes.count) + le32(bytes.count) + le16(nameBytes.count) + le16(0)
            body += le32(0x0403_4B50) + common + nameBytes + bytes
            central += le32(0x0201_4B50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + nameBytes
        }
        return body + central + le32(0x0605_4B50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
            + le32(central.count) + le32(body.count) + le16(0)
    }

    @Test("an Apple Health export.zip with 300 route files is read by one confined reader (64 descriptors at most), export.xml streamed from the zip, as in process")
    func healthExportZip() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/PickerdImportTests/Fixtures"
        let xml = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + "/apple_health_export/export.xml")))
        let route = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + "/apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx")))
        // The run's route, and 299 routes of workouts the export does not list (more files than a reader may hold open).
        var entries = [("apple_health_export/export.xml", xml), ("apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx", route)]
        for index in 0..<299 { entries.append(("apple_health_export/workout-routes/route_\(index).gpx", route)) }
        let folder = NSTemporaryDirectory() + "pickerd-pool-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let zip = folder + "/export.zip"
        try Data(Self.storedZip(entries)).write(to: URL(fileURLWithPath: zip))

        let pool = Self.pool(memoryMiB: 256)
        defer { pool.stop() }
        let confined = pool.export(path: zip, name: "export.zip", names: [:], nowMs: nil, granted: { _ in false }) { _ in }
        let unconfined = InProcessReading().export(path: zip, name: "export.zip", names: [:], nowMs: nil, granted: { _ in true }) { _ in }
        let health = try #require(confined.first { $0.kind == "apple-health" }, "\(confined.map { "\($0.file) \($0.kind) \($0.error ?? "")" })")
        #expect(health.error == nil)
        #expect(health.data?.workouts.count == 4)
        #expect(health.data?.workouts.first?.route.count == 66)
        let same = try #require(unconfined.first { $0.kind == "apple-health" })
        #expect(health.data?.workouts == same.data?.workouts)
        #expect(health.data?.motion == same.data?.motion)
        // The routes are the export's, not GPX files of their own: one file read.
        #expect(confined.count == 1, "\(confined.map(\.file))")
        #expect(unconfined.count == 1, "\(confined.map(\.file))")
    }
}
