import Foundation
import PickerdDemoLibrary
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

@Suite("The demo library's media are real files")
struct MediaTests {
    /// The demo library seeded once into a temporary store, for every test of this suite.
    static let seeded: TemporaryStore = {
        let temporary = try! TemporaryStore()
        try! DemoLibrary.seed(into: temporary.store)
        return temporary
    }()
    var store: Store { Self.seeded.store }

    func files(_ contentType: String) throws -> [(StoredMedia, [UInt8])] {
        var seen = Set<String>()
        return try store.items().flatMap(\.media).filter { $0.contentType == contentType && seen.insert($0.relativePath).inserted }
            .map { ($0, [UInt8](FileManager.default.contents(atPath: store.path(of: $0)) ?? Data())) }
    }

    @Test("every PNG is well formed: signature, chunk CRCs, IHDR size as recorded, IEND last")
    func pngs() throws {
        let pngs = try files("image/png")
        #expect(pngs.count > 40)
        for (media, bytes) in pngs {
            #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(UInt64(bytes.count) == media.byteCount)
            var offset = 8
            var types: [String] = []
            while offset + 12 <= bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                types.append(type)
                if type == "IHDR" {
                    let w = bytes[(offset + 8)..<(offset + 12)].reduce(0) { $0 << 8 | Int($1) }
                    #expect(UInt32(w) == media.pixelWidth)
                }
                offset += 12 + length
            }
            #expect(offset == bytes.count)
            #expect(types.first == "IHDR" && types.last == "IEND" && types.contains("IDAT"))
        }
    }

    @Test("photos carry EXIF that exiftool reads: the capture date, and GPS where the place is known")
    func exif() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            Issue.record("exiftool is missing: run Tools/setup")
            return
        }
        let photo = try #require(try store.items().first { $0.kind == .photo })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = ["-n", "-s", "-DateTimeOriginal", "-GPSLatitude", "-GPSLongitude", store.path(of: photo.media[0])]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("DateTimeOriginal                : 2026:11:"))
        #expect(text.contains("GPSLatitude                     : 40.8"))
        #expect(text.contains("GPSLongitude                    : 73.9") || text.contains("GPSLongitude                    : -73.9"))
    }

    @Test("videos and Live Photo clips are YUV4MPEG2 with whole frames")
    func videos() throws {
        let clips = try files("video/x-yuv4mpeg2")
        #expect(clips.count >= 7)
        for (media, bytes) in clips {
            let header = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
            #expect(header.hasPrefix("YUV4MPEG2 W\(media.pixelWidth) H\(media.pixelHeight) F10:1"))
            let frameBytes = 6 + Int(media.pixelWidth * media.pixelHeight) * 3 / 2
            #expect((bytes.count - header.utf8.count - 1) % frameBytes == 0)
        }
    }
}
