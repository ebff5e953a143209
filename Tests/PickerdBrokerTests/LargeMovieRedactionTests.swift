import Foundation
@testable import PickerdBroker
import PickerdTestKit
import PickerdTransport
import SystemPackage
import Testing

/// A person's video of tens of megabytes is redacted without reading its media data into memory,
/// and gives exactly the bytes the whole-file redaction gives.
@Suite("Large movies: location redacted from moov alone")
struct LargeMovieRedactionTests {
    @Test("a 19 MB MOV of noise: the streamed copy with moov redacted equals the whole-file redaction, byte for byte, and says nowhere where")
    func largeMovie() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-bigmov")
        let path = directory.path + "/IMG_0100.MOV"
        try MediaFixtures.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=4:size=640x480:rate=10",
                                         "-vf", "noise=alls=100:allf=t", "-c:v", "mpeg4", "-q:v", "1", "-movflags", "use_metadata_tags",
                                         "-metadata", "com.apple.quicktime.location.ISO6709=+45.5000-122.6000/",
                                         "-metadata", "com.apple.quicktime.creationdate=2024-05-04T10:11:13+0200", path])
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(original.count >= LargeMovieRedaction.threshold, "the fixture is \(original.count) bytes")

        let fd = try FileDescriptor.open(path, .readOnly)
        defer { try? fd.close() }
        let copy = try #require(try LargeMovieRedaction.redactedCopy(of: fd, name: "IMG_0100.MOV"))
        #expect(try SealedMemoryFile.seals(of: copy.descriptor!) == .all)
        let out = directory.path + "/released.MOV"
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try copy.descriptor!.read(into: $0) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        #expect(bytes == (try ExifRedactor.strippingLocation(original)), "the streamed path and the whole-file path agree")
        #expect(bytes != original, "something was redacted")
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error", "-show_format", out])
        #expect(probe.status == 0)
        #expect(!probe.stdout.contains("ISO6709") && !probe.stdout.contains("45.5"), "\(probe.stdout)")
        #expect(probe.stdout.contains("com.apple.quicktime.creationdate=2024-05-04T10:11:13+0200"))
    }

    @Test("a small file, or a file that is not a movie, is left to the whole-file redaction")
    func notForSmallFiles() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-smallmov")
        let path = directory.path + "/clip.mov"
        try MediaFixtures.clip(at: path, seconds: 1, iso6709: "+45.5000-122.6000/")
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { try? fd.close() }
        #expect(try LargeMovieRedaction.redactedCopy(of: fd, name: "clip.mov") == nil)
    }
}
