import Foundation
import PickerdBroker
@testable import PickerdDemoLibrary
import PickerdTestKit
import PickerdTransport
import PickerdWire
import Testing

@Suite("EXIF GPS redaction")
struct RedactionTests {
    static let exif = Exif.make(dateTimeOriginal: "2026:11:20 06:45:00", gps: Exif.GPS(latitude: 40.801_3, longitude: -73.971_9))

    /// exiftool's reading of a file: tag name → value.
    func exiftool(_ bytes: [UInt8]) throws -> [String: String] {
        let directory = try TemporaryDirectory(prefix: "pkd-exif")
        let path = directory.path + "/file"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-n", "-s", "-a", path])
        return Dictionary(result.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }, uniquingKeysWith: { a, _ in a })
    }

    func containsCoordinates(_ bytes: [UInt8]) -> Bool {
        // The latitude's rational (40°) as TIFF writes it, big-endian: 00 00 00 28 00 00 00 01.
        let needle: [UInt8] = [0, 0, 0, 0x28, 0, 0, 0, 1]
        return bytes.indices.contains { i in i + needle.count <= bytes.count && Array(bytes[i..<(i + needle.count)]) == needle }
    }

    @Test("a PNG loses its GPS (tags and bytes) and keeps its capture date; the file stays valid")
    func png() throws {
        let original = PNG.encode(Raster(width: 8, height: 8), exif: Self.exif)
        #expect(try exiftool(original)["GPSLatitude"] == "40.8013")
        #expect(containsCoordinates(original))
        let stripped = try ExifRedactor.strippingLocation(original)
        let tags = try exiftool(stripped)
        #expect(tags.keys.filter { $0.hasPrefix("GPS") }.isEmpty, "\(tags.keys.sorted())")
        #expect(tags["DateTimeOriginal"] == "2026:11:20 06:45:00")
        #expect(tags["Warning"] == nil, "exiftool found a problem: \(tags["Warning"] ?? "")")
        #expect(!containsCoordinates(stripped))
        #expect(stripped.count == original.count)
    }

    @Test("a JPEG's APP1 EXIF loses its GPS in place")
    func jpeg() throws {
        let app1 = Array("Exif".utf8) + [0, 0] + Self.exif
        let length = app1.count + 2
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + [0xFF, 0xD9]
        #expect(try exiftool(jpeg)["GPSLatitude"] == "40.8013")
        let stripped = try ExifRedactor.strippingLocation(jpeg)
        let tags = try exiftool(stripped)
        #expect(tags.keys.filter { $0.hasPrefix("GPS") }.isEmpty)
        #expect(tags["DateTimeOriginal"] == "2026:11:20 06:45:00")
        #expect(!containsCoordinates(stripped))
    }

    @Test("files without EXIF pass unchanged; broken EXIF is refused, not passed on")
    func edges() throws {
        let plain = PNG.encode(Raster(width: 4, height: 4))
        #expect(try ExifRedactor.strippingLocation(plain) == plain)
        var broken = Self.exif
        broken[4...7] = [0x7F, 0xFF, 0xFF, 0xFF]  // IFD0 far past the end
        let png = PNG.encode(Raster(width: 4, height: 4), exif: broken)
        #expect(throws: ExifRedactor.Unreadable.self) { try ExifRedactor.strippingLocation(png) }
    }

    @Test("SHA-256 matches the standard test vectors")
    func sha256() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite("Workout route redaction")
struct RouteRedactionTests {
    static let route = (0..<3).map { GeoLocation(latitude: 40.8 + Double($0) * 1e-3, longitude: -73.97, altitudeM: 12) }
    static let run = Workout(details: WorkoutDetails(activityType: 37, distance: Quantity(value: 5000, unit: "m"), localizedName: "Outdoor Run"),
                             icon: Media(fdIndex: 0, contentType: "image/png"), route: route)

    @Test("a workout loses its route and keeps everything else")
    func workout() {
        let stripped = RouteRedactor.strippingRoutes(.workout(Self.run))
        var expected = Self.run
        expected.route = []
        #expect(stripped == .workout(expected))
    }

    @Test("a workout group loses the route of every workout in it")
    func group() {
        let group = WorkoutGroup(workouts: [Self.run, Self.run], durationS: 3600)
        guard case .workoutGroup(let stripped) = RouteRedactor.strippingRoutes(.workoutGroup(group)) else {
            Issue.record("not a workout group any more")
            return
        }
        #expect(stripped.workouts.count == 2)
        #expect(stripped.workouts.allSatisfy { $0.route.isEmpty })
        #expect(stripped.workouts.map(\.details) == group.workouts.map(\.details))
        #expect(stripped.durationS == 3600)
    }

    @Test("other assets pass unchanged")
    func others() {
        let place = Item.Asset.location(Location(place: "Riverside Park", city: "New York", location: Self.route[0]))
        #expect(RouteRedactor.strippingRoutes(place) == place)
    }
}
