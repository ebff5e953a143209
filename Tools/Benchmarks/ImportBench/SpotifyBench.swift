// Tools/bench-import spotify[=PLAYS]: a Spotify extended streaming history of PLAYS plays (default
// 1,000,000), generated in the run as Spotify lays it out (files of 15,000 plays, pretty-printed
// with two spaces, the keys in Spotify's order), imported by a real pickerd (`pickerctl import`,
// read by a confined pickerd-reader): seconds and pickerd's peak RSS, against a baseline measured in
// the same run on the same files: reading their bytes in the readers' chunks without parsing.

import BenchSupport
import Foundation
import Glibc
import PickerdImport
import PickerdReaders

/// How many plays Spotify puts in one `Streaming_History_Audio_…json` (about 12 MB).
let spotifyPlaysPerFile = 15_000

/// Writes `plays` plays into `folder`, in files of ``spotifyPlaysPerFile``; returns the files and bytes.
func makeSpotifyHistory(_ folder: String, plays: Int) -> (files: [String], bytes: Int) {
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var random = SystemRandomNumberGenerator()
    var files: [String] = [], total = 0
    var endMs: Int64 = 1_420_070_400_000  // 2015-01-01: ten years of plays
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    func quoted(_ s: String?) -> String { s.map { "\"\($0)\"" } ?? "null" }
    var written = 0, fileIndex = 0
    while written < plays {
        let count = min(spotifyPlaysPerFile, plays - written)
        var text = "[\n"
        text.reserveCapacity(count * 900)
        for i in 0..<count {
            let kind = Int.random(in: 0..<100, using: &random)
            let track = Int.random(in: 0..<20_000, using: &random)
            var ms = Int64.random(in: 150_000...300_000, using: &random), reason = "trackdone"
            if kind < 20 {
                ms = Int64.random(in: 2_000...60_000, using: &random)
                reason = "fwdbtn"
            }
            endMs += ms + Int64.random(in: 0...120_000, using: &random)
            let podcast = kind >= 95, none = kind == 94, incognito = kind == 93
            let name: String? = podcast || none ? nil : "Track \(track)", artist: String? = podcast || none ? nil : "Artist \(track % 2_000)"
            let album: String? = podcast || none ? nil : "Album \(track % 5_000)"
            text += """
              {
                "ts": "\(formatter.string(from: Date(timeIntervalSince1970: Double(endMs / 1000))))",
                "platform": "android",
                "ms_played": \(podcast ? ms * 6 : ms),
                "conn_country": "DE",
                "ip_addr": "192.0.2.17",
                "master_metadata_track_name": \(quoted(name)),
                "master_metadata_album_artist_name": \(quoted(artist)),
                "master_metadata_album_album_name": \(quoted(album)),
                "spotify_track_uri": \(quoted(podcast || none ? nil : "spotify:track:\(String(track, radix: 36))0bh3mVv9KcDLAIzGyA")),
                "episode_name": \(quoted(podcast ? "Episode \(track)" : nil)),
                "episode_show_name": \(quoted(podcast ? "Show \(track % 50)" : nil)),
                "spotify_episode_uri": \(quoted(podcast ? "spotify:episode:\(String(track, radix: 36))1rR3pnSdn4oUjGRb" : nil)),
                "audiobook_title": null,
                "audiobook_uri": null,
                "audiobook_chapter_uri": null,
                "audiobook_chapter_title": null,
                "reason_start": "trackdone",
                "reason_end": "\(reason)",
                "shuffle": false,
                "skipped": \(reason == "fwdbtn"),
                "offline": false,
                "offline_timestamp": \(endMs / 1000 - ms / 1000),
                "incognito_mode": \(incognito)
              }\(i == count - 1 ? "" : ",")

            """
        }
        text += "]"
        let path = folder + "/Streaming_History_Audio_\(2015 + fileIndex / 7)_\(fileIndex).json"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else { fail("cannot write \(path)") }
        files.append(path)
        total += text.utf8.count
        written += count
        fileIndex += 1
    }
    return (files, total)
}

/// Runs the Spotify benchmark and prints its table.
func spotifyBench(bin: String, work: String, plays: Int) {
    let folder = work + "/spotify/Spotify Extended Streaming History"
    let generated = now()
    let (files, bytes) = makeSpotifyHistory(folder, plays: plays)
    FileHandle.standardError.write(Data("bench-import: \(plays) Spotify plays in \(files.count) files (\(bytes >> 20) MB) written in \(f((now() - generated) / 1000)) s\n".utf8))

    // Baseline: the same bytes through the readers' chunked reading, warm, no parsing.
    func readAll() -> Double {
        let start = now()
        for file in files { _ = try? FileChunks.forEach(path: file) { _ in } }
        return now() - start
    }
    _ = readAll()
    let baseline = min(readAll(), readAll())

    // The reader alone in this process (what the confined reader does), for where the time goes.
    let inProcessStart = now()
    var listens = 0
    for file in files {
        guard let data = try? SpotifyExport.read(path: file, name: (file as NSString).lastPathComponent) else { fail("reading \(file)") }
        listens += data.listens.count
    }
    let inProcess = now() - inProcessStart

    let pickerd = BenchPickerd(root: work + "/spotify-pickerd", bin: bin)
    pickerd.start()
    let rest = pickerd.memory().rss
    let sampler = MemorySampler(pickerd)
    let start = now()
    let imported = pickerd.ctl(["import", work + "/spotify"])
    let seconds = (now() - start) / 1000
    let peak = sampler.stop()
    let hwm = pickerd.memory().peak
    let status = pickerd.ctl(["status"]).out
    pickerd.stop()
    guard imported.status == 0, imported.out.contains("songs") else { fail("pickerctl import: \(imported.out) \(imported.err)") }

    print("")
    print("importing a Spotify extended streaming history (\(buildConfiguration) build; warm page cache)")
    print("| measure | value |")
    print("|---|---:|")
    print("| plays / files / MB | \(plays) / \(files.count) / \(bytes >> 20) |")
    print("| listens read (the rest: skips, incognito, no track) | \(listens) |")
    print("| baseline: read the files' bytes in chunks, s | \(f(baseline / 1000, 2)) |")
    print("| reader alone in process, s | \(f(inProcess / 1000, 2)) (\(f(inProcess / baseline))× baseline) |")
    print("| pickerctl import, s | \(f(seconds, 2)) (\(f(seconds * 1000 / baseline))× baseline; target ≤ 10 s) |")
    print("| pickerd RSS at rest, MB | \(f(rest)) |")
    print("| pickerd RSS peak while importing, MB (VmHWM) | \(f(peak)) (\(f(hwm))) ; \(f(peak / max(rest, 1), 1))× at rest; target ≤ 100 |")
    print("| library after | \(status.split(separator: "\n").first { $0.hasPrefix("library: ") } ?? "") |")
    try? FileManager.default.removeItem(atPath: work + "/spotify")
}

/// The build this benchmark runs in, for its report: `PICKERD_BENCH_CONFIG=debug` (Tools/test's smoke run) is no measurement.
var buildConfiguration: String {
    #if DEBUG
    "debug"
    #else
    "release"
    #endif
}
