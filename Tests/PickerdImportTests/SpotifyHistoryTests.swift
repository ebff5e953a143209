import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Spotify's listening history through ``SpotifyExport`` and ``ExportImporter``, on fixtures laid
/// out as Spotify writes them (Fixtures/make_spotify_fixtures.py; Fixtures/README.md): the extended
/// streaming history (its layout since 2023 and the older one, audio and video), the account data
/// (music, podcasts, and the older single file), the zip Spotify mails; the listening rule, incognito
/// plays, plays with no track, broken records named with the rest imported; one item for the same
/// play from Spotify and from ListenBrainz or Last.fm.
@Suite("Spotify listening history")
struct SpotifyHistoryTests {
    static let fixtures = ListeningHistoryTests.fixtures
    static func fixture(_ name: String) -> String { ListeningHistoryTests.fixture(name) }
    static let extended = "spotify/Spotify Extended Streaming History/"
    static let account = "spotify/Spotify Account Data/"

    static func ms(_ iso: String) -> Int64 { ListeningHistoryTests.ms(iso) }

    static func read(_ fixture: String) throws -> ImportedData {
        try SpotifyExport.read(path: Self.fixture(fixture), name: (fixture as NSString).lastPathComponent)
    }

    static let tooShort = "plays too short to count as listens left out"
    static let incognito = "plays in incognito mode left out"
    static let noTrack = "plays with no track or episode left out (ads, videos, lost metadata)"

