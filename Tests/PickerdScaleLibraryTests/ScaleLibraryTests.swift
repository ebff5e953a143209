import Foundation
import PickerdChecksum
import PickerdDemoLibrary
@testable import PickerdMoments
@testable import PickerdScaleLibrary
import PickerdStore
import PickerdWire
import Testing

/// The scale library: a large made-up life, deterministic, with exactly as many photos as asked for.
@Suite("The scale library")
struct ScaleLibraryTests {
    /// Every month of a library, in order.
    static func months(_ photos: Int) -> [(stage: String, items: [GeneratedItem])] {
        var months: [(String, [GeneratedItem])] = []
        ScaleLibrary(photos: photos).forEachMonth { months.append(($0, $1)) }
        return months
    }

    static func isPhoto(_ kind: AssetKind) -> Bool { kind == .photo || kind == .livePhoto || kind == .video }
    static let homeOffsets: Set<Int32> = [-8 * 3600, -7 * 3600]

    @Test("two libraries of the same size are the same: ids, items and file bytes")
    func deterministic() {
        let a = Self.months(1500), b = Self.months(1500)
        #expect(a.map(\.stage) == b.map(\.stage))
        #expect(a.flatMap(\.items).map(\.item) == b.flatMap(\.items).map(\.item))
        #expect(a.flatMap(\.items).flatMap(\.files).map(\.bytes) == b.flatMap(\.items).flatMap(\.files).map(\.bytes))
        #expect(a.flatMap(\.items).flatMap(\.files).map(\.media) == b.flatMap(\.items).flatMap(\.files).map(\.media))
    }

    @Test("exactly as many photos, Live Photos and videos as asked for", arguments: [0, 1, 37, 1500, 4321])
    func exactCount(photos: Int) {
        let items = Self.months(photos).flatMap(\.items)
        #expect(items.filter { Self.isPhoto($0.item.kind) }.count == photos)
        #expect(ScaleLibrary(photos: photos).years == 1)
        #expect(items.count > 3000, "a year of life besides the photos")
    }

    @Test("the span grows with the photos: a year for every 20,000, at most ten")
    func years() {
        #expect(ScaleLibrary(photos: 20_000).years == 1)
        #expect(ScaleLibrary(photos: 20_001).years == 2)
        #expect(ScaleLibrary(photos: 100_000).years == 5)
        #expect(ScaleLibrary(photos: 1_000_000).years == 10)
    }

