import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Apple Health's export (`export.zip`, or its folder unpacked): workouts with their statistics and
/// routes, steps folded into runs and walks, streamed, and what a broken export does.
@Suite("Apple Health export")
struct AppleHealthTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    /// 2024-05-04 07:05:00 -0400.
    static let runStart: Int64 = 1_714_820_700_000

    static func importing(_ paths: [String], into temporary: TemporaryStore) -> [ExportImporter.FileResult] {
        ExportImporter(store: temporary.store).run(paths.map { fixtures + "/" + $0 }) { _, _, _, _ in }
    }

    static func workouts(_ store: Store) throws -> [(item: LibraryItem, workout: Workout)] {
        try store.items().compactMap { item in
            if case .workout(let w) = item.asset { return (item, w) }
            return nil
        }.sorted { $0.item.startMs < $1.item.startMs }
    }

    static func motion(_ store: Store) throws -> [(item: LibraryItem, motion: MotionActivity)] {
        try store.items().compactMap { item in
            if case .motionActivity(let m) = item.asset { return (item, m) }
            return nil
        }.sorted { $0.item.startMs < $1.item.startMs }
    }

    @Test("dates keep their offset: 2024-05-04 07:05:00 -0400 is 11:05 UTC")
    func dates() {
        #expect(HealthDates.parse("2024-05-04 07:05:00 -0400")! == (Self.runStart, -14_400))
        #expect(HealthDates.parse("2024-05-04 13:05:00 +0200")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-05-04T11:05:00Z")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-05-04T16:35:00+05:30")!.ms == Self.runStart)
        #expect(HealthDates.parse("2024-02-29 00:00:00 +0000")!.ms == 1_709_164_800_000)
        #expect(HealthDates.parse("2024-13-04 07:05:00 -0400") == nil)
        #expect(HealthDates.parse("2024-05-04 07:05") == nil)
        #expect(HealthDates.parse("2024-05-04 07:05:00 -04") == nil)
    }

    @Test("activity types map to HealthKit's raw values")
    func activityTypes() {
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeRunning") == 37)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeWalking") == 52)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeHiking") == 24)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeCycling") == 13)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeSwimming") == 46)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeYoga") == 57)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeHighIntensityIntervalTraining") == 63)
        #expect(AppleHealthExport.activityType("HKWorkoutActivityTypeSomethingNew") == 3000)
    }

    @Test("export.xml is told by its DOCTYPE, which outruns the 4 KiB a file's kind is told from")
    func detection() throws {
        let prefix = try #require(ExportKind.prefix(ofFile: Self.fixtures + "/apple_health_export/export.xml"))
        #expect(prefix.count == 4_096)
        #expect(ExportKind.detect(prefix, name: "renamed.xml") == .appleHealth)
        #expect(ExportKind.detect(Array("<HealthData locale=\"en_US\">".utf8), name: "x") == .appleHealth)
    }

    @Test("the reader: four workouts with distance, energy, heart rate, steps and the run's route")
    func reader() throws {
        var progress: [Int] = []
        let data = try AppleHealthExport.read(path: Self.fixtures + "/apple_health_export/export.xml", name: "export.xml") { progress.append($0) }
        #expect(data.workouts.map(\.activityType) == [37, 52, 13, 57])
        let run = data.workouts[0]
        #expect(run.startMs == Self.runStart)
        #expect(run.endMs == Self.runStart + 1_950_000)
        #expect(run.distanceMeters == 5120)
        #expect(run.distanceIsDevices)
        #expect(run.energyKilocalories == 312.5)
        #expect(run.averageHeartRate == 151.4)
        #expect(run.steps == 5_200)
        #expect(run.route.count == 66)
        #expect(run.route.first?.timeMs == Self.runStart + 1_000)
        #expect(run.name == "Outdoor Run")
        #expect(run.format == "apple-health")
        let walk = data.workouts[1]
        #expect(abs(walk.distanceMeters! - 2.1 * 1609.344) < 0.001)
        #expect(walk.energyKilocalories == 150)
        #expect(walk.steps == nil)  // no step samples during it
        #expect(walk.route.isEmpty)
        let ride = data.workouts[2]
        #expect(abs(ride.energyKilocalories! - 400) < 0.01)  // 1673.6 kJ
        #expect(ride.distanceMeters == 16_400)
        #expect(data.workouts[3].name == "Yoga")
        // The walk on Friday morning: the watch's 4,000 steps, not the phone's 3,600 as well.
        #expect(data.motion.count == 1)
        let morning = try #require(data.motion.first)
        #expect(morning.steps == 4_000)
        #expect(morning.startMs == 1_714_737_600_000)  // 2024-05-03 08:00 -0400
        #expect(morning.endMs == 1_714_737_600_000 + 2_400_000)
        #expect(!morning.running)
        #expect(data.read["health records"] == 31)  // ExportDate, Me, 24 records, 4 workouts, an activity summary
        #expect(progress.last == 31)
        #expect(data.leftOut.isEmpty)
    }

    @Test("export.zip: one run with its route, not a second workout from the route file; the CDA file is not reported")
    func zipImport() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_export.zip"], into: temporary)
        #expect(results.count == 1, "\(results)")
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.kind == "apple-health")
        #expect(result.workouts == 4)
        #expect(result.counts["walks and runs"] == 1)
        let workouts = try Self.workouts(temporary.store)
        #expect(workouts.count == 4)
        let run = workouts[0].workout
        #expect(run.route.count == 66)
        #expect(run.details?.distance?.value == 5120)
        #expect(run.details?.activityType == 37)
        #expect(workouts[0].item.externalID == "apple-health")
        // The run's steps and the morning walk, as motion.
        let motion = try Self.motion(temporary.store)
        #expect(motion.map(\.motion.steps) == [4_000, 5_200])
        #expect(motion[1].motion.movementType == .running)
        #expect(motion[0].motion.movementType == .walking)
    }

    @Test("the unpacked folder imports the same, and again is all duplicates")
    func folderImport() throws {
        let temporary = try TemporaryStore()
        let first = Self.importing(["apple_health_export"], into: temporary)
        #expect(first.map(\.kind) == ["apple-health"], "\(first)")
        let count = try temporary.store.items().count
        let again = Self.importing(["apple_health_export"], into: temporary)
        #expect(again.first?.duplicates == 5)  // 4 workouts and the walk
        #expect(try temporary.store.items().count == count)
    }

    @Test("the same run's Strava GPX is the same workout, under the person's name, with the watch's distance")
    func dedupeWithGPX() throws {
        for order in [["apple_health_export.zip", "strava_same_run.gpx"], ["strava_same_run.gpx", "apple_health_export.zip"]] {
            let temporary = try TemporaryStore()
            for path in order {
                let results = Self.importing([path], into: temporary)
                #expect(results.allSatisfy { $0.error == nil }, "\(results)")
            }
            let runs = try Self.workouts(temporary.store).filter { $0.workout.details?.activityType == 37 }
            #expect(runs.count == 1, "\(order)")
            #expect(runs.first?.workout.details?.localizedName == "Riverside before breakfast")
            #expect(runs.first?.workout.details?.distance?.value == 5120)
            #expect(runs.first?.workout.route.count == 66)
        }
    }

    @Test("a zip whose route file is missing imports the run without its route, and says so")
    func missingRoute() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_missing_route.zip"], into: temporary)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.workouts == 4)
        #expect(result.counts["workout routes not found in the export"] == 1)
        let run = try #require(try Self.workouts(temporary.store).first)
        #expect(run.workout.route.isEmpty)
        #expect(run.workout.details?.distance?.value == 5120)
    }

    /// `apple_health_missing_route.zip`'s bytes with its one entry's sizes in the central directory
    /// changed to `size`.
    static func zipDeclaring(uncompressed size: UInt32) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/apple_health_missing_route.zip")))
        let central = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x01, 0x02]) })
        for k in 0..<4 { bytes[central + 24 + k] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(k))) }
        return bytes
    }

    /// Imports `bytes` as `export.zip` into a new store: the results and the store's workouts.
    static func importingZip(_ bytes: [UInt8]) throws -> (results: [ExportImporter.FileResult], workouts: Int) {
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path + "/export.zip"))
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([directory.path + "/export.zip"]) { _, _, _, _ in }
        return (results, try Self.workouts(temporary.store).count)
    }

    @Test("export.xml in export.zip is streamed, never unpacked: its bytes in reads of any size are the file's; asked for whole, it is unpacked then")
    func streamedMember() throws {
        let zip = Self.fixtures + "/apple_health_export.zip"
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/apple_health_export/export.xml")))
        let unpacked = try ZipArchive.unpack(path: zip, name: "export.zip")
        defer { unpacked.close() }
        // Checked when the archive was opened: all but export.xml, which is checked as it is streamed.
        #expect(unpacked.members.filter { !$0.checked }.map(\.entry.name) == ["apple_health_export/export.xml"])
        #expect(unpacked.members.filter(\.checked).map(\.entry.name).sorted()
            == ["apple_health_export/export_cda.xml", "apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx"])
        let member = zip + "/apple_health_export/export.xml"
        let outcome: Result<[[UInt8]], ReaderFiles.StreamFailure> = try ExportImporter.withArchiveMembers(zip, name: "export.zip") { paths in
            #expect(paths.contains(member), "\(paths)")
            #expect(paths.count == 3, "\(paths)")
            #expect(ReaderFiles.exists(member))
            var reads: [[UInt8]] = []
            for size in [1, 7, 4_096, 1 << 20] {
                guard let stream = ReaderFiles.openStream(member) else { return .success([]) }
                var bytes: [UInt8] = []
                let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
                defer { chunk.deallocate() }
                while true {
                    let n: Int
                    do throws(ReaderFiles.StreamFailure) {
                        n = try stream.read(into: chunk.baseAddress!, count: size)
                    } catch { return .failure(error) }
                    if n == 0 { break }
                    bytes += chunk[0..<n]
                }
                reads.append(bytes)
            }
            // A reader that wants it whole gets it unpacked into memory.
            guard let fd = ReaderFiles.open(member) else { return .success(reads) }
            defer { close(fd) }
            reads.append((try? ReaderFiles.read(fd, limit: 1 << 20)) ?? [])
            return .success(reads)
        }
        let reads = try outcome.get()
        #expect(reads.count == 5)
        for read in reads { #expect(read == expected) }
    }

    @Test("a streamed export.xml whose header lies is refused: past its ratio before it expands, at its end when short, where it passes a smaller size")
    func streamedMismatch() throws {
        // Its header says 600 MiB from a few KB: refused as a bomb before anything is inflated.
        let bomb = try Self.importingZip(try Self.zipDeclaring(uncompressed: 600 << 20))
        let bombError = try #require(bomb.results.first?.error)
        #expect(bombError.contains("an entry that would expand to 600 MiB was refused (a zip bomb?)"), "\(bombError)")
        #expect(bomb.workouts == 0)
        // Its header says 1,000 bytes more than it holds: its stream ends short, and its checksum is not its own.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.fixtures + "/apple_health_export/export.xml")[.size] as? Int)
        let long = try Self.importingZip(try Self.zipDeclaring(uncompressed: UInt32(size + 1_000)))
        let error = try #require(long.results.first?.error)
        #expect(error.contains("export.xml"), "\(error)")
        #expect(error.contains("does not match its checksum"), "\(error)")
        #expect(long.workouts == 0)
        // Its header says 1,000 bytes: the stream stops where it passes them.
        let short = try Self.importingZip(try Self.zipDeclaring(uncompressed: 1_000))
        let shortError = try #require(short.results.first?.error)
        #expect(shortError.contains("expands past what its header says"), "\(shortError)")
        #expect(short.workouts == 0)
    }

    @Test("a streamed export.xml whose deflated data is damaged is refused, and nothing of it is imported")
    func streamedCorrupt() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/apple_health_missing_route.zip")))
        // The one entry's data: after the 30-byte local header, its name and extra field.
        let dataStart = 30 + Int(bytes[26]) + Int(bytes[27]) << 8 + Int(bytes[28]) + Int(bytes[29]) << 8
        for k in 0..<64 { bytes[dataStart + 400 + k] ^= 0x5A }
        let damaged = try Self.importingZip(bytes)
        let error = try #require(damaged.results.first?.error)
        #expect(error.contains("export.xml"), "\(error)")
        #expect(damaged.workouts == 0)
        // Cut inside the entry's data: the archive is no zip any more (its directory is gone), said so.
        let cut = try Self.importingZip(Array(bytes.prefix(dataStart + 500)))
        #expect(cut.results.first?.error?.contains("not a zip archive") == true, "\(cut.results)")
    }

    @Test("a ZIP64 export.zip (as one over 4 GB is written) is read: sizes and offsets from its ZIP64 fields")
    func zip64() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_zip64.zip"], into: temporary)
        #expect(results.map(\.kind) == ["apple-health"], "\(results)")
        #expect(results.first?.error == nil)
        #expect(results.first?.counts["moods"] == 3)
    }

    @Test("a ZIP64 archive whose directory offset is near Int64.max is refused with its reason, not a crash (found by Tools/fuzz-readers)")
    func zip64OffsetPastTheEnd() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/apple_health_zip64.zip")))
        // The ZIP64 end of central directory record (PK\6\6); its directory's offset is at +48.
        let record = try #require((0...(bytes.count - 56)).last { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x06, 0x06]) })
        // 0x7FFFFFFFFFFFFFF0: its offset plus its size (104) overflowed Int64.
        for k in 0..<8 { bytes[record + 48 + k] = k == 0 ? 0xF0 : k == 7 ? 0x7F : 0xFF }
        let results = try Self.importingZip(bytes).results
        let error = try #require(results.first?.error)
        #expect(error.contains("the central directory runs past the end"), "\(error)")
    }

    @Test("a reader tells pickerd how much it inflated from a streamed entry, with its progress")
    func inflatedProgress() throws {
        let zip = Self.fixtures + "/apple_health_export.zip"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.fixtures + "/apple_health_export/export.xml")[.size] as? Int)
        let fd = open(zip, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        var inflated: [UInt64] = []
        let request = ReaderRequest(id: 1, kind: .readExport(ReaderReadExport(path: zip, name: "export.zip", nowMs: 0, activityNames: [])))
        FileReaderService.handle(request, descriptor: fd) { reply in
            if case .progress(let p) = reply { inflated.append(p.inflatedBytes) }
        }
        // The reader tells its records at the end of export.xml: all of it was inflated by then (and
        // its first bytes before, twice: to tell what the archive's files are, and what it is).
        #expect(inflated.last.map { $0 >= UInt64(size) } == true, "\(inflated)")
    }

    @Test("a truncated export.xml is refused with its line, and nothing of it is imported")
    func truncated() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_truncated.xml", "strava_same_run.gpx"], into: temporary)
        #expect(results.count == 2)
        let error = try #require(results[0].error)
        #expect(results[0].kind == "apple-health")
        #expect(error.hasPrefix("apple_health_truncated.xml, line "), "\(error)")
        #expect(error.contains("truncated"), "\(error)")
        // The next file still imports; nothing of the broken one does.
        #expect(results[1].error == nil)
        let workouts = try Self.workouts(temporary.store)
        #expect(workouts.count == 1)
        #expect(workouts.first?.item.externalID == "gpx")
        #expect(try Self.motion(temporary.store).isEmpty)
    }

    @Test("broken documents: each refused with what is wrong")
    func malformed() throws {
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        let cases: [(String, String)] = [
            ("<HealthData>\n <Record type=\"x\" startDate=\"2024-05-04 07:05:00 -0400\"/>\n", "ends inside <HealthData>"),
            ("<HealthData>\n <Correlation>\n </Record>\n</HealthData>\n", "</Record> where <Correlation> should close"),
            ("<HealthData>\n <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"12\" startDate=\"yesterday\" endDate=\"today\"/>\n</HealthData>\n",
             "not a date"),
            ("<HealthData>\n <Record type=HKQuantityTypeIdentifierStepCount/>\n</HealthData>\n", "without quotes"),
            ("<HealthData/>\n<HealthData/>\n", "after the root"),
            ("<HealthData>\n" + String(repeating: "<a>", count: 100) + "\n", "deeper than 64"),
            ("<HealthData>\n <Record type=\"" + String(repeating: "x", count: 1_100_000) + "\"/>\n</HealthData>\n", "longer than"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = directory.path + "/export-\(index).xml"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try AppleHealthExport.read(path: path, name: "export.xml")
                Issue.record("case \(index) was read")
            } catch {
                #expect(error.description.contains(expected), "\(index): \(error.description)")
                #expect(error.location?.hasPrefix("line ") == true)
            }
        }
    }

    @Test("tags split across reads are read whole: a document read in chunks of any size gives the same")
    func chunkBoundaries() throws {
        // Records long enough that several straddle every 1 MiB chunk boundary.
        let directory = try TemporaryDirectory(prefix: "pkd-health")
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ATTLIST Record a CDATA \"x>y\">\n]>\n<HealthData locale=\"en_US\">\n"
        let base = Int64(1_714_737_600)
        for index in 0..<30_000 {
            let start = base + Int64(index) * 60
            let date = { (s: Int64) in
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = TimeZone(secondsFromGMT: 0)
                f.dateFormat = "yyyy-MM-dd HH:mm:ss"
                return f.string(from: Date(timeIntervalSince1970: Double(s))) + " +0000"
            }
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Ana&#8217;s &lt;Watch&gt;\" unit=\"count\" "
                + "startDate=\"\(date(start))\" endDate=\"\(date(start + 60))\" value=\"\(index % 3 == 0 ? 0 : 100)\"/>\n"
        }
        text += "</HealthData>\n"
        let path = directory.path + "/export.xml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text.utf8.count > 2 * XMLTagStream.chunk)
        let data = try AppleHealthExport.read(path: path, name: "export.xml")
        #expect(data.read["health records"] == 30_000)
        // Every third minute has no steps: 2 of 3 minutes at 100 steps keep one walk going all along.
        #expect(data.motion.count == 1)
        #expect(data.motion.first?.steps == 2_000_000)
    }

    @Test("a long route is thinned to what the library keeps, its first and last points kept, while the export is read")
    func thinning() {
        let route = (0..<3_601).map { LocationPoint(timeMs: Int64($0) * 1000, latitude: 40 + Double($0) * 1e-5, longitude: -74) }
        let thinned = AppleHealthExport.thinned(route)
        #expect(thinned.count == ExportItems.maximumRoutePoints)
        #expect(thinned.first == route.first)
        #expect(thinned.last == route.last)
        #expect(AppleHealthExport.thinned(Array(route.prefix(66))).count == 66)
    }

    @Test("many walks and workouts cost n log n: 50,000 ten-minute walks, every other inside a workout")
    func manyWalks() {
        var samples = StepSamples()
        let base: Int64 = 1_700_000_000_000
        for walk in 0..<50_000 {
            let start = base + Int64(walk) * 1_800_000  // every 30 minutes
            for minute in 0..<11 {
                let t = start + Int64(minute) * 60_000
                samples.add(startMs: t, endMs: t + 60_000, steps: 110, source: "watch")
            }
        }
        samples.finish()
        let workouts = (0..<25_000).map { i -> ClosedRange<Int64> in
            let start = base + Int64(2 * i) * 1_800_000
            return start...(start + 660_000)
        }
        let bouts = samples.bouts(outside: workouts, format: "apple-health")
        #expect(bouts.count == 25_000)
        #expect(bouts.allSatisfy { $0.steps == 1_210 })
    }

    @Test("attribute entities are decoded")
    func entities() {
        let bytes = Array("Ana&#8217;s &lt;Watch&gt; &amp; &quot;phone&quot; &#x41;&unknown;".utf8)
        let text = bytes.withUnsafeBufferPointer { XMLTagStream.decoded($0) }
        #expect(text == "Ana\u{2019}s <Watch> & \"phone\" A&unknown;")
    }

    // MARK: State of Mind

    /// The moods `apple_health_state_of_mind.xml` holds, read.
    static func stateOfMind() throws -> ImportedData {
        try AppleHealthExport.read(path: Self.fixtures + "/apple_health_state_of_mind.xml", name: "export.xml")
    }

    @Test("State of Mind: a daily mood, a momentary emotion and HealthKit's raw numbers; unknown labels dropped")
    func stateOfMindReader() throws {
        let data = try Self.stateOfMind()
        #expect(data.moods.count == 3)
        guard data.moods.count == 3 else { return }
        let (daily, moment, numbers) = (data.moods[0], data.moods[1], data.moods[2])
        #expect(daily.startMs == HealthDates.parse("2024-10-02 21:10:00 -0400")!.ms)
        #expect(daily.kind == .dailyMood)
        #expect(daily.valence == 0.62)
        #expect(daily.labels == [.happy, .grateful])
        #expect(daily.associations == [.family, .fitness])
        #expect(daily.format == "apple-health")
        #expect(moment.startMs == HealthDates.parse("2024-10-03 09:40:00 -0400")!.ms)
        #expect(moment.kind == .momentaryEmotion)
        #expect(moment.valence == -0.4)
        #expect(moment.labels == [.stressed, .worried])
        #expect(moment.associations == [.work])
        #expect(numbers.kind == .dailyMood)
        #expect(numbers.valence == -1)
        #expect(numbers.labels == [.happy])
        #expect(numbers.associations == [.selfCare])
        // The step count beside them is read as ever.
        #expect(data.read["health records"] == 10)
    }

    @Test("State of Mind samples without a date or a valence in range are left out and counted, never fatal")
    func stateOfMindMalformed() throws {
        let data = try Self.stateOfMind()
        // Valence 1.7, none, "pleasant", no date.
        #expect(data.leftOut[AppleHealthExport.stateOfMindLeftOut] == 4)
        // Another in the first one's minute.
        #expect(data.leftOut[AppleHealthExport.stateOfMindRepeated] == 1)
        #expect(data.leftOut.count == 2, "\(data.leftOut)")
    }

    @Test("State of Mind samples become StateOfMind items, as Daylio's moods do; again, they are duplicates")
    func stateOfMindImport() throws {
        let temporary = try TemporaryStore()
        let results = Self.importing(["apple_health_state_of_mind.xml"], into: temporary)
        #expect(results.map(\.kind) == ["apple-health"])
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.counts["moods"] == 3)
        #expect(result.added == 3)
        let states = try temporary.store.items().compactMap { item -> (LibraryItem, StateOfMindSample)? in
            if case .stateOfMind(let s) = item.asset, let state = s.state { return (item, state) }
            return nil
        }.sorted { $0.0.startMs < $1.0.startMs }
        #expect(states.count == 3)
        #expect(states.map(\.0.externalID) == ["apple-health", "apple-health", "apple-health"])
        #expect(states.map(\.1.valenceClassification) == [.pleasant, .slightlyUnpleasant, .veryUnpleasant])
        #expect(states.map(\.1.kind) == [.dailyMood, .momentaryEmotion, .dailyMood])
        #expect(states.first?.1.labels == [.happy, .grateful])
        let again = Self.importing(["apple_health_state_of_mind.xml"], into: temporary)
        #expect(again.first?.added == 0)
        #expect(again.first?.duplicates == 3)
    }
}
