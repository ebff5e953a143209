import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import PickerdMoments
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// Listening history and moods through ``ExportImporter``, on fixtures written by hand in the real
/// formats (Fixtures/README.md says which is which): ListenBrainz's user export (JSON Lines) and
/// its older JSON array, Last.fm CSVs from lastfm-to-csv and lastfm.ghan.nl, a Daylio CSV; format
/// detection by content; each bad file refused whole; one item for the same listen from two exports;
/// Daylio's mapping to State of Mind, exactly.
@Suite("Listening history and moods: ListenBrainz, Last.fm, Daylio")
struct ListeningHistoryTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// ms since 1970 of an ISO time.
    static func ms(_ iso: String) -> Int64 { LocationHistory.milliseconds(iso: iso)! }

    /// The error `body` throws, nil when it reads.
    static func refusal(_ body: () throws(ImportError) -> ImportedData) -> ImportError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    static func songs(_ store: Store) throws -> [Song] {
        try store.items().compactMap { if case .song(let s) = $0.asset { s } else { nil } }
    }

    // MARK: ListenBrainz

    @Test("a ListenBrainz user export month: songs with album and duration; podcasts from a podcast app or a Spotify episode")
    func listenBrainzJSONLines() throws {
        let data = try ListenBrainzExport.read(path: Self.fixture("listenbrainz_2021_1.jsonl"), name: "1.jsonl")
        #expect(data.listens == [
            ImportedListen(startMs: Self.ms("2021-01-31T12:34:27Z"), durationMs: 523_000, artist: "Nils Frahm", track: "Says", album: "Spaces",
                           format: "listenbrainz"),
            ImportedListen(startMs: Self.ms("2021-01-31T14:20:00Z"), artist: "Joni Mitchell", track: "Hejira", album: "Hejira", format: "listenbrainz"),
            ImportedListen(startMs: Self.ms("2021-02-01T14:00:00Z"), artist: "Radiolab", track: "The Overview Effect", album: "Radiolab",
                           isPodcast: true, format: "listenbrainz"),
            ImportedListen(startMs: Self.ms("2021-02-02T14:15:00Z"), artist: "Song Exploder", track: "Episode 12: Listening",
                           isPodcast: true, format: "listenbrainz"),
        ])
        #expect(data.listeningCounts == ["songs": 2, "podcasts": 2])
    }

    @Test("the older ListenBrainz export, one JSON array of listens, is streamed the same way")
    func listenBrainzArray() throws {
        let data = try ListenBrainzExport.read(path: Self.fixture("listenbrainz_old_export.json"), name: "listens.json")
        #expect(data.listens == [
            ImportedListen(startMs: Self.ms("2021-01-31T12:34:00Z"), durationMs: 523_000, artist: "Nils Frahm", track: "Says", album: "Spaces",
                           format: "listenbrainz"),
            ImportedListen(startMs: Self.ms("2021-01-31T14:30:00Z"), artist: "Joni Mitchell", track: "Amelia", album: "Hejira", format: "listenbrainz"),
        ])
    }

    @Test("a truncated JSON Lines line refuses the whole file, naming line 3")
    func listenBrainzTruncatedLine() throws {
        let error = Self.refusal { () throws(ImportError) in
            try ListenBrainzExport.read(path: Self.fixture("listenbrainz_truncated.jsonl"), name: "1.jsonl")
        }
        #expect(error?.description == "1.jsonl, line 3: the line's JSON ends early (a truncated line)")

        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("listenbrainz_truncated.jsonl")]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["listenbrainz"])
        #expect(results[0].error == "listenbrainz_truncated.jsonl, line 3: the line's JSON ends early (a truncated line)")
        #expect(results[0].added == 0)
        #expect(try temporary.store.items().isEmpty, "nothing of a refused file is imported, not even its good lines")
    }

    @Test("a listen without a track name, or with a listened_at that is no time, is refused with its line")
    func listenBrainzMissingFields() throws {
        let folder = NSTemporaryDirectory() + "pickerd-listening-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = #"{"listened_at": 1612096440, "track_metadata": {"artist_name": "Nils Frahm", "track_name": "Says"}}"#
        try [good, #"{"listened_at": 1612096500, "track_metadata": {"artist_name": "Nils Frahm"}}"#].joined(separator: "\n")
            .write(toFile: folder + "/a.jsonl", atomically: true, encoding: .utf8)
        try [good, good, #"{"listened_at": "yesterday", "track_metadata": {"artist_name": "A", "track_name": "B"}}"#].joined(separator: "\n")
            .write(toFile: folder + "/b.jsonl", atomically: true, encoding: .utf8)
        #expect(Self.refusal { () throws(ImportError) in try ListenBrainzExport.read(path: folder + "/a.jsonl", name: "a.jsonl") }?.description
            == "a.jsonl, line 2: a listen without track_metadata.track_name")
        #expect(Self.refusal { () throws(ImportError) in try ListenBrainzExport.read(path: folder + "/b.jsonl", name: "b.jsonl") }?.description
            == "b.jsonl, line 3: a listen without listened_at")
    }

    // MARK: Last.fm

    @Test("lastfm-to-csv rows without a header: UTC dates to the minute, the track playing during the export skipped")
    func lastFMHeaderless() throws {
        let data = try LastFMExport.read(path: Self.fixture("lastfm_to_csv.csv"), name: "lastfm.csv")
        #expect(data.listens == [
            ImportedListen(startMs: Self.ms("2021-01-31T14:20:00Z"), artist: "Joni Mitchell", track: "Hejira", album: "Hejira", format: "lastfm"),
            ImportedListen(startMs: Self.ms("2021-01-31T12:34:00Z"), artist: "Nils Frahm", track: "Says", album: "Spaces", format: "lastfm"),
            ImportedListen(startMs: Self.ms("2021-01-31T12:29:00Z"), artist: "Nils Frahm", track: "Hammers", album: "Spaces", format: "lastfm"),
            ImportedListen(startMs: Self.ms("2021-02-01T09:05:00Z"), artist: "Sigur Rós", track: "Svefn-g-englar", album: "Ágætis byrjun",
                           format: "lastfm"),
        ])
        #expect(LastFMExport.milliseconds(lastFM: "31 Jan 2021, 12:34") == Self.ms("2021-01-31T12:34:00Z"))
        #expect(LastFMExport.milliseconds(lastFM: "01 Jan 2024, 00:00:30") == Self.ms("2024-01-01T00:00:30Z"))
        #expect(LastFMExport.milliseconds(lastFM: "29 Feb 2021 12:00") == nil)
        #expect(LastFMExport.milliseconds(lastFM: "2021-01-31 12:34") == nil)
    }

    @Test("the uts,utc_time,artist,… header form: uts decides, quoted fields keep their commas")
    func lastFMHeader() throws {
        let data = try LastFMExport.read(path: Self.fixture("lastfm_ghan.csv"), name: "scrobbles.csv")
        #expect(data.listens.map(\.startMs) == [Self.ms("2021-01-31T14:20:00Z"), Self.ms("2021-01-31T12:34:27Z"), Self.ms("2021-01-30T22:00:00Z")])
        #expect(data.listens[2] == ImportedListen(startMs: Self.ms("2021-01-30T22:00:00Z"), artist: "Crosby, Stills & Nash",
                                                   track: "Suite: Judy Blue Eyes", album: "Crosby, Stills & Nash", format: "lastfm"))
    }

    @Test("a Last.fm CSV with a broken date is refused whole, naming its line")
    func lastFMBrokenDate() throws {
        let error = Self.refusal { () throws(ImportError) in try LastFMExport.read(path: Self.fixture("lastfm_broken_date.csv"), name: "lastfm.csv") }
        #expect(error?.description == "lastfm.csv, line 3: the date \"31 Jnu 2021 14:20\" is not a Last.fm date (like 31 Jan 2021 12:34, UTC)")

        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("lastfm_broken_date.csv")]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["lastfm"], "told by its first rows' shape")
        #expect(results[0].error?.hasPrefix("lastfm_broken_date.csv, line 3: the date") == true)
        #expect(try temporary.store.items().isEmpty)
    }

    // MARK: Daylio

    @Test("Daylio: mood to valence and classification, one entry a day a daily mood and several momentary, activities to associations and labels, no note")
    func daylioMapping() throws {
        let utc = TimeZone(identifier: "UTC")!
        let data = try DaylioExport.read(path: Self.fixture("daylio_export.csv"), name: "daylio.csv", timeZone: utc)
        #expect(data.moods == [
            ImportedMood(startMs: Self.ms("2024-05-04T21:15:00Z"), kind: .momentaryEmotion, valence: 1.0, labels: [.happy],
                         associations: [.friends, .hobbies], format: "daylio"),
            ImportedMood(startMs: Self.ms("2024-05-04T08:05:00Z"), kind: .momentaryEmotion, valence: 0, labels: [.stressed],
                         associations: [.work, .currentEvents], format: "daylio"),
            ImportedMood(startMs: Self.ms("2024-05-03T22:40:00Z"), kind: .dailyMood, valence: 0.5, associations: [.family, .hobbies, .weather],
                         format: "daylio"),
            ImportedMood(startMs: Self.ms("2024-05-02T19:30:00Z"), kind: .dailyMood, valence: -0.5, associations: [.health, .fitness], format: "daylio"),
            ImportedMood(startMs: Self.ms("2024-05-01T20:00:00Z"), kind: .dailyMood, valence: -1.0, format: "daylio"),
        ])
        #expect(data.leftOut == ["custom moods left out": 1], "\"Sleepy\" is a custom mood: its level is not in the CSV")
        #expect(data.listeningCounts == ["moods": 5, "custom moods left out": 1])

        // The stated table, exactly.
        #expect(DaylioExport.valences == ["rad": 1.0, "good": 0.5, "meh": 0, "bad": -0.5, "awful": -1.0])
        let classes = ["rad", "good", "meh", "bad", "awful"].map { StateOfMindStyle.classification(valence: DaylioExport.valences[$0]!) }
        #expect(classes == [.veryPleasant, .pleasant, .neutral, .unpleasant, .veryUnpleasant])
        #expect(DaylioExport.associations["friends"] == .friends && DaylioExport.associations["date"] == .dating
            && DaylioExport.associations["gym"] == .fitness && DaylioExport.associations["cleaning"] == .tasks
            && DaylioExport.associations["good meal"] == nil && DaylioExport.associations["party"] == nil)

        // Through the importer: StateOfMind items, and not a word of the note anywhere.
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("daylio_export.csv")]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["daylio"])
        #expect(results[0].counts == ["moods": 5, "custom moods left out": 1])
        #expect(results[0].added == 5)
        let states = try temporary.store.items().compactMap { item -> StateOfMindSample? in
            if case .stateOfMind(let s) = item.asset { #expect(item.source == "import"); return s.state } else { return nil }
        }
        #expect(states.map(\.valence).sorted() == [-1, -0.5, 0, 0.5, 1])
        #expect(Set(states.map { "\($0.valence) \($0.valenceClassification)" })
            == ["1.0 veryPleasant", "0.5 pleasant", "0.0 neutral", "-0.5 unpleasant", "-1.0 veryUnpleasant"])
        let everything = String(describing: try temporary.store.items())
        #expect(!everything.contains("never be imported"))
        #expect(!everything.contains("Dinner"))

        // Again: nothing new.
        let again = ExportImporter(store: temporary.store).run([Self.fixture("daylio_export.csv")]) { _, _, _, _ in }
        #expect(again[0].added == 0)
        #expect(again[0].duplicates == 5)
    }

    @Test("a Daylio file with an unknown header is refused whole")
    func daylioUnknownHeader() throws {
        let error = Self.refusal { () throws(ImportError) in
            try DaylioExport.read(path: Self.fixture("daylio_unknown_header.csv"), name: "daylio.csv")
        }
        #expect(error?.description == "daylio.csv, line 1: not a Daylio header this reader knows "
            + "(full_date,date,weekday,time,mood,activities,note_title,note): no \"time\", \"mood\" column")
        let temporary = try TemporaryStore()
        let results = ExportImporter(store: temporary.store).run([Self.fixture("daylio_unknown_header.csv")]) { _, _, _, _ in }
        #expect(results.map(\.kind) == ["daylio"])
        #expect(results[0].error != nil)
        #expect(try temporary.store.items().isEmpty)
        #expect(DaylioExport.clock("9:15 pm")! == (21, 15))
        #expect(DaylioExport.clock("12:05 a.m.")! == (0, 5))
        #expect(DaylioExport.clock("25:00") == nil)
    }

    // MARK: Detection and duplicates

    @Test("each format is told by its content; other CSVs and JSON are not taken for listens")
    func detection() throws {
        func kind(_ text: String) -> ExportKind? { ExportKind.detect(Array(text.utf8), name: "export.txt") }
        func kind(file: String) -> ExportKind? { ExportKind.detect(ExportKind.prefix(ofFile: Self.fixture(file))!, name: "export.txt") }
        #expect(kind(file: "listenbrainz_2021_1.jsonl") == .listenbrainz)
        #expect(kind(file: "listenbrainz_old_export.json") == .listenbrainz)
        #expect(kind(file: "lastfm_to_csv.csv") == .lastfm, "its first row (playing now) has no date: the next decides")
        #expect(kind(file: "lastfm_ghan.csv") == .lastfm)
        #expect(kind(file: "daylio_export.csv") == .daylio)
        #expect(kind("artist,album,name,date\nNils Frahm,Spaces,Says,31 Jan 2021 12:34\n") == .lastfm)
        // ListenBrainz's other files in its export, Spotify's history, Strava's list, any four columns.
        #expect(kind(#"{"created": 1612100000, "score": 1, "recording_mbid": null, "recording_msid": "b1d0"}"#) == nil)
        #expect(kind(#"{"user_id": 1, "username": "example"}"#) == nil)
        // Spotify's account data is read since issue 41 (SpotifyHistoryTests).
        #expect(kind(#"[{"endTime": "2021-01-31 12:34", "artistName": "Nils Frahm", "trackName": "Says", "msPlayed": 1000}]"#) == .spotify)
        #expect(kind("Activity ID,Activity Date,Activity Name,Activity Type,Filename\n1,\"May 4, 2024\",Run,Run,a.gpx\n") == nil)
        #expect(kind("a,b,c,d\n1,2,3,4\n") == nil)
        #expect(kind("[]") == nil)
    }

    @Test("a listen's id folds case, spacing and Unicode composition, and keeps only the minute")
    func listenIDs() {
        func id(_ artist: String, _ track: String, _ iso: String) -> UUID {
            ExportItems.listenID(ImportedListen(startMs: Self.ms(iso), artist: artist, track: track, format: "lastfm"))
        }
        let says = id("Nils Frahm", "Says", "2021-01-31T12:34:00Z")
        #expect(id("  nils   FRAHM\t", "says ", "2021-01-31T12:34:59Z") == says)
        #expect(id("Nils Frahm", "Says", "2021-01-31T12:35:00Z") != says)
        #expect(id("Nils Frahm", "Says (Live)", "2021-01-31T12:34:00Z") != says)
        #expect(id("Sigur Ro\u{301}s", "Svefn-g-englar", "2021-02-01T09:05:00Z") == id("SIGUR RÓS", "Svefn-g-englar", "2021-02-01T09:05:00Z"))
        #expect(ExportItems.fold("  Nils   FRAHM\t ") == "nils frahm")
        #expect(ExportItems.fold("") == "")
    }

    @Test("a listen's id begins with its minute (UUIDv7), so a history's ids grow with time; a listen stored under the older id is found again, not doubled")
    func timeOrderedListenIDs() throws {
        let minute = Self.ms("2021-01-31T12:34:00Z")
        let says = ExportItems.listenID(artist: "Nils Frahm", track: "Says", startMs: minute + 27_000)
        let bytes = withUnsafeBytes(of: says.uuid) { Array($0) }
        #expect(bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == UInt64(minute), "the minute, in ms since 1970")
        #expect(bytes[6] >> 4 == 7 && bytes[8] >> 6 == 2, "version 7, RFC 9562's variant")
        let later = ExportItems.listenID(artist: "Ash Walker", track: "Aquarius", startMs: minute + 60_000)
        let earlier = ExportItems.listenID(artist: "Zola Jesus", track: "Night", startMs: minute - 60_000)
        #expect([later, says, earlier].sorted { $0.uuidString < $1.uuidString } == [earlier, says, later])

        // Stored before the ids began with the minute: the hash alone.
        let temporary = try TemporaryStore()
        var old = ExportItems.item(for: ImportedListen(startMs: minute + 27_000, durationMs: 485_000, artist: "Nils Frahm", track: "Says",
                                                       album: "Spaces", format: "listenbrainz"))
        old.id = SuggestionBuilder.stableID("import|listen|nils frahm|says|\(minute / 60_000)")
        var changes = SourceChanges()
        changes.items = [old]
        _ = try temporary.store.apply(changes)
        let brainz = ExportImporter(store: temporary.store).run([Self.fixture("listenbrainz_2021_1.jsonl")]) { _, _, _, _ in }
        #expect(brainz[0].added == 3 && brainz[0].duplicates == 1, "\(brainz)")
        let saysItems = try temporary.store.items().filter { if case .song(let s) = $0.asset { s.song == "Says" } else { false } }
        #expect(saysItems.map(\.id) == [old.id], "one Says, under the id it had")
    }

    @Test("the same listen from ListenBrainz and from two Last.fm exports is one item; the richer copy stays")
    func duplicatesAcrossExports() throws {
        let temporary = try TemporaryStore()
        let importer = ExportImporter(store: temporary.store)
        let brainz = importer.run([Self.fixture("listenbrainz_2021_1.jsonl")]) { _, _, _, _ in }
        #expect(brainz.map(\.counts) == [["songs": 2, "podcasts": 2]])
        #expect(brainz[0].added == 4)
        #expect(brainz[0].duplicates == 0)
        #expect(!brainz[0].touched.isEmpty)

        // Hejira at 14:20 and Says at 12:34 (12:34:27 in ListenBrainz) are there already.
        let lastfm = importer.run([Self.fixture("lastfm_to_csv.csv")]) { _, _, _, _ in }
        #expect(lastfm[0].counts == ["songs": 4])
        #expect(lastfm[0].added == 2)
        #expect(lastfm[0].duplicates == 2)
        let ghan = importer.run([Self.fixture("lastfm_ghan.csv")]) { _, _, _, _ in }
        #expect(ghan[0].added == 1)
        #expect(ghan[0].duplicates == 2)
        let old = importer.run([Self.fixture("listenbrainz_old_export.json")]) { _, _, _, _ in }
        #expect(old[0].added == 1)
        #expect(old[0].duplicates == 1)

        let items = try temporary.store.items()
        #expect(items.count == 8)
        #expect(items.allSatisfy { $0.source == "import" })
        let songs = try Self.songs(temporary.store)
        #expect(songs.map(\.song).sorted() == ["Amelia", "Hammers", "Hejira", "Says", "Suite: Judy Blue Eyes", "Svefn-g-englar"])
        let says = try #require(items.first { if case .song(let s) = $0.asset { s.song == "Says" } else { false } })
        #expect(says.startMs == Self.ms("2021-01-31T12:34:27Z"), "ListenBrainz's copy, with its duration")
        #expect(says.endMs == says.startMs + 523_000, "ListenBrainz's copy, with its duration")
        let podcasts = items.compactMap { if case .podcast(let p) = $0.asset { p } else { nil } }
        #expect(podcasts.map { "\($0.show): \($0.episode)" }.sorted() == ["Radiolab: The Overview Effect", "Song Exploder: Episode 12: Listening"])

        // The other way round: Last.fm first, then ListenBrainz's richer copy (a duration) replaces it.
        let second = try TemporaryStore()
        _ = ExportImporter(store: second.store).run([Self.fixture("lastfm_to_csv.csv")]) { _, _, _, _ in }
        let replaced = ExportImporter(store: second.store).run([Self.fixture("listenbrainz_2021_1.jsonl")]) { _, _, _, _ in }
        #expect(replaced[0].duplicates == 2, "Says replaced (a duration), Hejira kept, two podcasts new")
        #expect(replaced[0].added == 3, "Says replaced (a duration), Hejira kept, two podcasts new")
        let kept = try #require(try second.store.items().first { if case .song(let s) = $0.asset { s.song == "Says" } else { false } })
        #expect(kept.endMs - kept.startMs == 523_000)
        #expect(kept.externalID == "listenbrainz")
        #expect(try second.store.items().count == 6)
    }
}
