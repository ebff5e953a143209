import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import Testing

/// Pictures a messaging app saved without a camera's metadata, and images that do not decode, are
/// indexed but kept out of suggestions, each with its reason; the person's own photos in the same
/// places, and JPEGs with data after their end, stay memories.
@Suite("Not memories: messaging images and images that do not decode")
struct NotAMemoryTests {
    static let camera = MediaFixtures.Exif(dateTimeOriginal: "2024:05:04 10:11:12", offsetTimeOriginal: "+02:00",
                                           make: "Google", model: "Pixel 7", exposureTime: 0.01)

    /// The offset of a JPEG's first SOS marker (FF DA), where its image data begins.
    static func startOfScan(_ bytes: Data) throws -> Int {
        let b = [UInt8](bytes)
        return try #require(b.indices.dropLast().first { b[$0] == 0xFF && b[$0 + 1] == 0xDA })
    }

    static func classify(_ path: String) throws -> NotAMemory? {
        NotAMemoryRules.classify(try MediaProbe.probe(path: path), path: path)
    }

    @Test("a WhatsApp-named JPEG without camera EXIF is a messaging image; with a camera's make and model it is the person's photo")
    func whatsAppImages() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-nam")
        let bare = dir.path + "/IMG-20240504-WA0003.jpg"
        try MediaFixtures.jpeg(at: bare, width: 800, height: 600, exif: .init(dateTimeOriginal: "2024:05:04 10:11:12"))
        #expect(try Self.classify(bare) == .messagingImage)

        let own = dir.path + "/IMG-20240504-WA0004.jpg"
        try MediaFixtures.jpeg(at: own, width: 800, height: 600, exif: Self.camera)
        #expect(try Self.classify(own) == nil, "a camera's photo sent through WhatsApp is the person's own")

