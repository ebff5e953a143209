// pickerd-bench-records: streaming a Google Takeout Records.json of a million points (about 150 MB,
// generated in the same run in Takeout's own shape: four years of a person's days at home, walking
// and at work, a fix every two minutes) through the streaming reader and stay detection: points/s,
// MB/s and peak RSS (VmHWM, reset before each phase through /proc/self/clear_refs where the kernel
// allows it). The baseline, measured in the same run on the same file, is reading its bytes through
// the same 64 KiB chunked reader without parsing (touching every byte). The file is read from the
// page cache (it was just written), so the figures are parsing, not disk. Tools/bench-records builds
// it and runs it.
//
//   pickerd-bench-records WORK-DIR [POINTS]

import BenchSupport
import Foundation
import Glibc
import PickerdImport
import PickerdReaders
import PickerdStore

func fail(_ message: String) -> Never { benchFail("bench-records", message) }

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: pickerd-bench-records WORK-DIR [POINTS]") }
let work = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 1_000_000
guard count > 0 else { fail("POINTS is a number of points") }
let path = work + "/Records.json"

// MARK: the file

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (Howard Hinnant's civil_from_days).
func appendISO(_ ms: Int64, to out: inout [UInt8]) {
    let seconds = Int(ms / 1000), days = seconds / 86_400, rest = seconds % 86_400
    let z = days + 719_468, era = (z >= 0 ? z : z - 146_096) / 146_097, doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    appendDecimal(y, to: &out); out.append(UInt8(ascii: "-")); appendTwoDigits(m, to: &out); out.append(UInt8(ascii: "-")); appendTwoDigits(d, to: &out)
    out.append(UInt8(ascii: "T")); appendTwoDigits(rest / 3600, to: &out); out.append(UInt8(ascii: ":")); appendTwoDigits(rest / 60 % 60, to: &out)
    out.append(UInt8(ascii: ":")); appendTwoDigits(rest % 60, to: &out); out.append(UInt8(ascii: "."))
    let milli = Int(ms % 1000)
    out.append(UInt8(ascii: "0") + UInt8(milli / 100)); appendTwoDigits(milli % 100, to: &out); out.append(UInt8(ascii: "Z"))
}

/// Writes `count` points in Takeout's shape: each day home until 08:00, a 30-minute walk, work until
/// 17:30, the walk back, home; a fix every two minutes with 15–40 m of jitter, walking fixes with
/// Google's `activity` guesses.
func generate(_ path: String, count: Int) -> Int {
    guard let file = fopen(path, "w") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20)
    var written = 0
    func flush() {
        written += out.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        out.removeAll(keepingCapacity: true)
    }
    let home = (40.7870, -73.9754), office = (40.7527, -73.9772)
    let start: Int64 = 1_577_836_800_000 // 2020-01-01T00:00:00Z
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53)
    }
    out.append(contentsOf: Array("{\n  \"locations\": [".utf8))
    for i in 0..<count {
        let t = start + Int64(i) * 120_000 + Int64(random() * 20_000)
        let minuteOfDay = Int((t / 60_000) % 1440)
        var place: (Double, Double), walking = false, accuracy = 15 + Int(random() * 25)
        switch minuteOfDay {
        case ..<480, 1110...: place = home
        case 480..<510, 1080..<1110:
            let f = Double(minuteOfDay < 1080 ? minuteOfDay - 480 : 1110 - minuteOfDay) / 30
            place = (home.0 + (office.0 - home.0) * f, home.1 + (office.1 - home.1) * f)
            walking = true
            accuracy = 5 + Int(random() * 10)
        default: place = office
        }
        let lat = place.0 + (random() - 0.5) * 0.0005, lon = place.1 + (random() - 0.5) * 0.0006
        out.append(contentsOf: Array((i == 0 ? "{\n" : ", {\n").utf8))
        out.append(contentsOf: Array("    \"latitudeE7\": ".utf8)); appendDecimal(Int((lat * 1e7).rounded()), to: &out)
        out.append(contentsOf: Array(",\n    \"longitudeE7\": ".utf8)); appendDecimal(Int((lon * 1e7).rounded()), to: &out)
        out.append(contentsOf: Array(",\n    \"accuracy\": ".utf8)); appendDecimal(accuracy, to: &out)
        if walking {
            out.append(contentsOf: Array(",\n    \"activity\": [{\n      \"activity\": [{\n        \"type\": \"WALKING\",\n        \"confidence\": 88\n      }, {\n        \"type\": \"ON_FOOT\",\n        \"confidence\": 88\n      }],\n      \"timestamp\": \"".utf8))
            appendISO(t, to: &out)
            out.append(contentsOf: Array("\"\n    }]".utf8))
        }
        out.append(contentsOf: Array(",\n    \"source\": \"WIFI\",\n    \"deviceTag\": 1978796627,\n    \"timestamp\": \"".utf8))
        appendISO(t, to: &out)
        out.append(contentsOf: Array("\"\n  }".utf8))
        if out.count > 1 << 20 - 4096 { flush() }
    }
    out.append(contentsOf: Array("]\n}\n".utf8))
    flush()
    return written
}

