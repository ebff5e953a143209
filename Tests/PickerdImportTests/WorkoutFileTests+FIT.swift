import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

extension WorkoutFileTests {
    // MARK: FIT fixtures (fit-tool)

    @Test func fitRunMadeByFitTool() throws {
        let data = try FITReader.read(try Self.fixture("run_riverside_park.fit"), file: "run_riverside_park.fit")
        #expect(data.workouts.count == 1)
        let run = try #require(data.workouts.first)
        #expect(run.format == "fit")
        #expect(run.activityType == 37)
        #expect(run.startMs == 1_714_822_200_000)
        #expect(run.endMs == 1_714_822_790_000)
        #expect(run.distanceMeters == 1466.06)
        #expect(run.energyKilocalories == 148)
        #expect(run.averageHeartRate == 140)
        #expect(run.steps == 1652)  // 826 strides
        #expect(run.route.count == 60)
        let first = run.route[0], middle = run.route[30], last = run.route[59]
        #expect(abs(first.latitude - 40.8005) < 1e-6 && abs(first.longitude - -73.9725) < 1e-6)
        #expect(abs(middle.latitude - 40.806747330352664) < 1e-9 && abs(middle.longitude - -73.96817796863616) < 1e-9)
        #expect(abs(last.latitude - 40.812) < 1e-6 && abs(last.longitude - -73.964) < 1e-6)
        #expect(first.timeMs == 1_714_822_200_000 && middle.timeMs == 1_714_822_500_000)
        #expect(first.elevation == 12 && middle.elevation == 20)
        #expect(first.heartRate == 120 && middle.heartRate == 140 && last.heartRate == 160)
        // The generator's distance is the haversine sum of the same points.
        #expect(abs(WorkoutFiles.length(of: run.route) - 1466.06) < 1)
    }

    @Test func fitRideGzippedAndPlain() throws {
        let plain = try FITReader.read(try Self.fixture("ride_hudson_greenway.fit"), file: "ride.fit")
        let gzipped = try FITReader.read(try Self.fixture("ride_hudson_greenway.fit.gz"), file: "ride.fit.gz")
        #expect(plain == gzipped)
        let ride = try #require(plain.workouts.first)
        #expect(ride.activityType == 13)
        #expect(ride.startMs == 1_714_914_000_000)
        #expect(ride.endMs == 1_714_915_780_000)
        #expect(ride.distanceMeters == 10890.14)
        #expect(ride.energyKilocalories == 520)
        #expect(ride.steps == nil)
        #expect(ride.route.count == 90)
        #expect(abs(ride.route[0].latitude - 40.82) < 1e-6 && abs(ride.route[89].longitude - -74.011) < 1e-6)
        #expect(ride.route[0].elevation == 8 && ride.route[89].elevation == 2)
    }

    @Test func fitHikeWithEnhancedAltitude() throws {
        let data = try FITReader.read(try Self.fixture("hike_bear_mountain.fit"), file: "hike.fit")
        let hike = try #require(data.workouts.first)
        #expect(hike.activityType == 24)
        #expect(hike.startMs == 1_715_436_000_000)
        #expect(hike.endMs == 1_715_440_740_000)
        #expect(hike.distanceMeters == 1372.41)
        #expect(hike.averageHeartRate == 125)
        #expect(hike.energyKilocalories == 610)
        #expect(hike.route.count == 80)
        #expect(hike.route.first?.elevation == 120)
        #expect(hike.route.last?.elevation == 390)
        #expect(abs((hike.route.last?.latitude ?? 0) - 41.3126) < 1e-6)
    }