        // The same bare file under a camera's name is not a messaging image (it is not a screen's
        // size, nor a PNG, so it stays).
        let plain = dir.path + "/IMG_20240504_101112.jpg"
        try FileManager.default.copyItem(atPath: bare, toPath: plain)
        #expect(try Self.classify(plain) == nil)
    }

    @Test("a WhatsApp video without a maker, and files in a Telegram or Signal folder without one, are messaging images")
    func messagingVideosAndFolders() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-nam")
        let video = dir.path + "/VID-20240504-WA0001.mp4"
        try MediaFixtures.clip(at: video, seconds: 1, creationDate: "2024-05-04T10:11:12+0200")
        #expect(try Self.classify(video) == .messagingImage)
        let ownVideo = dir.path + "/VID-20240504-WA0002.mp4"
        try MediaFixtures.clip(at: ownVideo, seconds: 1, creationDate: "2024-05-04T10:11:12+0200", make: "Apple")
        #expect(try Self.classify(ownVideo) == nil)

        for folder in ["Telegram/Telegram Images", "Signal", "WhatsApp/Media/WhatsApp Images/Sent"] {
            try FileManager.default.createDirectory(atPath: dir.path + "/" + folder, withIntermediateDirectories: true)
            let path = dir.path + "/" + folder + "/1234567890_5.jpg"
            try MediaFixtures.jpeg(at: path, width: 800, height: 600)
            #expect(try Self.classify(path) == .messagingImage, "\(folder)")
        }
    }

    @Test("messaging apps' file names are told from cameras' names", arguments: [
        ("IMG-20240504-WA0001.jpg", true), ("VID-20240504-WA0012.mp4", true), ("IMG-20240504-WA0001 (1).jpeg", true),
        ("photo_2024-05-04_12-30-45.jpg", true), ("video_2024-05-04_12-30-45.mp4", true),
        ("signal-2024-05-04-123045.jpg", true), ("signal-2024-05-04-12-30-45-123.jpeg", true),
        ("received_1234567890123456.jpeg", true),
        ("IMG_20240504_123045.jpg", false), ("IMG_0001.JPG", false), ("PXL_20240504_103045123.jpg", false),
        ("photo_of_the_bay.jpg", false), ("signal-flare.jpg", false), ("IMG-2024-WA.jpg", false), ("DSC01234.JPG", false),
    ])
    func names(name: String, messaging: Bool) {
        #expect(NotAMemoryRules.savedByAMessagingApp("/home/p/Pictures/2024/" + name) == messaging)
    }

    @Test("a real JPEG cut inside its image data probes (its EXIF is whole) but is undecodable, baseline and progressive")
    func truncatedJPEG() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-nam")
        for progressive in [false, true] {
            let whole = dir.path + "/whole-\(progressive).jpg"
            try MediaFixtures.run("convert", ["-size", "640x480", "plasma:fractal", "-seed", "7"] + (progressive ? ["-interlace", "Plane"] : [])
                                  + ["-quality", "90", whole])
            try MediaFixtures.writeExif(Self.camera, to: whole)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
            let scan = try Self.startOfScan(bytes)
            #expect(bytes.count - scan > 20_000, "enough image data to cut inside")
            #expect(try Self.classify(whole) == nil)

            for cut in [scan + 1_000, (scan + bytes.count) / 2, bytes.count - 1] {
                let path = dir.path + "/cut-\(progressive)-\(cut).jpg"
                try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
                let media = try MediaProbe.probe(path: path)
                #expect(media.takenAtMs == 1_714_810_272_000, "the metadata is whole")
                #expect(media.make == "Google")
                #expect(media.imageDataEndsEarly, "progressive \(progressive), cut at \(cut) of \(bytes.count)")
                #expect(NotAMemoryRules.classify(media, path: path) == .undecodable)
            }
            // Cut and padded with zeros to its full size, as an interrupted download leaves it.
            let padded = dir.path + "/padded-\(progressive).jpg"
            try (bytes.prefix((scan + bytes.count) / 2) + Data(count: bytes.count / 2)).write(to: URL(fileURLWithPath: padded))
            #expect(try Self.classify(padded) == .undecodable)
        }
    }

    @Test("a HEIC cut inside its image data (its mdat) is refused by libheif, which checks every item's extent: skipped with its reason")
    func truncatedHEIC() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-nam")
        let whole = dir.path + "/IMG_0100.HEIC"
        try MediaFixtures.heic(at: whole, width: 640, height: 480, exif: Self.camera)
        #expect(try Self.classify(whole) == nil)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        // The mdat box: its header's type at offset + 4.
        let mdat = try #require(bytes.indices.dropLast(8).first { bytes[$0 + 4] == 0x6D && bytes[$0 + 5] == 0x64 && bytes[$0 + 6] == 0x61 && bytes[$0 + 7] == 0x74 })
        let cut = dir.path + "/IMG_0101.HEIC"
        try Data(bytes.prefix((mdat + bytes.count) / 2)).write(to: URL(fileURLWithPath: cut))
        #expect(throws: ProbeError.self) { try MediaProbe.probe(path: cut) }
        do {
            _ = try MediaProbe.probe(path: cut)
        } catch {
            #expect(error.kind == .corrupt, "\(error)")
            #expect(error.message.hasPrefix("HEIC: "), "\(error)")
        }
    }

    @Test("a JPEG with data after its end (a motion photo's video, a camera's padding) is whole")
    func trailingData() throws {
        let dir = try TemporaryDirectory(prefix: "pkd-nam")
        let whole = dir.path + "/PXL_20240504_101112.jpg"
        try MediaFixtures.run("convert", ["-size", "640x480", "plasma:fractal", "-seed", "3", "-interlace", "Plane", whole])
        try MediaFixtures.writeExif(Self.camera, to: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let clip = dir.path + "/clip.mp4"
        try MediaFixtures.clip(at: clip, seconds: 2)
        var generator = SplitMix(seed: 11)
        let trailers: [(String, Data)] = [
            ("motion", try Data(contentsOf: URL(fileURLWithPath: clip))),
            ("zeros", Data(count: 4_096)),
            ("noise", Data((0..<300_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })),
            ("ffd9-less-tail", Data([0xFF, 0xD8, 0x00, 0x01])),
        ]
        for (name, trailer) in trailers {
            let path = dir.path + "/\(name).MP.jpg"
            try (bytes + trailer).write(to: URL(fileURLWithPath: path))
            let media = try MediaProbe.probe(path: path)
            #expect(!media.imageDataEndsEarly, "\(name)")
            #expect(NotAMemoryRules.classify(media, path: path) == nil, "\(name)")
        }
    }

    @Test("a folder's scan marks each kind with its reason and counts them; the person can read the reasons")
    func scanCountsReasons() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let root = temporary.directory + "/Pictures"
        try FileManager.default.createDirectory(atPath: root + "/WhatsApp Images", withIntermediateDirectories: true)
        try MediaFixtures.jpeg(at: root + "/WhatsApp Images/IMG-20240504-WA0001.jpg", width: 800, height: 600,
                               exif: .init(dateTimeOriginal: "2024:05:04 10:11:12"))
        try MediaFixtures.jpeg(at: root + "/WhatsApp Images/IMG-20240504-WA0002.jpg", width: 800, height: 600, seed: 2, exif: Self.camera)
        let whole = root + "/IMG_0001.jpg"
        try MediaFixtures.run("convert", ["-size", "640x480", "plasma:fractal", "-seed", "5", whole])
        try MediaFixtures.writeExif(Self.camera, to: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix((try Self.startOfScan(bytes) + bytes.count) / 2).write(to: URL(fileURLWithPath: root + "/IMG_0002.jpg"))

        let source = try store.addSource(path: root, timeMs: 0)
        let report = try SourceIndexer(store: store).scan(source)
        #expect(report.skipped.isEmpty, "\(report.skipped)")
        #expect(report.notMemories == [.messagingImage: 1, .undecodable: 1])
        var byName: [String: String] = [:]
        for item in try store.items() {
            byName[((item.media.first?.relativePath ?? "") as NSString).lastPathComponent] = item.notAMemory?.rawValue ?? "memory"
        }
        #expect(byName == ["IMG-20240504-WA0001.jpg": "messagingImage", "IMG-20240504-WA0002.jpg": "memory",
                           "IMG_0001.jpg": "memory", "IMG_0002.jpg": "undecodable"])
        // Stored as its raw value and read back.
        #expect(NotAMemory(rawValue: "messagingImage") == .messagingImage)
        #expect(NotAMemory(rawValue: "undecodable") == .undecodable)
        // The source's counts, by reason, as `pickerctl sources list` words them.
        let counts = try #require(try store.sourceCounts()[source.id])
        #expect(counts.notMemories == 2)
        #expect(counts.notMemoryReasons == [.messagingImage: 1, .undecodable: 1])
        #expect(NotAMemoryRules.phrases(counts.notMemoryReasons)
                == ["1 picture saved by a messaging app without camera metadata", "1 image that does not decode (cut short)"])
        #expect(NotAMemoryRules.describe(report.notMemories)
                == "1 picture saved by a messaging app without camera metadata, 1 image that does not decode (cut short)")
        #expect(NotAMemoryRules.describe([.screenshot: 3, .undecodable: 2, .burst: 0, .messagingImage: 3])
                == "3 screenshots, 3 pictures saved by messaging apps without camera metadata, 2 images that do not decode (cut short)")
        #expect(NotAMemoryRules.describe([:]).isEmpty)
    }
}

/// A small deterministic generator (SplitMix64) for noise that is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A uniform Double in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
