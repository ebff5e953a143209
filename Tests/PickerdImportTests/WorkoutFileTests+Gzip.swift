import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

extension WorkoutFileTests {
    // MARK: gzip

    @Test func gzipBoundsAndCorruption() throws {
        let gzipped = try Self.fixture("ride_hudson_greenway.fit.gz")
        let plain = try Self.fixture("ride_hudson_greenway.fit")
        #expect(try WorkoutFiles.gunzip(gzipped, file: "ride.fit.gz") == plain)
        #expect(try WorkoutFiles.gunzip(gzipped, file: "ride.fit.gz", limit: plain.count) == plain)

        let bomb = Self.importError { () throws(ImportError) in
            _ = try WorkoutFiles.gunzip(gzipped, file: "bomb.fit.gz", limit: plain.count - 1)
            return ImportedData()
        }
        #expect(bomb?.file == "bomb.fit.gz")
        #expect(bomb?.message.contains("refused") == true)

        let cut = Array(gzipped.prefix(gzipped.count / 2))
        let truncated = Self.importError { () throws(ImportError) in try FITReader.read(cut, file: "cut.fit.gz") }
        #expect(truncated?.message == "corrupt or truncated gzip data")
        #expect(truncated?.location != nil)

        var badCRC = gzipped
        badCRC[badCRC.count - 6] ^= 0x01  // the gzip trailer's CRC-32
        let crc = Self.importError { () throws(ImportError) in try FITReader.read(badCRC, file: "crc.fit.gz") }
        #expect(crc?.message == "corrupt or truncated gzip data")
    }

    /// A real bomb: 100 MiB of zeros deflate to about 100 KiB; it is refused at 64 MiB.
    @Test func gzipBombIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pkd-bomb-\(getpid()).gz")
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c 104857600 /dev/zero | gzip -1 > '\(url.path)'"]
        try process.run()
        process.waitUntilExit()
        let bomb = Array(try Data(contentsOf: url))
        #expect(bomb.count < 1_000_000)
        let error = Self.importError { () throws(ImportError) in try FITReader.read(bomb, file: "bomb.fit.gz") }
        #expect(error?.message == "gzip data expanding past 64 MiB was refused (a gzip bomb?)")
    }
}