    @Test("the extended history: start = end − ms_played; the listening rule; incognito, no-track and audiobook plays left out and counted")
    func extendedHistory() throws {
        let data = try Self.read(Self.extended + "Streaming_History_Audio_2021-2023_0.json")
        #expect(data.listens == [
            ImportedListen(startMs: Self.ms("2021-01-31T12:35:22Z"), durationMs: 523_000, artist: "Nils Frahm", track: "Says", album: "Spaces",
                           format: "spotify"),
            ImportedListen(startMs: Self.ms("2021-01-31T14:19:50Z"), durationMs: 402_000, artist: "Joni Mitchell", track: "Hejira", album: "Hejira",
                           format: "spotify"),
            // Cut short after five minutes (fwdbtn): four minutes count whatever the length; no length known.
            ImportedListen(startMs: Self.ms("2021-02-01T09:10:00Z"), artist: "Sigur Rós", track: "Svefn-g-englar", album: "Ágætis byrjun",
                           format: "spotify"),
            ImportedListen(startMs: Self.ms("2021-02-02T07:15:00Z"), artist: "Radiolab", track: "The Overview Effect", album: "Radiolab",
                           isPodcast: true, format: "spotify"),
        ])
        #expect(data.leftOut == [Self.tooShort: 2, Self.incognito: 1, Self.noTrack: 1, "audiobook chapters left out": 1])
        #expect(data.listeningCounts == ["songs": 3, "podcasts": 1, Self.tooShort: 2, Self.incognito: 1, Self.noTrack: 1,
                                         "audiobook chapters left out": 1])
    }

    @Test("the older extended layout (username, *_decrypted, skipped null) and a video podcast file")
    func olderLayoutAndVideo() throws {
        let older = try Self.read(Self.extended + "Streaming_History_Audio_2014-2016_0.json")
        #expect(older.listens == [ImportedListen(startMs: Self.ms("2014-06-20T18:59:39Z"), durationMs: 245_000, artist: "James Blake",
                                                 track: "Retrograde", album: "Overgrown", format: "spotify")])
        let video = try Self.read(Self.extended + "Streaming_History_Video_2023.json")
        #expect(video.listens == [ImportedListen(startMs: Self.ms("2023-05-06T10:05:00Z"), durationMs: 1_500_000, artist: "The Map Room",
                                                 track: "Episode 210: Maps", album: "The Map Room", isPodcast: true, format: "spotify")])
    }

    @Test("the account data: endTime to the minute, in UTC; music, podcasts, and the older StreamingHistoryN.json")
    func accountData() throws {
        let music = try Self.read(Self.account + "StreamingHistory_music_0.json")
        #expect(music.listens == [
            ImportedListen(startMs: Self.ms("2022-12-05T16:52:00Z") - 152_293, artist: "Rainbow Kitten Surprise", track: "It's Called: Freefall",
                           format: "spotify"),
            ImportedListen(startMs: Self.ms("2022-12-05T17:01:00Z") - 336_613, artist: "Bon Iver", track: "Holocene", format: "spotify"),
        ])
        #expect(music.leftOut == [Self.tooShort: 1])
        let podcasts = try Self.read(Self.account + "StreamingHistory_podcast_0.json")
        #expect(podcasts.listens == [ImportedListen(startMs: Self.ms("2022-12-06T07:58:00Z") - 1_261_000, artist: "Song Exploder",
                                                    track: "Episode 12: Listening", album: "Song Exploder", isPodcast: true, format: "spotify")])
        #expect(podcasts.leftOut == [Self.tooShort: 1])
        let old = try Self.read("spotify_old_account/StreamingHistory0.json")
        #expect(old.listens == [ImportedListen(startMs: Self.ms("2019-02-10T17:25:00Z") - 199_493, artist: "Oh Wonder", track: "Ultralife",
                                               format: "spotify")])
    }

    @Test("the listening rule: 30 s for a play that reached the track's end, four minutes for one cut short; 30 s in the account data")
    func rule() {
        #expect(!SpotifyExport.counts(msPlayed: 29_999, reasonEnd: "trackdone", extended: true))
        #expect(SpotifyExport.counts(msPlayed: 30_000, reasonEnd: "trackdone", extended: true))
        #expect(!SpotifyExport.counts(msPlayed: 239_999, reasonEnd: "fwdbtn", extended: true))
        #expect(SpotifyExport.counts(msPlayed: 240_000, reasonEnd: "fwdbtn", extended: true))
        #expect(!SpotifyExport.counts(msPlayed: 200_000, reasonEnd: nil, extended: true))
        #expect(SpotifyExport.counts(msPlayed: 30_000, reasonEnd: nil, extended: false))
        #expect(!SpotifyExport.counts(msPlayed: 29_999, reasonEnd: nil, extended: false))
    }

    @Test("detected by content (both layouts), and by Spotify's names only for an empty array or a file that is not JSON")
    func detection() throws {
        func kind(file: String, name: String = "export.txt") -> ExportKind? {
            ExportKind.detect(ExportKind.prefix(ofFile: Self.fixture(file))!, name: name)
        }
        #expect(kind(file: Self.extended + "Streaming_History_Audio_2021-2023_0.json") == .spotify)
        #expect(kind(file: Self.extended + "Streaming_History_Audio_2014-2016_0.json") == .spotify)
        #expect(kind(file: Self.account + "StreamingHistory_music_0.json") == .spotify)
        #expect(kind(file: Self.account + "StreamingHistory_podcast_0.json") == .spotify)
        #expect(ExportKind.detect(Array("[]".utf8), name: "StreamingHistory_podcast_0.json") == .spotify)
        #expect(ExportKind.detect(Array("[]".utf8), name: "Streaming_History_Video_2020-2024.json") == .spotify)
        #expect(ExportKind.detect(Array("[]".utf8), name: "list.json") == nil)
        #expect(ExportKind.detect(Array(#"[{"ts": "2021-01-31T12:34:00Z", "value": 1}]"#.utf8), name: "log.json") == nil,
                "a time alone is no play")
        #expect(ExportKind.detect(Array("<html>".utf8), name: "Streaming_History_Audio_2020_0.json") == .spotify, "its reader says why not")
        // Spotify's other account files are no history.
        #expect(ExportKind.detect(Array(#"{"tracks": [], "albums": []}"#.utf8), name: "YourLibrary.json") == nil)
    }

    @Test("a folder of both layouts imports through ExportImporter: songs and Podcast items, what was left out counted")
    func folder() throws {
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("spotify")]) { _, _, _, _ in }
        #expect(results.map(\.kind) == Array(repeating: "spotify", count: 5))
        #expect(results.allSatisfy { $0.error == nil })
        #expect(results.map(\.added).reduce(0, +) == 9)
        let items = try temporary.store.items()
        let songs = items.compactMap { if case .song(let s) = $0.asset { s.song } else { nil } }
        let podcasts = items.compactMap { if case .podcast(let p) = $0.asset { "\(p.show): \(p.episode)" } else { nil } }
        #expect(songs.sorted() == ["Hejira", "Holocene", "It's Called: Freefall", "Retrograde", "Says", "Svefn-g-englar"])
        #expect(podcasts.sorted() == ["Radiolab: The Overview Effect", "Song Exploder: Episode 12: Listening", "The Map Room: Episode 210: Maps"])
        #expect(!items.contains { if case .song(let s) = $0.asset { s.song == "Private Song" } else { false } }, "incognito: never imported")
        #expect(items.allSatisfy { $0.externalID == "spotify" })

        // Again: nothing new, each a duplicate.
        let again = ExportImporter(store: temporary.store).run([Self.fixture("spotify")]) { _, _, _, _ in }
        #expect(again.map(\.added).reduce(0, +) == 0)
        #expect(again.map(\.duplicates).reduce(0, +) == 9)
    }

    @Test("the zip Spotify mails is read member by member (its ReadMeFirst PDF named as no export)")
    func zip() throws {
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("my_spotify_data.zip")]) { _, _, _, _ in }
        let byName = Dictionary(uniqueKeysWithValues: results.map { (($0.file as NSString).lastPathComponent, $0) })
        #expect(byName["Streaming_History_Audio_2021-2023_0.json"]?.kind == "spotify")
        #expect(byName["Streaming_History_Audio_2021-2023_0.json"]?.added == 4)
        #expect(byName["Streaming_History_Video_2023.json"]?.added == 1)
        #expect(byName["ReadMeFirst_ExtendedStreamingHistory.pdf"]?.kind == "")
        #expect(try temporary.store.items().count == 5)
    }

    @Test("broken records are each named with their reason, and the rest imported")
    func brokenRecords() throws {
        let data = try Self.read("spotify_broken/Streaming_History_Audio_2022_0.json")
        #expect(data.listens.map(\.track) == ["Auld Lang Syne", "Hogmanay"])
        #expect(data.listens.map(\.startMs) == [Self.ms("2022-01-01T00:00:40Z"), Self.ms("2022-01-01T00:05:40Z")])
        #expect(data.leftOut == [
            #"broken plays left out (record 1, line 27: ms_played is "abc", not a number)"#: 1,
            "broken plays left out (record 2, line 52: a play without ts (or endTime))": 1,
            "broken plays left out (record 3, line 76: not an object)": 1,
            "broken plays left out (record 4, line 77: ts is a number, not a string)": 1,
            #"broken plays left out (record 5, line 102: the time "yesterday" is not a UTC time)"#: 1,
        ])

        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("spotify_broken")]) { _, _, _, _ in }
        #expect(results.count == 1)
        #expect(results[0].error == nil)
        #expect(results[0].added == 2)
        #expect(results[0].counts["broken plays left out (record 3, line 76: not an object)"] == 1)
    }

    @Test("a file Spotify's names call a history that is not JSON, or breaks off, is refused naming the file and line; an empty one holds nothing")
    func badFiles() throws {
        let folder = NSTemporaryDirectory() + "pickerd-spotify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("<html><body>Too many requests</body></html>\n".utf8).write(to: URL(fileURLWithPath: folder + "/Streaming_History_Audio_2020_0.json"))
        let whole = try String(contentsOfFile: Self.fixture(Self.extended + "Streaming_History_Audio_2014-2016_0.json"), encoding: .utf8)
        try Data(whole.utf8.prefix(300)).write(to: URL(fileURLWithPath: folder + "/Streaming_History_Audio_2014-2016_1.json"))
        try Data("[]".utf8).write(to: URL(fileURLWithPath: folder + "/StreamingHistory_podcast_0.json"))

        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([folder]) { _, _, _, _ in }
        let byName = Dictionary(uniqueKeysWithValues: results.map { (($0.file as NSString).lastPathComponent, $0) })
        #expect(results.allSatisfy { $0.kind == "spotify" })
        let html = try #require(byName["Streaming_History_Audio_2020_0.json"]?.error)
        #expect(html.hasPrefix("Streaming_History_Audio_2020_0.json, line 1: "))
        let cut = try #require(byName["Streaming_History_Audio_2014-2016_1.json"]?.error)
        #expect(cut.hasPrefix("Streaming_History_Audio_2014-2016_1.json, line "))
        #expect(cut.hasSuffix("the JSON ends early (the file is truncated)"))
        #expect(byName["StreamingHistory_podcast_0.json"]?.error == nil)
        #expect(byName["StreamingHistory_podcast_0.json"]?.added == 0)
        #expect(try temporary.store.items().isEmpty)
    }

    static func song(_ title: String, in store: Store) throws -> [LibraryItem] {
        try store.items().filter { if case .song(let s) = $0.asset { s.song == title } else { false } }
    }

    @Test("the same play from Spotify (start = end − played) and from ListenBrainz or Last.fm is one item, either way round")
    func sameListenAcrossSources() throws {
        let spotify = Self.fixture(Self.extended + "Streaming_History_Audio_2021-2023_0.json")

        // ListenBrainz first: Says (12:34:27, a duration) stays; Hejira (14:20:00, none) takes Spotify's duration.
        let first = try TemporaryStore()
        _ = ExportImporter(store: first.store).run([Self.fixture("listenbrainz_2021_1.jsonl")]) { _, _, _, _ in }
        let brainzHejira = try #require(try Self.song("Hejira", in: first.store).first)
        let then = ExportImporter(store: first.store).run([spotify]) { _, _, _, _ in }
        #expect(then[0].duplicates == 2, "Says and Hejira")
        #expect(then[0].added == 3, "Hejira replaced by the richer copy, Svefn-g-englar and Radiolab new (another day than ListenBrainz's)")
        let says = try Self.song("Says", in: first.store)
        #expect(says.count == 1)
        #expect(says.first?.externalID == "listenbrainz")
        let hejira = try Self.song("Hejira", in: first.store)
        #expect(hejira.map(\.id) == [brainzHejira.id], "ListenBrainz's id, Spotify's richer copy")
        #expect(hejira.first.map { $0.endMs - $0.startMs } == 402_000)

        // Spotify first, then Last.fm (whose lastfm-to-csv dates stop at the minute: 12:34, 14:20).
        let second = try TemporaryStore()
        _ = ExportImporter(store: second.store).run([spotify]) { _, _, _, _ in }
        let lastfm = ExportImporter(store: second.store).run([Self.fixture("lastfm_to_csv.csv")]) { _, _, _, _ in }
        #expect(lastfm[0].duplicates == 2, "Says and Hejira are Spotify's plays")
        #expect(lastfm[0].added == 2, "Hammers, and Svefn-g-englar of another morning")
        #expect(try Self.song("Says", in: second.store).count == 1)
        #expect(try Self.song("Hejira", in: second.store).count == 1)
        #expect(try Self.song("Svefn-g-englar", in: second.store).count == 2, "09:05 and 09:10 are five minutes apart: two plays")
    }

    @Test("a play is matched once: the same track played twice in a row stays two items")
    func repeatsStayTwo() throws {
        let temporary = try TemporaryStore()
        let importer = ExportImporter(store: temporary.store)
        let folder = NSTemporaryDirectory() + "pickerd-spotify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Last.fm caught one play of a 60-second track, at 12:00:30.
        try Data("uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid\n\"1612094430\",\"31 Jan 2021, 12:00\",\"A\",\"\",\"\",\"\",\"Short\",\"\"\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/scrobbles.csv"))
        _ = importer.run([folder + "/scrobbles.csv"]) { _, _, _, _ in }
        // Spotify has two, each played whole: 12:00:40 (that one) and 12:01:40, also within two
        // minutes of Last.fm's but already matched.
        let plays = ["2021-01-31T12:01:40Z", "2021-01-31T12:02:40Z"].map { ts in
            #"{"ts": "\#(ts)", "ms_played": 60000, "master_metadata_track_name": "Short", "master_metadata_album_artist_name": "A", "reason_end": "trackdone", "incognito_mode": false}"#
        }
        try Data(("[\n" + plays.joined(separator: ",\n") + "\n]").utf8).write(to: URL(fileURLWithPath: folder + "/Streaming_History_Audio_2021_0.json"))
        let results = importer.run([folder + "/Streaming_History_Audio_2021_0.json"]) { _, _, _, _ in }
        #expect(results[0].duplicates == 1)
        #expect(try Self.song("Short", in: temporary.store).count == 2)
    }

    @Test("names are trimmed of Unicode's white space at either end, as Foundation trims them: every ASCII byte, no-break and ideographic spaces, a line separator")
    func trimmedEnds() {
        var ends = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        ends += ["\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{2028}", "\u{3000}", "\u{FEFF}", "é", "\u{301}"]
        for end in ends {
            for name in ["\(end)Sigur Rós", "Sigur Rós\(end)", "\(end)Björk\(end)", end] {
                let scalar = end.unicodeScalars.first!
                let expected = scalar.properties.isWhitespace ? name.trimmingCharacters(in: .whitespacesAndNewlines) : name
                #expect(name.trimmedEnds == expected, "U+\(String(scalar.value, radix: 16))")
            }
        }
    }

    @Test("a key is matched by its length and bytes: a prefix, a longer key, an empty one and a key differing in its last byte are other keys")
    func keyMatching() throws {
        var parser = JSONPullParser(bytes: Array(#"{"ms_playe": 1, "ms_played": 2, "ms_playedx": 3, "": 4, "ms_playeD": 5}"#.utf8))
        try parser.beginObject()
        var matched: [Bool] = []
        while try parser.nextKey() {
            matched.append(parser.keyIs("ms_played"))
            try parser.skipValue()
        }
        #expect(matched == [false, true, false, false, false])
    }
}
