import Foundation
import Glibc
import Logging
@testable import PickerdBroker
import PickerdImport
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
        #expect(peakResidentMiB() - before < 64, "this process grew from \(before) to \(peakResidentMiB()) MiB")
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
}
