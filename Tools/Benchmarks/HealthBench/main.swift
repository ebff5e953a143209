// pickerd-bench-health: a one-year Apple Health export of a daily watch wearer (2 million records by
// default, generated in the same run to the export's schema: step counts from a watch and a phone,
// heart rate, active and basal energy, walking distance, a run every other day with its route file,
// a walk on the others), zipped as the Health app's export.zip, then imported as pickerd imports it:
// `pickerctl import export.zip` into a real pickerd (release build), whose confined pickerd-reader
// streams export.xml out of the zip (inflated as it is parsed), while pickerd writes the items and
// builds the moments of the weeks they touch: records/s, and the peak RSS of pickerd and of the reader
// (sampled every 50 ms, and their VmHWM at the end). Against it, in this process and the same run on
// the same files: the same import unconfined (ExportImporter with InProcessReading, then the moments),
// so the confined rate is a ratio of the unconfined one; the read alone (export.xml from its folder,
// and from the zip); and a baseline, reading export.xml's bytes in 1 MiB chunks and looking at each
// (counting newlines), no parsing. Peak RSS in this process is VmHWM, reset before each phase through
// /proc/self/clear_refs where the kernel allows it. The files are read from the page cache (just
// written), so the figures are parsing, not disk. Tools/bench-health builds it and runs it.
//
//   pickerd-bench-health BIN-DIR WORK-DIR [RECORDS]
import BenchSupport
import Foundation
import Glibc
import PickerdImport
import PickerdMoments
import PickerdReaders
import PickerdStore
import Synchronization

func fail(_ message: String) -> Never { benchFail("bench-health", message) }

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: pickerd-bench-health BIN-DIR WORK-DIR [RECORDS]") }
let bin = arguments[1], work = arguments[2]
let target = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 2_000_000
guard target > 0 else { fail("RECORDS is a number of records") }
let folder = work + "/apple_health_export"
let path = folder + "/export.xml"

// MARK: the export

/// `YYYY-MM-DD hh:mm:ss +0100`, as the Health app writes dates (local time and its offset).
func appendDate(_ seconds: Int, to out: inout [UInt8]) {
    let local = seconds + 3600
    let days = local / 86_400, rest = local % 86_400
    let z = days + 719_468, era = (z >= 0 ? z : z - 146_096) / 146_097, doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    appendDecimal(y, to: &out); out.append(UInt8(ascii: "-")); appendTwoDigits(m, to: &out); out.append(UInt8(ascii: "-")); appendTwoDigits(d, to: &out)
    out.append(0x20); appendTwoDigits(rest / 3600, to: &out); out.append(UInt8(ascii: ":")); appendTwoDigits(rest / 60 % 60, to: &out)
    out.append(UInt8(ascii: ":")); appendTwoDigits(rest % 60, to: &out)
    out.append(contentsOf: Array(" +0100".utf8))
}

/// `YYYY-MM-DDThh:mm:ssZ`, for route points.
func appendISO(_ seconds: Int, to out: inout [UInt8]) {
    var local: [UInt8] = []
    appendDate(seconds - 3600, to: &local)
    out.append(contentsOf: local.prefix(10))
    out.append(UInt8(ascii: "T"))
    out.append(contentsOf: local[11..<19])
    out.append(UInt8(ascii: "Z"))
}