    @Test func fitFixtureCorruptions() throws {
        let run = try Self.fixture("run_riverside_park.fit")
        var flipped = run
        flipped[200] ^= 0x01
        let bad = Self.importError { () throws(ImportError) in try FITReader.read(flipped, file: "run.fit") }
        #expect(bad?.file == "run.fit")
        #expect(bad?.message.hasPrefix("bad CRC") == true)
        #expect(bad?.location == "byte \(run.count - 2)")

        let cut = Array(run.prefix(run.count - 100))
        let truncated = Self.importError { () throws(ImportError) in try FITReader.read(cut, file: "run.fit") }
        #expect(truncated?.location == "byte \(cut.count)")
        #expect(truncated?.message.contains("truncated") == true)

        let notFIT = Self.importError { () throws(ImportError) in try FITReader.read(Self.bytes("<gpx></gpx> and some more text"), file: "x.fit") }
        #expect(notFIT?.message == "not a FIT file (no \".FIT\" header)")
    }

    // MARK: FIT built byte by byte

    /// Writes FIT files field by field: the tests' own encoder, independent of the reader but for
    /// the CRC.
    struct FITBuilder {
        var records: [UInt8] = []

        /// A definition message; `fields` are (number, size, base type), `developer` (number, size, index).
        mutating func define(local: UInt8, global: UInt16, bigEndian: Bool = false, fields: [(UInt8, UInt8, UInt8)],
                             developer: [(UInt8, UInt8, UInt8)] = []) {
            records.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
            records += [0, bigEndian ? 1 : 0]
            records += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
            records.append(UInt8(fields.count))
            for field in fields { records += [field.0, field.1, field.2] }
            if !developer.isEmpty {
                records.append(UInt8(developer.count))
                for field in developer { records += [field.0, field.1, field.2] }
            }
        }

        /// A data message with a normal header.
        mutating func data(local: UInt8, _ bytes: [UInt8]) { records += [local] + bytes }

        /// A data message with a compressed-timestamp header.
        mutating func compressed(local: UInt8, timeOffset: UInt8, _ bytes: [UInt8]) {
            records += [0x80 | (local << 5) | (timeOffset & 0x1F)] + bytes
        }

