// pickerd-bench-places: the offline gazetteer (PickerdPlaces' Gazetteer over Debian's libgeonames):
// the time to build its index, the index's memory, and the cost of one lookup (nearest city, a
// place's name, its time zone) over random land-ish coordinates (a city's centre moved up to 50 km
// in a random direction, so queries fall where people are) and a fixed list of real places.
//
// Baselines, measured in the same run on the same machine: copying every city out of libgeonames
// through the same C API with no index (for the build), and a brute-force linear scan over every
// city's coordinates, packed in one array, with the same haversine (for a lookup), on the first
// BASELINE queries of the same list. Every baseline query's answer is checked: the grid must find
// the city the scan finds. Read the ratios: the machine is shared and noisy. Tools/bench-places
// builds it (release) and runs it.
//
//   pickerd-bench-places [QUERIES] [BASELINE]     (default: 100000 and 2000)

import CGeonames
import Foundation
import Glibc
import PickerdPlaces

// BenchSupport's clock, percentile and number format, repeated here: linking it would build the
// wire protocol and the transport in release mode for a benchmark that uses neither.

/// Prints one line on stderr, exits 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-places: \(message)\n".utf8))
    exit(1)
}

/// Milliseconds on the monotonic clock.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

/// The `p` quantile (0…1) of `samples`, nearest rank.
func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// `value` with `digits` decimals.
func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

let arguments = CommandLine.arguments
let queryCount = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 100_000
let baselineCount = min(queryCount, arguments.count > 2 ? Int(arguments[2]) ?? 0 : 2_000)
guard queryCount > 0, baselineCount > 0 else { fail("usage: pickerd-bench-places [QUERIES] [BASELINE]") }

/// This process's resident memory from /proc/self/status, MB.
func rss() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
}

/// This process's anonymous resident memory (heap and stacks, no file pages) from
/// /proc/self/smaps_rollup, MB: what the index's allocations add, without libgeonames' own pages.
func anonymous() -> Double {
    guard let rollup = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) else { return 0 }
    let line = rollup.split(separator: "\n").first { $0.hasPrefix("Anonymous:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
}

/// Microseconds, for a table.
func us(_ ms: Double) -> String { ms * 1000 >= 100 ? f(ms * 1000, 0) : ms * 1000 >= 10 ? f(ms * 1000, 1) : f(ms * 1000, 2) }

/// `value` with thousands separated by commas.
func thousands(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return out
}

// MARK: building the index

// The baseline: every city read out of libgeonames through the same C API into one reused struct
// (as Gazetteer reads them), nothing kept: no strings made, no index. Run first, so it, not the
// index, pays for touching libgeonames' data for the first time; then three times, warm, for the
// ratio.
func readCities() -> (count: Int, population: Int) {
    let count = Int(pickerd_city_count())
    var raw = pickerd_city(), population = 0
    for index in 0..<count where pickerd_city_at(Int32(index), &raw) == 0 { population += Int(raw.population) }
    return (count, population)
}
var t0 = now()
let read = readCities()
let coldReadMs = now() - t0
var readMs: [Double] = []
for _ in 0..<3 {
    t0 = now()
    guard readCities() == read else { fail("two reads of libgeonames disagree") }
    readMs.append(now() - t0)
}
guard read.count > 0 else { fail("libgeonames holds no city") }

// The index: Gazetteer() reads every city into Swift values and a one-degree grid. Built three
// times; the first one's memory is the index's (RSS and anonymous memory, before and after).
let rssBefore = rss(), anonymousBefore = anonymous()
t0 = now()
let gazetteer = Gazetteer()
var buildMs = [now() - t0]
let rssAfter = rss(), anonymousAfter = anonymous()
for _ in 0..<2 {
    t0 = now()
    let again = Gazetteer()
    buildMs.append(now() - t0)
    guard again.cities.count == gazetteer.cities.count else { fail("two builds disagree") }
}
let cities = gazetteer.cities
// The index's bytes, counted: the places as the gazetteer packs them (``Cities/bytes``: their
// arrays, each region and time zone once, and every string longer than Swift keeps inline); the
// grid (a dictionary of one-degree cells, each entry a key and an array of 32-bit indices, the
// dictionary at most 3/4 full). Beside them, what the same places took as ``City`` values (five
// strings each, a heap object for every one longer than 15 bytes), as the gazetteer kept them before.
let placesBytes = cities.bytes
let unpackedBytes = cities.count * MemoryLayout<City>.stride + cities.reduce(0) { total, city in
    total + [city.name, city.region, city.country, city.countryCode, city.timeZone]
        .reduce(0) { $0 + ($1.utf8.count > 15 ? (32 + $1.utf8.count + 15) / 16 * 16 : 0) }
}
var cellSizes: [Int: Int] = [:]
for city in cities {
    let row = min(179, max(0, Int((city.latitude + 90).rounded(.down))))
    let column = ((Int((city.longitude + 180).rounded(.down)) % 360) + 360) % 360
    cellSizes[row * 360 + column, default: 0] += 1
}
let gridBytes = cellSizes.count * 4 / 3 * (MemoryLayout<Int>.stride + MemoryLayout<[Int32]>.stride)
    + cellSizes.values.reduce(0) { $0 + (32 + 4 * $1 + 15) / 16 * 16 }
let indexBytes = placesBytes + gridBytes
let cBytes = read.count * MemoryLayout<pickerd_city>.stride

// MARK: the queries

/// A deterministic generator (a 64-bit LCG), so every run asks the same questions.
struct Random {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53)
    }
}
var generator = Random()