    @Test("every kind of item is there, and the mix is a real library's")
    func everyKind() {
        let items = Self.months(1500).flatMap(\.items).map(\.item)
        var counts: [AssetKind: Int] = [:]
        for item in items { counts[item.kind, default: 0] += 1 }
        for kind in AssetKind.allCases { #expect((counts[kind] ?? 0) > 0, "no \(kind)") }
        let live = counts[.livePhoto] ?? 0, videos = counts[.video] ?? 0
        #expect((60...190).contains(live), "\(live) Live Photos in 1500")
        #expect((25...110).contains(videos), "\(videos) videos in 1500")
        #expect((3...4).contains(items.filter { $0.kind == .locationGroup }.count), "three or four trips a year")
        #expect(items.filter { $0.kind == .workout }.count >= 52 * 2)
        #expect(Set(items.compactMap { if case .contact(let c) = $0.asset { c.name } else { nil } }).count == 30)
        // Photos mostly have GPS; screenshots and scans never.
        let camera = items.filter { Self.isPhoto($0.kind) && $0.notAMemory == nil }
        let located = Double(camera.filter { $0.coordinate != nil }.count) / Double(camera.count)
        #expect((0.85...0.97).contains(located), "\(located) of the camera's photos located")
    }

    @Test("screenshots, scans and bursts are marked as not memories")
    func notMemories() throws {
        let items = Self.months(1500).flatMap(\.items).map(\.item)
        let screenshots = items.filter { $0.notAMemory == .screenshot }
        #expect(screenshots.count == 75)
        #expect(screenshots.allSatisfy { $0.kind == .photo && $0.coordinate == nil && $0.media[0].pixelHeight >= 1334 })
        #expect(items.filter { $0.notAMemory == .scan }.count == 6)
        let bursts = items.filter { $0.notAMemory == .burst }
        #expect(!bursts.isEmpty)
        // Each extra frame follows an unmarked first frame, all within two seconds.
        let photos = items.filter { $0.kind == .photo }.sorted { $0.startMs < $1.startMs }
        for frame in bursts {
            let first = try #require(photos.last { $0.startMs <= frame.startMs && $0.notAMemory == nil && $0.id != frame.id })
            #expect(frame.startMs - first.startMs < 2_000)
        }
        #expect(items.filter { $0.notAMemory != nil }.allSatisfy { $0.kind == .photo })
    }

    @Test("every item has its own offset from UTC: Portland's at home, the city's abroad")
    func offsets() {
        let items = Self.months(1500).flatMap(\.items).map(\.item)
        #expect(items.allSatisfy { $0.utcOffsetSeconds != nil })
        let portland = TimeZone(identifier: ScaleCast.homeZoneIdentifier)!
        var abroad = 0
        for item in items {
            guard case .location(let location) = item.asset else { continue }
            let offset = item.utcOffsetSeconds!
            if location.city == "Portland" {
                #expect(Int(offset) == portland.secondsFromGMT(for: Date(unixMs: item.startMs)), "\(location.place)")
            } else if let destination = ScaleCast.destinations.first(where: { $0.city == location.city }) {
                let zone = TimeZone(identifier: destination.zoneIdentifier)!
                #expect(Int(offset) == zone.secondsFromGMT(for: Date(unixMs: item.startMs)), "\(location.place)")
                #expect(!Self.homeOffsets.contains(offset))
                abroad += 1
            }
        }
        #expect(abroad > 40)
    }

    @Test("months come oldest first, each sorted by start, with stage names like 2024-07")
    func sorted() {
        let months = Self.months(1500)
        #expect(months.count == 13 || months.count == 12)
        #expect(months.map(\.stage) == months.map(\.stage).sorted())
        #expect(Set(months.map(\.stage)).count == months.count)
        for (stage, items) in months {
            #expect(stage.count == 7)
            #expect(stage.dropFirst(4).first == "-")
            #expect(zip(items, items.dropFirst()).allSatisfy { $0.item.startMs <= $1.item.startMs }, "\(stage)")
        }
        #expect(months.first?.stage == "2025-11")
        #expect(months.last?.stage == "2026-11")
        let last = months.flatMap(\.items).map(\.item)
        #expect(last.allSatisfy { $0.endMs <= 1_795_132_800_000 })
    }

    @Test("every file is under scale/, photos have their own files and a date in their EXIF")
    func files() throws {
        let items = Self.months(1500).flatMap(\.items)
        var seen: [String: [UInt8]] = [:]
        for generated in items {
            #expect(generated.item.media == generated.files.map(\.media))
            for file in generated.files {
                #expect(file.media.relativePath.hasPrefix("scale/"))
                #expect(file.media.byteCount == UInt64(file.bytes.count))
                if let earlier = seen.updateValue(file.bytes, forKey: file.media.relativePath) {
                    #expect(earlier == file.bytes, "\(file.media.relativePath) differs between items")
                }
            }
        }
        // Each photo's file is its own, in the folder of its month, with its local date in its EXIF.
        let photos = items.filter { $0.item.kind == .photo || $0.item.kind == .livePhoto }
        #expect(Set(photos.map { $0.files[0].media.relativePath }).count == photos.count)
        for generated in photos.prefix(300) {
            let item = generated.item, bytes = generated.files[0].bytes
            let local = Civil.floorDiv(item.startMs, 1000) + Int64(item.utcOffsetSeconds!)
            let date = Civil.exifDate(localSeconds: local)
            #expect(generated.files[0].media.relativePath.hasPrefix("scale/" + date.prefix(4) + "/" + date.dropFirst(5).prefix(2) + "/"))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(Array(bytes[37..<41]) == Array("eXIf".utf8))
            #expect(bytes.firstRange(of: Array(date.utf8)) != nil, "EXIF date \(date)")
            var offset = 8
            while offset < bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                let body = Array(bytes[(offset + 4)..<(offset + 8 + length)])
                let crc = bytes[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                #expect(CRC32.checksum(body) == crc)
                offset += 12 + length
            }
            #expect(offset == bytes.count)
        }
    }

    @Test("a pre-rendered photo with its EXIF is exactly what the PNG encoder makes")
    func stills() {
        var painter = Generator()
        let raster = painter.scene(Place(name: "", city: "", latitude: 0, longitude: 0, scene: .park), hour: 12, width: 32, height: 24)
        let exif = Exif.make(dateTimeOriginal: "2024:07:04 12:34:56", gps: Exif.GPS(latitude: 45.5, longitude: -122.6))
        #expect(ScalePools.Still(raster).png(exif: exif) == PNG.encode(raster, exif: exif))
    }

    @Test("the calendar arithmetic agrees with Foundation's")
    func calendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var random = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &random)
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
            let expected = String(format: "%04d:%02d:%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
            #expect(Civil.exifDate(localSeconds: seconds) == expected)
            let day = Int(Civil.floorDiv(seconds, 86_400))
            #expect(Civil.days(year: c.year!, month: c.month!, day: c.day!) == day)
            #expect(Civil.weekday(day) == calendar.component(.weekday, from: Date(timeIntervalSince1970: Double(seconds))) - 1)
        }
    }

    @Test("the time-zone rules agree with the time-zone database, 2016 to 2026")
    func zones() {
        var zones = [(ScaleCast.homeZone, ScaleCast.homeZoneIdentifier)]
        zones += ScaleCast.destinations.map { ($0.zone, $0.zoneIdentifier) }
        for (rule, identifier) in zones {
            let zone = TimeZone(identifier: identifier)!
            var seconds: Int64 = 1_451_606_400  // 2016-01-01
            while seconds < 1_798_761_600 {     // 2027-01-01
                #expect(Int(rule.offset(atUTC: seconds)) == zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))),
                        "\(identifier) at \(seconds)")
                seconds += 3 * 3600 + 1_800
            }
        }
    }

    /// `PICKERD_SCALE_BENCH=100000 swift test --filter ScaleLibraryTests/benchmark` prints how long
    /// a library takes to make and what it holds.
    @Test("benchmark", .enabled(if: ProcessInfo.processInfo.environment["PICKERD_SCALE_BENCH"] != nil))
    func benchmark() {
        let photos = Int(ProcessInfo.processInfo.environment["PICKERD_SCALE_BENCH"]!) ?? 100_000
        let library = ScaleLibrary(photos: photos)
        let clock = ContinuousClock()
        var counts: [AssetKind: Int] = [:], marked: [NotAMemory: Int] = [:]
        var files = Set<String>(), bytes = 0, items = 0, months = 0, located = 0
        let elapsed = clock.measure {
            library.forEachMonth { _, batch in
                months += 1
                for generated in batch {
                    items += 1
                    counts[generated.item.kind, default: 0] += 1
                    if let reason = generated.item.notAMemory { marked[reason, default: 0] += 1 }
                    if generated.item.coordinate != nil && Self.isPhoto(generated.item.kind) { located += 1 }
                    for file in generated.files where files.insert(file.media.relativePath).inserted { bytes += file.bytes.count }
                }
            }
        }
        print("scale library: \(photos) photos over \(library.years) years, \(months) months, \(items) items, made in \(elapsed)")
        for kind in AssetKind.allCases { print("  \(kind): \(counts[kind] ?? 0)") }
        for reason in NotAMemory.allCases { print("  \(reason): \(marked[reason] ?? 0)") }
        print("  photos with a coordinate: \(located)")
        print("  files: \(files.count), \(bytes) bytes")
        #expect(AssetKind.allCases.filter(Self.isPhoto).map { counts[$0] ?? 0 }.reduce(0, +) == photos)
    }
}
