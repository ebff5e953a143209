// pickerd-bench-import: indexing a person's folder of real JPEGs with EXIF, measured from outside a
// real pickerd (release build): the first scan (files/s), a rescan with nothing changed, pickerd's
// memory while it indexes, and how long a library request takes while it does. Each time has a
// baseline measured in the same run on the same files: reading every file's first 64 KiB (what
// any indexer must at least do) for the first scan, and `find` listing sizes and mtimes for the
// rescan. And the same files indexed in this process by the same indexer reading them unconfined
// (what pickerd did before its files were read by pickerd-reader, issue 28), so the confined
// readers' rate is a ratio of the rate without them. Tools/bench-import builds it and runs it.
//
//   pickerd-bench-import BIN-DIR WORK-DIR COUNT... [spotify[=PLAYS]]

import BenchSupport
import Foundation
import Glibc
import PickerdImport
import PickerdReaders
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization

func fail(_ message: String) -> Never { benchFail("bench-import", message) }

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: pickerd-bench-import BIN-DIR WORK-DIR COUNT...") }
let bin = arguments[1], work = arguments[2]
// `spotify` or `spotify=PLAYS`: the Spotify history benchmark (SpotifyBench.swift) after the photos.
let spotifyPlays = arguments.dropFirst(3).first { $0.hasPrefix("spotify") }.map { Int($0.split(separator: "=").last ?? "") ?? 1_000_000 }
let counts = arguments.dropFirst(3).filter { !$0.hasPrefix("spotify") }.map { Int($0) ?? 0 }
guard counts.allSatisfy({ $0 > 0 }) else { fail("each COUNT is a number of photos") }

/// A JPEG made by ImageMagick with a camera's EXIF written by exiftool: the template every file is
/// copied from, its date changed in place (same length) so each file is its own moment.
func template(_ path: String) -> (bytes: [UInt8], date: Range<Int>) {
    let made = runProgram("/usr/bin/env", ["convert", "-size", "400x300", "plasma:fractal", "-quality", "80", path])
    guard made.status == 0 else { fail("convert: \(made.err)") }
    let tagged = runProgram("/usr/bin/env", ["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2019:01:01 08:00:00",
                                             "-OffsetTimeOriginal=-08:00", "-GPSLatitude=45.52", "-GPSLatitudeRef=N",
                                             "-GPSLongitude=122.68", "-GPSLongitudeRef=W", "-Make=Apple", "-Model=iPhone 12",
                                             "-ExposureTime=0.004", "-FNumber=1.6", path])
    guard tagged.status == 0 else { fail("exiftool: \(tagged.err)") }
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let bytes = [UInt8](data), needle = Array("2019:01:01 08:00:00".utf8)
    guard let at = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }) else {
        fail("the template has no DateTimeOriginal")
    }
    return (bytes, at..<(at + needle.count))
}

/// N photos from 2019 on, in YYYY/MM folders as a phone's export has them: each day two outings
/// (10:00 and 17:00) of eight photos three minutes apart.
func makeLibrary(_ root: String, count: Int, from template: (bytes: [UInt8], date: Range<Int>)) {
    var bytes = template.bytes
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
    formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
    let folder = DateFormatter()
    folder.locale = formatter.locale
    folder.timeZone = formatter.timeZone
    folder.dateFormat = "yyyy/MM"
    let start = Date(timeIntervalSince1970: 1_546_358_400)
    var made = Set<String>()
    for i in 0..<count {
        let day = i / 16, outing = (i / 8) % 2, shot = i % 8
        let date = start.addingTimeInterval(Double(day) * 86_400 + (outing == 0 ? 10 : 17) * 3_600 + Double(shot) * 180)
        bytes.replaceSubrange(template.date, with: Array(formatter.string(from: date).utf8))
        let directory = root + "/" + folder.string(from: date)
        if made.insert(directory).inserted {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let path = directory + String(format: "/IMG_%06d.JPG", i)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fail("cannot write \(path)") }
    }
}