        /// The whole file, with a 14-byte header (its CRC set) or a 12-byte one, and the file CRC.
        func file(headerSize: Int = 14) -> [UInt8] {
            var header: [UInt8] = [UInt8(headerSize), 0x20, 0x5C, 0x08]  // protocol 2.0, profile 21.40
            header += le32(UInt32(records.count)) + Array(".FIT".utf8)
            if headerSize == 14 {
                let crc = FITReader.crc16(header)
                header += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            }
            let body = header + records
            let crc = FITReader.crc16(body)
            return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
    static func be16(_ value: UInt16) -> [UInt8] { le16(value).reversed() }
    static func semicircles(_ degrees: Double) -> Int32 { Int32((degrees * 2_147_483_648.0 / 180).rounded()) }

    /// 2024-05-04T11:30:00Z in FIT seconds.
    static let fitStart: UInt32 = UInt32(1_714_822_200 - 631_065_600)

    /// file_id, then records defined big-endian with a developer field, timestamped in full then with
    /// compressed headers (one rolling over the 5-bit offset), then a little-endian session.
    static func handBuiltRun(headerSize: Int = 14) -> [UInt8] {
        var fit = FITBuilder()
        fit.define(local: 0, global: 0, fields: [(0, 1, 0x00), (4, 4, 0x86)])  // file_id: type, time_created
        fit.data(local: 0, [4] + le32(fitStart))
        // record, big-endian: timestamp, lat, long, heart_rate, distance, enhanced_altitude + a 2-byte developer field.
        fit.define(local: 1, global: 20, bigEndian: true,
                   fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (5, 4, 0x86), (78, 4, 0x86)],
                   developer: [(0, 2, 0)])
        func record(_ lat: Double, _ lon: Double, hr: UInt8, meters: UInt32, altitude: Double) -> [UInt8] {
            be32(UInt32(bitPattern: semicircles(lat))) + be32(UInt32(bitPattern: semicircles(lon))) + [hr]
                + be32(meters * 100) + be32(UInt32((altitude + 500) * 5)) + [0xAB, 0xCD]
        }
        fit.data(local: 1, be32(fitStart + 30) + record(40.8005, -73.9725, hr: 120, meters: 0, altitude: 12))
        // Compressed: the same fields without the timestamp.
        fit.define(local: 2, global: 20, bigEndian: true,
                   fields: [(0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (5, 4, 0x86), (78, 4, 0x86)], developer: [(0, 2, 0)])
        // fitStart + 30 has low bits (fitStart + 30) & 31; +20 s and then a rollover past 31.
        let t1 = fitStart + 50, t2 = fitStart + 75
        fit.compressed(local: 2, timeOffset: UInt8(t1 & 0x1F), record(40.8030, -73.9706, hr: 142, meters: 300, altitude: 14.2))
        fit.compressed(local: 2, timeOffset: UInt8(t2 & 0x1F), record(40.8061, -73.9684, hr: 151, meters: 680, altitude: 17))
        // session, little-endian: timestamp, start_time, sport, elapsed (ms), distance (cm), calories, avg hr.
        fit.define(local: 3, global: 18,
                   fields: [(253, 4, 0x86), (2, 4, 0x86), (5, 1, 0x00), (7, 4, 0x86), (9, 4, 0x86), (11, 2, 0x84), (16, 1, 0x02)])
        fit.data(local: 3, le32(t2) + le32(fitStart + 30) + [1] + le32(45_000) + le32(68_000) + le16(55) + [138])
        return fit.file(headerSize: headerSize)
    }

    @Test func fitBigEndianDeveloperFieldsAndCompressedTimestamps() throws {
        for headerSize in [14, 12] {
            let data = try FITReader.read(Self.handBuiltRun(headerSize: headerSize), file: "built.fit")
            let run = try #require(data.workouts.first)
            #expect(run.activityType == 37)
            #expect(run.startMs == 1_714_822_230_000)
            #expect(run.endMs == 1_714_822_275_000)
            #expect(run.distanceMeters == 680)
            #expect(run.energyKilocalories == 55)
            #expect(run.averageHeartRate == 138)
            #expect(run.route.map(\.timeMs) == [1_714_822_230_000, 1_714_822_250_000, 1_714_822_275_000])
            #expect(run.route.map(\.heartRate) == [120, 142, 151])
            #expect(run.route.map(\.elevation) == [12, 14.2, 17])
            #expect(abs(run.route[1].latitude - 40.8030) < 1e-6 && abs(run.route[2].longitude - -73.9684) < 1e-6)
        }
    }

    @Test func fitWithoutSessionUsesRecordsAndSport() throws {
        var fit = FITBuilder()
        fit.define(local: 0, global: 12, fields: [(0, 1, 0x00), (1, 1, 0x00)])
        fit.data(local: 0, [17, 0])  // sport: hiking
        fit.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (2, 2, 0x84)])
        fit.data(local: 0, Self.le32(Self.fitStart) + Self.le32(UInt32(bitPattern: Self.semicircles(41.303)))
                 + Self.le32(UInt32(bitPattern: Self.semicircles(-73.999))) + Self.le16(UInt16((120 + 500) * 5)))
        // A record without a position (0x7FFFFFFF is FIT's invalid sint32): timed, but not on the route.
        fit.data(local: 0, Self.le32(Self.fitStart + 60) + Self.le32(0x7FFF_FFFF) + Self.le32(0x7FFF_FFFF) + Self.le16(0xFFFF))
        fit.data(local: 0, Self.le32(Self.fitStart + 600) + Self.le32(UInt32(bitPattern: Self.semicircles(41.3126)))
                 + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9887))) + Self.le16(UInt16((390 + 500) * 5)))
        let hike = try #require(try FITReader.read(fit.file(), file: "hike.fit").workouts.first)
        #expect(hike.activityType == 24)
        #expect(hike.startMs == 1_714_822_200_000)
        #expect(hike.endMs == 1_714_822_800_000)
        #expect(hike.route.count == 2)
        #expect(hike.route.map(\.elevation) == [120, 390])
        #expect(abs((hike.distanceMeters ?? 0) - WorkoutFiles.haversine(hike.route[0], hike.route[1])) < 1e-6)
    }

    @Test func fitBuiltBadInputs() throws {
        let good = Self.handBuiltRun()

        var badCRC = good
        badCRC[badCRC.count - 1] ^= 0xFF
        let crc = Self.importError { () throws(ImportError) in try FITReader.read(badCRC, file: "built.fit") }
        #expect(crc?.file == "built.fit")
        #expect(crc?.message.hasPrefix("bad CRC: the file says 0x") == true)

        var badHeader = good
        badHeader[12] ^= 0x55
        let header = Self.importError { () throws(ImportError) in try FITReader.read(badHeader, file: "built.fit") }
        #expect(header?.message == "bad header CRC")

        let truncated = Array(good.prefix(40))
        let cut = Self.importError { () throws(ImportError) in try FITReader.read(truncated, file: "built.fit") }
        #expect(cut?.location == "byte 40")
        #expect(cut?.message == "the file is truncated: it ends at byte 40, its header promises \(good.count) bytes")

        // A data message whose local type was never defined.
        var undefined = FITBuilder()
        undefined.data(local: 5, [1, 2, 3])
        let noDefinition = Self.importError { () throws(ImportError) in try FITReader.read(undefined.file(), file: "u.fit") }
        #expect(noDefinition?.location == "byte 14")
        #expect(noDefinition?.message == "a data message of local type 5, which no definition message defined")

        // A definition promising more bytes than the data holds (with a valid CRC: a broken writer).
        var short = FITBuilder()
        short.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85)])
        short.data(local: 0, [1, 2, 3])
        let runsPast = Self.importError { () throws(ImportError) in try FITReader.read(short.file(), file: "s.fit") }
        #expect(runsPast?.location == "byte \(14 + 1 + 5 + 6)")  // after the definition: header, 5 bytes, 2 fields
        #expect(runsPast?.message.contains("runs past the end of the data") == true)

        // A compressed timestamp with no full timestamp before it.
        var early = FITBuilder()
        early.define(local: 0, global: 20, fields: [(3, 1, 0x02)])
        early.compressed(local: 0, timeOffset: 3, [120])
        let compressed = Self.importError { () throws(ImportError) in try FITReader.read(early.file(), file: "c.fit") }
        #expect(compressed?.message == "a compressed timestamp before any full timestamp")

        // A position out of range (lat 135°, exactly 0x60000000 semicircles) names the record message.
        var far = FITBuilder()
        far.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        far.data(local: 0, Self.le32(Self.fitStart) + Self.le32(UInt32(bitPattern: Self.semicircles(40.8))) + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9))))
        far.data(local: 0, Self.le32(Self.fitStart + 1) + Self.le32(UInt32(bitPattern: Self.semicircles(135))) + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9))))
        let range = Self.importError { () throws(ImportError) in try FITReader.read(far.file(), file: "far.fit") }
        #expect(range?.location == "byte \(14 + 15 + 13)")
        #expect(range?.message == "record message 2's latitude 135.0 is out of range (−90…90)")

        // A course (file type 6) is not an activity.
        var course = FITBuilder()
        course.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        course.data(local: 0, [6])
        let notActivity = Self.importError { () throws(ImportError) in try FITReader.read(course.file(), file: "course.fit") }
        #expect(notActivity?.message == "not an activity: FIT file type 6 (an activity is 4)")

        // Nothing timed.
        var empty = FITBuilder()
        empty.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        empty.data(local: 0, [4])
        let nothing = Self.importError { () throws(ImportError) in try FITReader.read(empty.file(), file: "e.fit") }
        #expect(nothing?.message == "no session, lap or timed record: nothing here can be a workout")
    }

    @Test func fitChainedFiles() throws {
        let one = Self.handBuiltRun()
        let data = try FITReader.read(one + one, file: "chained.fit")
        #expect(data.workouts.count == 2)
        #expect(data.workouts[0] == data.workouts[1])
    }

}