// MARK: the run

FileHandle.standardError.write(Data("bench-records: writing \(count) points to \(path)…\n".utf8))
var t0 = now()
let bytes = generate(path, count: count)
let generateSeconds = (now() - t0) / 1000
let mb = Double(bytes) / 1_048_576
let peakResets = resetPeakMemory()

struct Row {
    var name: String
    var seconds: Double
    var points: Int
    var peak: Double
}
var rows: [Row] = []

// The baseline: the same chunked reads, every byte looked at (counting newlines), no parsing.
_ = resetPeakMemory()
t0 = now()
var newlines = 0
do {
    try FileChunks.forEach(path: path) { chunk in
        var n = 0
        for b in chunk where b == 0x0A { n += 1 }
        newlines += n
    }
} catch { fail("\(error)") }
rows.append(Row(name: "read 64 KiB chunks (baseline)", seconds: (now() - t0) / 1000, points: count, peak: processMemory().peak))

// The streaming reader alone.
_ = resetPeakMemory()
t0 = now()
var streamed = 0
do { try TakeoutRecords.stream(path: path) { _ in streamed += 1 } } catch { fail("\(error)") }
rows.append(Row(name: "stream points (TakeoutRecords.stream)", seconds: (now() - t0) / 1000, points: streamed, peak: processMemory().peak))
guard streamed == count else { fail("streamed \(streamed) of \(count) points") }

// The reader and stay detection, RSS sampled as it goes.
_ = resetPeakMemory()
t0 = now()
var samples: [(Int, Double)] = []
let data: ImportedData
do {
    data = try TakeoutRecords.read(path: path) { n in
        if n % (count / 10 > 0 ? count / 10 : 1) == 0, samples.last?.0 != n { samples.append((n, processMemory().rss)) }
    }
} catch { fail("\(error)") }
rows.append(Row(name: "stream + stay detection (read)", seconds: (now() - t0) / 1000, points: count, peak: processMemory().peak))

print("")
print("Records.json: \(count) points, \(f(mb)) MB, written in \(f(generateSeconds)) s; \(newlines) lines")
print("")
print("| phase | time (s) | points/s | MB/s | peak RSS (MB) |")
print("|---|---:|---:|---:|---:|")
for r in rows {
    print("| \(r.name) | \(f(r.seconds, 2)) | \(Int(Double(r.points) / r.seconds)) | \(f(mb / r.seconds)) | \(f(r.peak)) |")
}
print("")
let ratio = rows[1].seconds / rows[0].seconds
print("parsing costs \(f(ratio)) × the baseline read; stay detection adds \(f((rows[2].seconds - rows[1].seconds) / rows[1].seconds * 100, 0)) %")
print("RSS while streaming (MB): " + samples.map { "\($0.0 / 1000)k: \(f($0.1))" }.joined(separator: ", "))
print("peak RSS \(peakResets ? "per phase (VmHWM reset before each)" : "of the whole process (VmHWM could not be reset; includes generation)")")
print("found \(data.visits.count) visits at \(data.places.count) significant places; home: "
      + (data.places.first { $0.semantic == "home" }.map { "\(f($0.coordinate.latitude, 4)), \(f($0.coordinate.longitude, 4))" } ?? "none"))
if rows.contains(where: { $0.peak >= 100 }) { fail("peak RSS reached 100 MB") }