/// Reads every file's first 64 KiB: the least an indexer of metadata has to do.
func readHeaders(_ root: String) -> (ms: Double, files: Int) {
    let start = now()
    var files = 0
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let walker = FileManager.default.enumerator(atPath: root)
    while let entry = walker?.nextObject() as? String {
        guard entry.hasSuffix(".JPG") else { continue }
        let fd = open(root + "/" + entry, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { continue }
        _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        files += 1
    }
    return (now() - start, files)
}

/// Library requests (counts and the picker's first page, as `pickerctl library stats` asks) while
/// `busy` holds, one every 50 ms: their milliseconds.
final class Requester: Sendable {
    private let samples = Mutex<[Double]>([])
    private let stopped = Atomic<Bool>(false)

    init(runtime: String) {
        Thread.detachNewThread { [self] in
            guard let client = try? ProtocolClient(path: runtime + "/control.sock", role: .control, software: "bench-import") else { return }
            while !stopped.load(ordering: .acquiring) {
                let start = now()
                guard (try? client.request(.libraryStats(LibraryStatsRequest()))) != nil else { break }
                let ms = now() - start
                samples.withLock { $0.append(ms) }
                usleep(50_000)
            }
            client.close()
        }
    }

    func stop() -> [Double] {
        stopped.store(true, ordering: .releasing)
        usleep(120_000)
        return samples.withLock { $0 }
    }
}

/// pickerd's resident memory, sampled every 50 ms while it runs.
final class MemorySampler: Sendable {
    private let peak = Mutex<Double>(0)
    private let stopped = Atomic<Bool>(false)

    init(_ pickerd: BenchPickerd) {
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                let rss = pickerd.memory().rss
                peak.withLock { $0 = max($0, rss) }
                usleep(50_000)
            }
        }
    }

    func stop() -> Double {
        stopped.store(true, ordering: .releasing)
        return peak.withLock { $0 }
    }
}

struct Row {
    var count = 0
    var firstScan = 0.0, headers = 0.0, rescan = 0.0, find = 0.0
    var rssRest = 0.0, rssPeak = 0.0, rssAfter = 0.0
    var idleRequest = 0.0, busyRequest = 0.0, busyRequestP99 = 0.0, busyRequests = 0
    var items = 0, suggestions = 0
    /// The indexer's own time (its "files in … s"), confined in pickerd and unconfined here, ms.
    var confinedIndexing = 0.0, inProcessIndexing = 0.0
    /// The same photos as a Google Photos Takeout, indexed by pickerd with and without their JSON
    /// sidecars (issue 41): the indexer's own time, ms.
    var takeoutWith = 0.0, takeoutWithout = 0.0
}