/// Real places, and what the gazetteer should call their nearest city (from the issue, and places
/// at the edges: the antimeridian, the far north and south, open sea).
let fixed: [(label: String, latitude: Double, longitude: Double, expected: String)] = [
    ("Porto, Aliados", 41.1522, -8.6205, "Porto"),
    ("Lisbon, Baixa", 38.7139, -9.1394, "Lisbon"),
    ("New York, Upper West Side", 40.78, -73.97, "Manhattan"),
    ("Arcos de Valdevez, countryside", 41.738, -8.144, "Vieira do Minho"),
    ("Melbourne, CBD", -37.81, 144.96, "Melbourne"),
    ("Kyoto, Gion", 35.0, 135.77, "Kyoto"),
    ("Reykjavik", 64.1466, -21.9426, "Reykjavik"),
    ("Santiago de Chile", -33.45, -70.66, "Santiago"),
    ("Suva, Fiji (near the antimeridian)", -18.14, 178.44, "Suva"),
    ("Tromsø (far north)", 69.65, 18.96, "Tromsø"),
    ("Ushuaia (far south)", -54.80, -68.30, "Ushuaia"),
    ("Mid-Atlantic (open sea)", 30.0, -40.0, ""),
]

var queries: [(Double, Double)] = []
queries.reserveCapacity(queryCount)
while queries.count < queryCount {
    let city = cities[Int(generator.next() * Double(cities.count))]
    let distance = generator.next() * 50_000, bearing = generator.next() * 2 * .pi
    let latitude = max(-89.9, min(89.9, city.latitude + distance * cos(bearing) / 111_195))
    var longitude = city.longitude + distance * sin(bearing) / (111_195 * max(0.01, cos(latitude * .pi / 180)))
    if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
    queries.append((latitude, longitude))
}

// The clock's own cost, so a reader can subtract it from a lookup's.
var clockSamples: [Double] = []
for _ in 0..<10_000 { let a = now(); clockSamples.append(now() - a) }
let clockP50 = percentile(clockSamples, 0.5)

/// Times `body` once per query; returns each call's milliseconds and a checksum of what it found.
func measure(_ queries: ArraySlice<(Double, Double)>, _ body: (Double, Double) -> Double) -> (samples: [Double], checksum: Double) {
    for q in queries.prefix(1_000) { _ = body(q.0, q.1) }  // warm up
    var samples: [Double] = []
    samples.reserveCapacity(queries.count)
    var checksum = 0.0
    for q in queries {
        let start = now()
        checksum += body(q.0, q.1)
        samples.append(now() - start)
    }
    return (samples, checksum)
}

let all = queries[...]
let nearest = measure(all) { gazetteer.nearest(latitude: $0, longitude: $1)?.distanceM ?? 0 }
let named = measure(all) { Double(gazetteer.name(latitude: $0, longitude: $1)?.place.utf8.count ?? 0) }
let zoned = measure(all) { Double(gazetteer.timeZone(latitude: $0, longitude: $1)?.identifier.utf8.count ?? 0) }

// The baseline lookup: every city's coordinates in one array, each one's distance, the least kept.
let packed = cities.flatMap { [$0.latitude, $0.longitude] }
func scan(_ latitude: Double, _ longitude: Double) -> (index: Int, distance: Double) {
    var best = (index: -1, distance: Double.infinity)
    packed.withUnsafeBufferPointer { p in
        for i in 0..<(p.count / 2) {
            let d = Gazetteer.distance(latitude, longitude, p[2 * i], p[2 * i + 1])
            if d < best.distance { best = (i, d) }
        }
    }
    return best
}
// Interleaved, query by query, so both meet the same load from whatever else the machine runs;
// each answer checked against the scan's.
var grid: (samples: [Double], checksum: Double) = ([], 0), brute: (samples: [Double], checksum: Double) = ([], 0)
var mismatches = 0
for q in queries.prefix(baselineCount) {
    var start = now()
    let found = gazetteer.nearest(latitude: q.0, longitude: q.1)
    grid.samples.append(now() - start)
    start = now()
    let truth = scan(q.0, q.1)
    brute.samples.append(now() - start)
    grid.checksum += found?.distanceM ?? 0
    brute.checksum += truth.distance
    if found == nil || abs(found!.distanceM - truth.distance) > 1e-6 { mismatches += 1 }
}