/// Writes the export: per day, from 2023-01-01, records of a watch wearer until `target` records are
/// written, and a workout each day (a run with a route on even days, a walk on odd ones).
func generate() -> (bytes: Int, records: Int, workouts: Int, days: Int) {
    try? FileManager.default.createDirectory(atPath: folder + "/workout-routes", withIntermediateDirectories: true)
    guard let file = fopen(path, "w") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20)
    var written = 0
    func flush() {
        written += out.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        out.removeAll(keepingCapacity: true)
    }
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53)
    }
    out.append(contentsOf: Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_GB">
         <ExportDate value="2024-01-01 12:00:00 +0100"/>

        """.utf8))
    let watch = Array("Ana\u{2019}s Apple Watch".utf8), phone = Array("Ana\u{2019}s iPhone".utf8)
    let device = Array(" device=\"&lt;&lt;HKDevice: 0x2839f4a50&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.4&gt;\"".utf8)
    var records = 0, workouts = 0, day = 0
    let start = 1_672_531_200 - 3600  // 2023-01-01 00:00 +0100
    func record(_ type: String, _ source: [UInt8], unit: String, from: Int, to: Int, value: Int) {
        out.append(contentsOf: Array(" <Record type=\"\(type)\" sourceName=\"".utf8))
        out.append(contentsOf: source)
        out.append(contentsOf: Array("\" sourceVersion=\"10.4\"".utf8))
        if source == watch { out.append(contentsOf: device) }
        out.append(contentsOf: Array(" unit=\"\(unit)\" creationDate=\"".utf8)); appendDate(to + 60, to: &out)
        out.append(contentsOf: Array("\" startDate=\"".utf8)); appendDate(from, to: &out)
        out.append(contentsOf: Array("\" endDate=\"".utf8)); appendDate(to, to: &out)
        out.append(contentsOf: Array("\" value=\"".utf8)); appendDecimal(value, to: &out)
        out.append(contentsOf: Array("\"/>\n".utf8))
        records += 1
        if out.count > (1 << 20) - 8192 { flush() }
    }
    // A year: each day's share of the records, as a watch writes them (heart rate, active and basal
    // energy a minute apart all day; walking distance a minute apart while awake; steps in 5-minute
    // samples from the watch and 10-minute ones from the phone, with a walk to work and back).
    let perDay = max(1, target / 365)
    while records < target {
        let midnight = start + day * 86_400
        let dayTarget = min(target, (day + 1) * perDay + (day == 364 ? target - 365 * perDay : 0))
        for minute in stride(from: 7 * 60, to: 23 * 60, by: 5) where records < dayTarget {
            let t = midnight + minute * 60
            let walking = (8 * 60..<8 * 60 + 30).contains(minute) || (18 * 60..<18 * 60 + 30).contains(minute)
            let steps = walking ? 520 + Int(random() * 60) : Int(random() * 80)
            record("HKQuantityTypeIdentifierStepCount", watch, unit: "count", from: t, to: t + 300, value: steps)
            if minute % 10 == 0 {
                record("HKQuantityTypeIdentifierStepCount", phone, unit: "count", from: t, to: t + 600, value: steps * 2 - Int(random() * 50))
            }
        }
        var minute = 0
        while records < dayTarget {
            let t = midnight + (minute % 1440) * 60 + (minute / 1440)
            switch minute % 4 {
            case 0: record("HKQuantityTypeIdentifierHeartRate", watch, unit: "count/min", from: t, to: t, value: 55 + Int(random() * 40))
            case 1: record("HKQuantityTypeIdentifierActiveEnergyBurned", watch, unit: "kcal", from: t, to: t + 60, value: Int(random() * 5))
            case 2: record("HKQuantityTypeIdentifierBasalEnergyBurned", watch, unit: "kcal", from: t, to: t + 60, value: 1)
            default: record("HKQuantityTypeIdentifierDistanceWalkingRunning", watch, unit: "km", from: t, to: t + 60, value: 0)
            }
            minute += 1
        }
        // The day's workout, at 07:00 local.
        let workoutStart = midnight + 7 * 3600, minutes = 30 + day % 20
        let run = day % 2 == 0
        out.append(contentsOf: Array(" <Workout workoutActivityType=\"\(run ? "HKWorkoutActivityTypeRunning" : "HKWorkoutActivityTypeWalking")\" duration=\"\(minutes)\" durationUnit=\"min\" sourceName=\"".utf8))
        out.append(contentsOf: watch)
        out.append(contentsOf: Array("\" sourceVersion=\"10.4\" creationDate=\"".utf8)); appendDate(workoutStart + minutes * 60, to: &out)
        out.append(contentsOf: Array("\" startDate=\"".utf8)); appendDate(workoutStart, to: &out)
        out.append(contentsOf: Array("\" endDate=\"".utf8)); appendDate(workoutStart + minutes * 60, to: &out)
        out.append(contentsOf: Array("\">\n  <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n".utf8))
        let km = Double(minutes) / (run ? 5.5 : 11)
        out.append(contentsOf: Array("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sum=\"\(km)\" unit=\"km\"/>\n".utf8))
        out.append(contentsOf: Array("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" sum=\"\(minutes * 11)\" unit=\"kcal\"/>\n".utf8))
        out.append(contentsOf: Array("  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" average=\"\(run ? 152 : 104)\" unit=\"count/min\"/>\n".utf8))
        if run {
            let name = "route_\(day).gpx"
            out.append(contentsOf: Array("  <WorkoutRoute sourceName=\"Watch\">\n   <FileReference path=\"/workout-routes/\(name)\"/>\n  </WorkoutRoute>\n".utf8))
            var gpx: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>Route</name><trkseg>\n".utf8)
            for second in stride(from: 0, to: minutes * 60, by: 3) {
                let f = Double(second) / Double(minutes * 60)
                gpx.append(contentsOf: Array("<trkpt lon=\"\(13.40 + 0.03 * sin(f * 6.283))\" lat=\"\(52.52 + 0.02 * cos(f * 6.283))\"><ele>34</ele><time>".utf8))
                appendISO(workoutStart + second, to: &gpx)
                gpx.append(contentsOf: Array("</time></trkpt>\n".utf8))
            }
            gpx.append(contentsOf: Array("</trkseg></trk></gpx>\n".utf8))
            _ = FileManager.default.createFile(atPath: folder + "/workout-routes/" + name, contents: Data(gpx))
        }
        out.append(contentsOf: Array(" </Workout>\n".utf8))
        workouts += 1
        day += 1
    }
    out.append(contentsOf: Array("</HealthData>\n".utf8))
    flush()
    return (written, records, workouts, day)
}

// MARK: pickerd and its readers, from /proc

/// pickerd's children running pickerd-reader (/proc/PID/stat: its name, and its parent).
@Sendable func readers(of pickerd: Int32) -> [Int32] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { Int32($0) }.filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return false }
        let name = stat[stat.index(after: open)..<close]
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return name.hasPrefix("pickerd-reader") && fields.count > 1 && Int32(fields[1]) == pickerd
    }
}

/// A process's user and system CPU seconds (/proc/PID/stat, fields 14 and 15).
func cpuSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// pickerd's and its readers' resident memory, sampled every 50 ms while an import runs: the peaks, MB.
final class Sampler: Sendable {
    private let peaks = Mutex<(pickerd: Double, reader: Double, readers: Int)>((0, 0, 0))
    private let stopped = Atomic<Bool>(false)

    init(_ pid: Int32) {
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                let own = processMemory("\(pid)").rss
                let found = readers(of: pid)
                let reader = found.map { processMemory("\($0)").rss }.max() ?? 0
                peaks.withLock { $0 = (max($0.pickerd, own), max($0.reader, reader), max($0.readers, found.count)) }
                usleep(50_000)
            }
        }
    }

    func stop() -> (pickerd: Double, reader: Double, readers: Int) {
        stopped.store(true, ordering: .releasing)
        usleep(120_000)
        return peaks.withLock { $0 }
    }
}

// MARK: the run

FileHandle.standardError.write(Data("bench-health: writing \(target) records to \(path)…\n".utf8))
var t0 = now()
let made = generate()
let generateSeconds = (now() - t0) / 1000
let mb = Double(made.bytes) / 1_048_576
let items = made.records + made.workouts
// The Health app's export.zip: apple_health_export/ deflated (zip's default level).
t0 = now()
let zip = work + "/export.zip"
let zipped = runProgram("/bin/sh", ["-c", "cd '\(work)' && zip -q -r export.zip apple_health_export"])
guard zipped.status == 0 else { fail("zip: \(zipped.err)") }
let zipSeconds = (now() - t0) / 1000
let zipMB = Double((try? FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int) ?? 0) / 1_048_576
let peakResets = resetPeakMemory()

struct Row {
    var name: String
    var seconds: Double
    var peak: String
}
var rows: [Row] = []
@MainActor func row(_ name: String, _ seconds: Double, _ peak: Double) { rows.append(Row(name: name, seconds: seconds, peak: f(peak))) }

// The baseline: 1 MiB chunked reads, every byte looked at, no parsing.
_ = resetPeakMemory()
t0 = now()
var newlines = 0
do {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { fail("cannot read \(path)") }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
    while true {
        let n = read(fd, buffer, 1 << 20)
        guard n > 0 else { break }
        var p = buffer
        let end = buffer + n
        while p < end, let hit = memchr(p, 0x0A, end - p) {
            newlines += 1
            p = hit + 1
        }
    }
    buffer.deallocate()
    close(fd)
}
row("baseline: read export.xml in 1 MiB chunks, find each line", (now() - t0) / 1000, processMemory().peak)

// The reader alone, in this process: export.xml from its folder (streamed from the file), routes read, steps folded.
_ = resetPeakMemory()
t0 = now()
var samples: [(Int, Double)] = []
let data: ImportedData
do {
    data = try AppleHealthExport.read(path: path, name: "export.xml") { n in
        if n % 500_000 == 0 { samples.append((n, processMemory().rss)) }
    }
} catch { fail("\(error)") }
row("in process: read export.xml (AppleHealthExport.read)", (now() - t0) / 1000, processMemory().peak)
guard data.read["health records"] == items + 1 else { fail("read \(data.read["health records"] ?? 0) of \(items + 1) records") }

// The reader alone, in this process, as a reader process reads it: export.zip, export.xml inflated as it is parsed.
_ = resetPeakMemory()
t0 = now()
let fromZip = InProcessReading().export(path: zip, name: "export.zip", names: [:], nowMs: nil, granted: { _ in true }) { _ in }
row("in process: read export.zip (export.xml streamed from the zip)", (now() - t0) / 1000, processMemory().peak)
guard let zipRead = fromZip.first(where: { $0.kind == "apple-health" }), zipRead.error == nil,
      zipRead.data?.read["health records"] == items + 1 else { fail("reading the zip: \(fromZip.map { "\($0.file) \($0.kind) \($0.error ?? "")" })") }

// The import unconfined: export.zip read in this process, items written to a store, the weeks' moments built.
_ = resetPeakMemory()
t0 = now()
let results: [ExportImporter.FileResult]
do {
    let store = try Store(dataDirectory: work + "/store")
    results = ExportImporter(store: store, reading: InProcessReading()).run([zip]) { _, _, _, _ in }
    try MomentEngine(store: store).refresh(touching: results.flatMap(\.touched))
} catch { fail("\(error)") }
let inProcessImport = (now() - t0) / 1000
row("in process: import export.zip (read, write, moments)", inProcessImport, processMemory().peak)
guard let result = results.first(where: { $0.kind == "apple-health" }), result.error == nil else { fail("import: \(results)") }

// As pickerd does it: pickerctl import into a running pickerd; export.xml read by a confined pickerd-reader.
let pickerd = BenchPickerd(root: work + "/pickerd", bin: bin)
pickerd.start()
let pid = pickerd.process!.processIdentifier
let rssAtRest = pickerd.memory().rss
let sampler = Sampler(pid)
t0 = now()
let imported = pickerd.ctl(["import", zip])
let confinedImport = (now() - t0) / 1000
let sampled = sampler.stop()
guard imported.status == 0, imported.out.contains("health records") else { fail("pickerctl import: \(imported.out) \(imported.err)") }
let readerPids = readers(of: pid)
let readerPeak = readerPids.map { processMemory("\($0)").peak }.max() ?? 0
let readerCPU = readerPids.map(cpuSeconds).max() ?? 0
let pickerdPeak = pickerd.memory().peak
pickerd.stop()
rows.append(Row(name: "pickerd: pickerctl import export.zip (confined reader, write, moments)", seconds: confinedImport,
                peak: "pickerd \(f(max(sampled.pickerd, 0))) (VmHWM \(f(pickerdPeak))); reader \(f(max(sampled.reader, readerPeak)))"))

print("")
print("export.xml: \(made.records) records and \(made.workouts) workouts over \(made.days) days, \(f(mb)) MB, "
      + "written in \(f(generateSeconds)) s; \(newlines) lines; \(made.workouts / 2 + made.workouts % 2) route files; "
      + "export.zip \(f(zipMB)) MB, zipped in \(f(zipSeconds)) s")
print("")
print("| phase | time (s) | records/s | MB/s of export.xml | peak RSS (MB) |")
print("|---|---:|---:|---:|---|")
for r in rows {
    print("| \(r.name) | \(f(r.seconds, 2)) | \(Int(Double(items) / r.seconds)) | \(f(mb / r.seconds)) | \(r.peak) |")
}
print("")
print("confined import rate ÷ unconfined import rate: \(f(inProcessImport / confinedImport, 2))× "
      + "(pickerd \(f(confinedImport, 1)) s, in process \(f(inProcessImport, 1)) s)")
print("the reader's CPU: \(f(readerCPU, 1)) s (the same read in process: \(f(rows[2].seconds, 1)) s); readers running: \(sampled.readers); "
      + "pickerd at rest \(f(rssAtRest)) MB")
print("reading costs \(f(rows[1].seconds / rows[0].seconds)) × the baseline from the folder, \(f(rows[2].seconds / rows[0].seconds)) × from the zip")
print("RSS while streaming in process (MB): " + samples.map { "\($0.0 / 1000)k: \(f($0.1))" }.joined(separator: ", "))
print("peak RSS in process \(peakResets ? "per phase (VmHWM reset before each)" : "of the whole process (VmHWM could not be reset; includes generation)"); "
      + "pickerd's and the reader's sampled every 50 ms (the reader's also its VmHWM)")
print("imported: \(result.workouts) workouts, \(result.counts["walks and runs"] ?? 0) walks and runs, \(result.added) items")
let confinedRate = Double(items) / confinedImport
if confinedRate < 50_000 { print("below the target of 50,000 records/s through pickerd") }
if max(sampled.pickerd, pickerdPeak) > 200 || max(sampled.reader, readerPeak) > 200 { print("above the target of 200 MB peak RSS") }