/// The library's photos as a Google Photos Takeout lays them out (`Takeout/Google Photos/Photos from
/// YYYY/IMG_….JPG`, hard links to the same files), each with its `NAME.supplemental-metadata.json`
/// as Takeout writes it when `sidecars`.
func makeTakeout(_ library: String, at root: String, sidecars: Bool) {
    guard let walk = FileManager.default.enumerator(atPath: library) else { fail("cannot list \(library)") }
    var made = Set<String>()
    var i = 0
    for case let relative as String in walk where relative.hasSuffix(".JPG") {
        let name = (relative as NSString).lastPathComponent
        let folder = root + "/Takeout/Google Photos/Photos from " + (relative.split(separator: "/").first.map(String.init) ?? "2019")
        if made.insert(folder).inserted { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        guard link(library + "/" + relative, folder + "/" + name) == 0 else { fail("cannot link \(relative)") }
        i += 1
        guard sidecars else { continue }
        let taken = 1_546_358_400 + i * 180
        let json = """
            {
              "title": "\(name)",
              "description": "",
              "imageViews": "2",
              "creationTime": {
                "timestamp": "\(taken + 600)",
                "formatted": ""
              },
              "photoTakenTime": {
                "timestamp": "\(taken)",
                "formatted": ""
              },
              "geoData": {
                "latitude": 37.7793,
                "longitude": -122.4193,
                "altitude": 16.0,
                "latitudeSpan": 0.0,
                "longitudeSpan": 0.0
              },
              "geoDataExif": {
                "latitude": 37.7793,
                "longitude": -122.4193,
                "altitude": 16.0,
                "latitudeSpan": 0.0,
                "longitudeSpan": 0.0
              },
              "people": [{
                "name": "Ana"
              }],
              "url": "https://photos.google.com/photo/AF1QipOyLtYKtmMPyLhse9O8lOcWmb6LND5",
              "googlePhotosOrigin": {
                "mobileUpload": {
                  "deviceType": "ANDROID_PHONE"
                }
              }
            }
            """
        guard FileManager.default.createFile(atPath: folder + "/" + name + ".supplemental-metadata.json", contents: Data(json.utf8)) else {
            fail("cannot write \(name)'s sidecar")
        }
    }
}

/// The indexer's own time for pickerd's first scan of a Takeout made of `library`, in ms.
func takeoutScan(_ library: String, root: String, count: Int, sidecars: Bool) -> Double {
    let takeout = root + (sidecars ? "/takeout-with" : "/takeout-without")
    makeTakeout(library, at: takeout, sidecars: sidecars)
    let pickerd = BenchPickerd(root: root + (sidecars ? "/pickerd-with" : "/pickerd-without"), bin: bin)
    pickerd.start()
    let added = pickerd.ctl(["sources", "add", takeout + "/Takeout"])
    pickerd.stop()
    try? FileManager.default.removeItem(atPath: takeout)
    guard added.status == 0, added.out.contains("\(count) new") else { fail("Takeout scan: \(added.out) \(added.err)") }
    guard let seconds = added.out.split(separator: " files in ").dropFirst().first?.split(separator: " ").first.flatMap({ Double($0) }) else {
        fail("Takeout scan: no time in \(added.out)")
    }
    return seconds * 1000
}

/// The indexer's own time for a first scan of `library` in this process, reading unconfined, in ms.
func inProcessScan(_ library: String, root: String, count: Int) -> Double {
    do {
        let store = try Store(dataDirectory: root)
        let source = try store.addSource(path: library, timeMs: Int64(Date().timeIntervalSince1970 * 1000))
        let report = try SourceIndexer(store: store, reading: InProcessReading()).scan(source)
        guard report.added == count else { fail("in-process scan added \(report.added) of \(count)") }
        return report.seconds * 1000
    } catch {
        fail("in-process scan: \(error)")
    }
}

var rows: [Row] = []
let picture = counts.isEmpty ? (bytes: [UInt8](), date: 0..<0) : template(work + "/template.jpg")
for count in counts {
    var row = Row(count: count)
    let root = work + "/run-\(count)", library = work + "/photos-\(count)"
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let generated = now()
    makeLibrary(library, count: count, from: picture)
    FileHandle.standardError.write(Data("bench-import: \(count) JPEGs written in \(f((now() - generated) / 1000)) s\n".utf8))

    // Baselines, on the same files, warm as pickerd will find them.
    _ = readHeaders(library)
    let headers = readHeaders(library)
    guard headers.files == count else { fail("read \(headers.files) of \(count) files") }
    row.headers = headers.ms
    var finds: [Double] = []
    for _ in 0..<3 {
        let start = now()
        let listed = runProgram("/usr/bin/find", [library, "-type", "f", "-printf", "%s %T@\n"])
        guard listed.status == 0 else { fail("find: \(listed.err)") }
        finds.append(now() - start)
    }
    row.find = percentile(finds, 0.5)

    row.inProcessIndexing = inProcessScan(library, root: root + "/in-process-before", count: count)
    let pickerd = BenchPickerd(root: root, bin: bin)
    pickerd.start()
    row.rssRest = pickerd.memory().rss
    let idle = Requester(runtime: pickerd.runtime)
    usleep(1_000_000)
    row.idleRequest = percentile(idle.stop(), 0.5)

    // The first scan, with pickerd's memory sampled and library requests made meanwhile.
    let sampler = MemorySampler(pickerd)
    let busy = Requester(runtime: pickerd.runtime)
    let start = now()
    let added = pickerd.ctl(["sources", "add", library])
    row.firstScan = now() - start
    let during = busy.stop()
    row.rssPeak = sampler.stop()
    guard added.status == 0 else { fail("sources add: \(added.err)") }
    guard added.out.contains("\(count) files"), added.out.contains("\(count) new") else { fail("unexpected scan: \(added.out)") }
    if let seconds = added.out.split(separator: " files in ").dropFirst().first?.split(separator: " ").first.flatMap({ Double($0) }) {
        row.confinedIndexing = seconds * 1000
    }
    row.busyRequest = during.isEmpty ? 0 : percentile(during, 0.5)
    row.busyRequestP99 = during.isEmpty ? 0 : percentile(during, 0.99)
    row.busyRequests = during.count
    row.rssAfter = pickerd.memory().rss

    var rescans: [Double] = []
    for _ in 0..<3 {
        let again = now()
        let rescan = pickerd.ctl(["sources", "rescan"])
        rescans.append(now() - again)
        guard rescan.status == 0, rescan.out.contains("0 new, 0 changed, 0 moved, 0 gone") else { fail("rescan: \(rescan.out) \(rescan.err)") }
    }
    row.rescan = percentile(rescans, 0.5)
    let status = pickerd.ctl(["status"]).out
    row.items = Int(status.split(separator: "\n").first { $0.hasPrefix("library: ") }?.split(separator: " ")[1] ?? "0") ?? 0
    row.suggestions = Int(status.split(separator: "\n").first { $0.hasPrefix("library: ") }?.split(separator: " ")[3] ?? "0") ?? 0
    pickerd.stop()

    // The same files, the same indexer, reading in this process without confinement: once more
    // after pickerd's scan (one ran before it), the faster of the two counting (the machine is shared).
    row.inProcessIndexing = min(row.inProcessIndexing, inProcessScan(library, root: root + "/in-process-after", count: count))
    // The same photos as a Google Photos Takeout, without and with their sidecars (a reader reads
    // each sidecar with its photo), each in a pickerd of its own.
    row.takeoutWithout = takeoutScan(library, root: root, count: count, sidecars: false)
    row.takeoutWith = takeoutScan(library, root: root, count: count, sidecars: true)
    rows.append(row)
    try? FileManager.default.removeItem(atPath: library)
    try? FileManager.default.removeItem(atPath: root)
}

func cell(_ values: [String]) -> String {
    values.enumerated().map { $1.padding(toLength: $0 == 0 ? 30 : 14, withPad: " ", startingAt: 0) }.joined()
}
if !rows.isEmpty {
    print("")
    print("indexing a folder of JPEGs with EXIF (\(buildConfiguration) build; warm page cache; times in ms unless said; memory in MB)")
    print(cell(["photos"] + rows.map { "\($0.count)" }))
    let table: [(String, (Row) -> String)] = [
        ("items / suggestions", { "\($0.items) / \($0.suggestions)" }),
        ("first scan, s", { f($0.firstScan / 1000, 2) }),
        ("first scan, files/s", { f(Double($0.count) / ($0.firstScan / 1000), 0) }),
        ("indexer, confined readers, s", { f($0.confinedIndexing / 1000, 1) }),
        ("indexer, unconfined (before), s", { f($0.inProcessIndexing / 1000, 2) }),
        ("confined rate ÷ unconfined rate", { f($0.inProcessIndexing / max($0.confinedIndexing, 1), 2) + "×" }),
        ("Takeout, no sidecars, s", { f($0.takeoutWithout / 1000, 1) }),
        ("Takeout with sidecars, s", { f($0.takeoutWith / 1000, 1) }),
        ("Takeout rate, with ÷ without", { f($0.takeoutWithout / max($0.takeoutWith, 1), 2) + "×" }),
        ("baseline: read 64 KiB each", { f($0.headers, 0) }),
        ("first scan ÷ baseline", { f($0.firstScan / $0.headers) + "×" }),
        ("rescan unchanged", { f($0.rescan, 0) }),
        ("baseline: find (size, mtime)", { f($0.find, 0) }),
        ("rescan ÷ baseline", { f($0.rescan / $0.find) + "×" }),
        ("RSS at rest", { f($0.rssRest) }),
        ("RSS peak while indexing", { f($0.rssPeak) }),
        ("RSS after", { f($0.rssAfter) }),
        ("library request idle", { f($0.idleRequest, 2) }),
        ("… while indexing (median)", { f($0.busyRequest, 2) }),
        ("… while indexing (p99)", { f($0.busyRequestP99, 2) }),
        ("… requests answered", { "\($0.busyRequests)" }),
        ("100k extrapolated: scan, s", { f($0.firstScan / 1000 * 100_000 / Double($0.count), 0) }),
        ("100k extrapolated: rescan, s", { f($0.rescan / 1000 * 100_000 / Double($0.count), 1) }),
    ]
    for (name, value) in table { print(cell([name] + rows.map(value))) }
}

// The picture hash's cost per photo (PictureHashBench.swift), whenever photos are indexed.
if !counts.isEmpty { pictureHashBench(work: work) }
if let spotifyPlays { spotifyBench(bin: bin, work: work, plays: spotifyPlays) }