// MARK: the report

let p50 = percentile(nearest.samples, 0.5), p99 = percentile(nearest.samples, 0.99)
let gridP50 = percentile(grid.samples, 0.5), gridP99 = percentile(grid.samples, 0.99)
let bruteP50 = percentile(brute.samples, 0.5), bruteP99 = percentile(brute.samples, 0.99)
let buildMedian = percentile(buildMs, 0.5)

print("")
print("libgeonames' cities and cities500's small places (Data/places.tsv): \(thousands(cities.count)) places; \(thousands(queryCount)) land-ish queries (a city's centre moved up to 50 km), "
      + "brute-force baseline on the first \(thousands(baselineCount)); clock overhead \(us(clockP50)) µs per timed call (included below)")
print("")
print("| measure | gazetteer (grid) | baseline | ratio |")
print("|---|---:|---:|---:|")
func mb(_ bytes: Int) -> String { f(Double(bytes) / 1_048_576, 2) }
func row(_ cells: String...) { print("| " + cells.joined(separator: " | ") + " |") }
func timing(_ samples: [Double]) -> String { "\(us(percentile(samples, 0.5))) (\(us(percentile(samples, 0.99)))) µs" }
row("build the index, median of 3 (first)", "\(f(buildMedian)) ms (\(f(buildMs[0])) ms)",
    "read every city through libgeonames' API, keep nothing: \(f(percentile(readMs, 0.5))) ms (cold \(f(coldReadMs)) ms)",
    "\(f(buildMedian / percentile(readMs, 0.5))) ×")
row("index bytes, counted: places (packed) + grid", "\(mb(indexBytes)) MB (\(mb(placesBytes)) + \(mb(gridBytes)))",
    "the same places as City values: \(mb(unpackedBytes)) MB", "\(f(Double(placesBytes) / Double(unpackedBytes), 2)) ×")
row("index bytes against C structs", "\(mb(indexBytes)) MB",
    "the cities as fixed-size C structs (pickerd_city): \(mb(cBytes)) MB", "\(f(Double(indexBytes) / Double(cBytes), 2)) ×")
row("memory, first build: RSS (anonymous) before → after", "\(f(rssBefore)) → \(f(rssAfter)) MB (\(f(anonymousBefore)) → \(f(anonymousAfter)))",
    "", "+\(f(rssAfter - rssBefore)) MB (+\(f(anonymousAfter - anonymousBefore)))")
row("nearest city, p50 (p99), \(thousands(baselineCount)) queries", timing(grid.samples), "linear scan: \(timing(brute.samples))",
    "\(thousands(Int(bruteP50 / gridP50))) × faster (p99: \(thousands(Int(bruteP99 / gridP99))) ×)")
row("nearest city, p50 (p99; max), \(thousands(queryCount)) queries", "\(us(p50)) (\(us(p99)); \(us(nearest.samples.max()!))) µs", "", "")
row("name(latitude:longitude:), p50 (p99)", timing(named.samples), "nearest: \(timing(nearest.samples))",
    "\(f(percentile(named.samples, 0.5) / p50)) ×")
row("timeZone(latitude:longitude:), p50 (p99)", timing(zoned.samples), "nearest: \(timing(nearest.samples))",
    "\(f(percentile(zoned.samples, 0.5) / p50)) ×")
print("| grid's answer = scan's answer | \(baselineCount - mismatches) / \(baselineCount) | | |")
print("")
print("| real place | nearest city | km | name | time zone | lookup (median of 101) | scan agrees |")
print("|---|---|---:|---|---|---:|---|")
var wrong: [String] = []
for place in fixed {
    guard let found = gazetteer.nearest(latitude: place.latitude, longitude: place.longitude) else { fail("no city for \(place.label)") }
    var samples: [Double] = []
    for _ in 0..<101 {
        let start = now()
        _ = gazetteer.nearest(latitude: place.latitude, longitude: place.longitude)
        samples.append(now() - start)
    }
    let truth = scan(place.latitude, place.longitude)
    let agrees = abs(truth.distance - found.distanceM) < 1e-6
    if !agrees || (!place.expected.isEmpty && found.city.name != place.expected) { wrong.append(place.label) }
    let name = gazetteer.name(latitude: place.latitude, longitude: place.longitude)?.place ?? ""
    print("| \(place.label) | \(found.city.name), \(found.city.country) | \(f(found.distanceM / 1000)) | \(name) | \(found.city.timeZone) | \(us(percentile(samples, 0.5))) µs | \(agrees ? "yes" : "NO") |")
}
print("")
print("checksums (so no lookup is optimised away): \(f(nearest.checksum + named.checksum + zoned.checksum + grid.checksum + brute.checksum, 0))")
if mismatches > 0 { fail("the grid disagreed with the scan on \(mismatches) of \(baselineCount) queries") }
if !wrong.isEmpty { fail("wrong nearest city for: \(wrong.joined(separator: ", "))") }
