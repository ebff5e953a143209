import Foundation
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// `pickerctl import` of listening history and moods through a real pickerd: a ListenBrainz user
/// export zip (listens by month, and the files beside them that are not listens) and a Daylio CSV
/// become songs, podcasts and moods in the library; a broken file among them is refused with its
/// error and pickerd serves on.
@Suite("Importing listening history and moods", .serialized)
struct ListeningImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PickerdImportTests/Fixtures")

    /// A ListenBrainz user export as ListenBrainz zips it (Python's zipfile, deflated, as
    /// `listenbrainz/background/export.py` writes it): `user.json`, `listens/2021/1.jsonl` (the
    /// fixture), `feedback.jsonl`.
    static func makeListenBrainzZip(_ path: String) throws {
        let month = fixtures.appendingPathComponent("listenbrainz_2021_1.jsonl").path
        let r = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sys, zipfile
            out, month = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("user.json", '{"user_id": 1, "username": "example"}\\n')
                z.write(month, "listens/2021/1.jsonl")
                z.writestr("feedback.jsonl", '{"created": 1612100000, "score": 1, "recording_mbid": null, "recording_msid": "b1d0f2c4-1a2b-4c3d-8e9f-0a1b2c3d4e5f"}\\n')
            """, path, month])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test("a ListenBrainz export zip and a Daylio CSV become songs, podcasts and moods; a broken Last.fm CSV is refused and pickerd serves on")
    func listensAndMoods() throws {
        let pickerd = try RunningPickerd(seed: false, environment: ["TZ": "UTC"])
        let zip = pickerd.root + "/listenbrainz_example_1700000000.zip"
        try Self.makeListenBrainzZip(zip)
        let daylio = pickerd.root + "/daylio_export_2024_05_05.csv"
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("daylio_export.csv").path, toPath: daylio)

        let imported = try pickerd.ctl(["import", zip, daylio])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        func line(_ output: String, _ part: String) -> String { output.split(separator: "\n").first { $0.contains(part) }.map(String.init) ?? "" }
        let listens = line(imported.stdout, "listenbrainz_example_1700000000.zip/listens/2021/1.jsonl (listenbrainz)")
        #expect(listens.contains("2 songs"), "\(imported.stdout)")
        #expect(listens.contains("2 podcasts"), "\(imported.stdout)")
        let moods = line(imported.stdout, "daylio_export_2024_05_05.csv (daylio)")
        #expect(moods.contains("5 moods"), "\(imported.stdout)")
        #expect(moods.contains("1 custom mood"), "\(imported.stdout)")
        #expect(imported.stdout.contains("2 files not recognised as an export"), "user.json and feedback.jsonl: \(imported.stdout)")
        #expect(imported.stdout.contains("9 items added"), "\(imported.stdout)")

        let stats = try pickerd.ctl(["library", "stats"])
        let counts = Dictionary(uniqueKeysWithValues: stats.stdout.split(separator: "\n").compactMap { line -> (String, Int)? in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let n = Int(parts[1]) else { return nil }
            return (String(parts[0]), n)
        })
        #expect(counts["song"] == 2, "\(stats.stdout)")
        #expect(counts["podcast"] == 2, "\(stats.stdout)")
        #expect(counts["stateOfMind"] == 5, "\(stats.stdout)")

        let store = try Store(dataDirectory: pickerd.data)
        let items = try store.personsItems()
        let says = try #require(items.first { if case .song(let s) = $0.asset { s.song == "Says" } else { false } })
        if case .song(let s) = says.asset { #expect(s.artist == "Nils Frahm" && s.album == "Spaces" && s.date?.unixMs == 1_612_096_467_000) }
        let rad = try #require(items.compactMap { if case .stateOfMind(let s) = $0.asset { s.state } else { nil } }.first { $0.valence == 1 })
        #expect(rad.valenceClassification == .veryPleasant)
        #expect(rad.kind == .momentaryEmotion)
        #expect(rad.associations == [.friends, .hobbies])
        #expect(rad.date?.unixMs == 1_714_857_300_000, "2024-05-04 21:15 in the person's zone (UTC here)")

        // A Last.fm CSV whose third row's date is broken: refused whole, naming the line; nothing added.
        let broken = pickerd.root + "/lastfm.csv"
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("lastfm_broken_date.csv").path, toPath: broken)
        let refused = try pickerd.ctl(["import", broken, zip])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("lastfm.csv: not imported: lastfm.csv, line 3: the date \"31 Jnu 2021 14:20\" is not a Last.fm date"),
                "\(refused.stdout)")
        #expect(line(refused.stdout, "1.jsonl (listenbrainz)").contains("4 already imported"), "the zip again adds nothing: \(refused.stdout)")
        #expect(refused.stdout.contains("0 items added"), "\(refused.stdout)")
        #expect(try store.personsItems().count == items.count)
        let status = try pickerd.ctl(["status"])
        #expect(status.status == 0, "pickerd serves on: \(status.stdout)")
        #expect(status.stdout.contains("library: 9 items"), "pickerd serves on: \(status.stdout)")
        pickerd.stop()
    }
}
