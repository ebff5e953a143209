import Foundation
import GRDB
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// The fixture stores (Fixtures/stores/vN, each written by the PickerdStore of the commit that
/// introduced schema vN: make-fixtures there) and what each holds, as FixtureMaker.swift.in wrote it.
enum StoreFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/stores").path
    /// Every schema version a pickerd stopped at (v8 came with v9, in one commit).
    static let versions = [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14]

    /// A new temporary root whose data directory holds the fixture store of `version`.
    static func root(version: Int) throws -> String {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-up")
        try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: directory + "/v\(version)/pickerd.sqlite", toPath: root + "/data/pickerd.sqlite")
        return root
    }

    static let t0: Int64 = 1_700_000_000_000
    static func ms(_ days: Int64, _ hours: Int64 = 0) -> Int64 { t0 + days * 86_400_000 + hours * 3_600_000 }
    static func uuid(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))! }

    /// A history entry's every field (``Release`` is made by the store only).
    struct Entry: Equatable {
        var id: Int64, timeMs: Int64, bundleID: String, appName: String, suggestionID: String, title: String, items: [ReleasedItem]
        init(id: Int64, timeMs: Int64, bundleID: String, appName: String, suggestionID: String, title: String, items: [ReleasedItem]) {
            (self.id, self.timeMs, self.bundleID, self.appName, self.suggestionID, self.title, self.items) = (id, timeMs, bundleID, appName, suggestionID, title, items)
        }
        init(_ r: Release) { self.init(id: r.id, timeMs: r.timeMs, bundleID: r.bundleID, appName: r.appName, suggestionID: r.suggestionID, title: r.title, items: r.items) }
    }

    static let history = [
        Entry(id: 2, timeMs: ms(4), bundleID: "org.example.diary", appName: "Diary “Ü”", suggestionID: "A1B2C3D4-0000-4000-8000-000000000011",
                title: "A question", items: [ReleasedItem(itemId: uuid(3).uuidString, kind: "reflection", summary: "What surprised you today?")]),
        Entry(id: 1, timeMs: ms(3), bundleID: "com.example.journal", appName: "Journal", suggestionID: "A1B2C3D4-0000-4000-8000-000000000010",
                title: "A day in Lisbon",
                items: [ReleasedItem(itemId: uuid(1).uuidString, kind: "location", summary: "Miradouro da Graça, Lisbon"),
                        ReleasedItem(itemId: uuid(2).uuidString, kind: "song", summary: "Fado Tropical · Chico Buarque")]),
    ]

    static let assets: [UUID: Item.Asset] = [
        uuid(1): .location(Location(place: "Miradouro da Graça", city: "Lisbon", location: GeoLocation(latitude: 38.7167, longitude: -9.1315),
                                    date: Timestamp(unixMs: ms(1)))),
        uuid(2): .song(Song(song: "Fado Tropical", artist: "Chico Buarque", album: "Chico Canta", date: Timestamp(unixMs: ms(1, 3)))),
        uuid(3): .reflection(Reflection(prompt: "What surprised you today?")),
    ]

    /// Checks every decision the fixture of `version` holds, read through today's store.
    static func expectDecisions(_ store: Store, version: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let releases = try store.history().map(Entry.init)
        #expect(Array(releases.suffix(2)) == history, "v\(version): history", sourceLocation: sourceLocation)
        let disabled = Set(try store.categorySettings().filter { !$0.enabled }.map(\.category))
        #expect(disabled == [.stateOfMind, .contacts], "v\(version): categories", sourceLocation: sourceLocation)
        #expect(try store.consentDate() == ms(0), "v\(version): consent", sourceLocation: sourceLocation)
        #expect(try store.privacyBannerDismissed(), "v\(version): banner", sourceLocation: sourceLocation)
        let items = Dictionary(uniqueKeysWithValues: try store.items().map { ($0.id, $0) })
        for (id, asset) in assets {
            #expect(items[id]?.asset == asset, "v\(version): item \(id)", sourceLocation: sourceLocation)
        }
        #expect(items[uuid(1)]?.startMs == ms(1) && items[uuid(1)]?.endMs == ms(1, 2), "v\(version)", sourceLocation: sourceLocation)
        if version >= 2 {
            let settings = try store.notificationSettings()
            #expect(settings == NotificationSettings(enabled: true, mode: .custom,
                                                     slots: [ReminderSlot(weekday: 2, minuteOfDay: 1230), ReminderSlot(weekday: 7, minuteOfDay: 540)],
                                                     openWithBundleId: "com.example.journal"), "v\(version): reminders' settings", sourceLocation: sourceLocation)
        }
        if version >= 3 {
            // (pickerd's scheduler, running on today's clock, may have fired newer ones since.)
            let reminders = Array(try store.notifications().suffix(2))
            #expect(reminders.map(\.id) == ["reminder-2", "reminder-1"], "v\(version)", sourceLocation: sourceLocation)
            #expect(reminders.last?.opened == true && reminders.last?.url == "journal://new?suggestion=A1B2C3D4-0000-4000-8000-000000000010",
                    "v\(version)", sourceLocation: sourceLocation)
            #expect(reminders.first?.firedAt?.unixMs == ms(6) && reminders.first?.opened == false, "v\(version)", sourceLocation: sourceLocation)
            #expect(try store.reminderWatermark() ?? 0 >= ms(7), "v\(version): watermark", sourceLocation: sourceLocation)
        }
        if version >= 6 {
            let sources = try store.sources()
            #expect(sources.map(\.path) == ["/home/ana/Pictures"] && sources.first?.addedMs == ms(0), "v\(version): sources", sourceLocation: sourceLocation)
        }
        if version >= 7 {
            let apps = try store.appRecords()
            #expect(apps["com.example.journal"] == AppRecord(bundleID: "com.example.journal",
                                                             allowedKey: "/usr/bin/journal|/usr/share/journal/journal.entitlements",
                                                             allowedMs: ms(2), lastPresentedMs: ms(6)), "v\(version): apps", sourceLocation: sourceLocation)
            #expect(apps["org.example.diary"] == AppRecord(bundleID: "org.example.diary", allowedKey: "flatpak:org.example.diary",
                                                           allowedMs: ms(2, 1), revokedMs: ms(5)), "v\(version): apps", sourceLocation: sourceLocation)
            #expect(apps["org.example.diary"]?.isRevoked == true, sourceLocation: sourceLocation)
        }
        if version >= 8 {
            let donations = try store.donations(bundleID: "com.example.journal", externalIDs: ["entry-42"])
            #expect(donations.map(\.id) == [uuid(4)], "v\(version): donations", sourceLocation: sourceLocation)
            #expect(donations.first?.asset == .genericMedia(GenericMedia(title: "Morning pages", artist: "Journal", album: "",
                                                                         date: Timestamp(unixMs: ms(2, 6)))), sourceLocation: sourceLocation)
        }
        if version >= 11 {
            let rules = try store.hiddenRules()
            #expect(rules == [
                StoredHiddenRule(id: 1, target: .suggestion(UUID(uuidString: "A1B2C3D4-0000-4000-8000-000000000012")!, title: "Errands"), createdMs: ms(3)),
                StoredHiddenRule(id: 2, target: .person("Bea Ortega"), createdMs: ms(3, 1)),
                StoredHiddenRule(id: 3, target: .place(name: "Clinic", coordinate: Coordinate(latitude: 38.7369, longitude: -9.1427)), createdMs: ms(3, 2)),
                StoredHiddenRule(id: 4, target: .days(from: 19_680, to: 19_682), createdMs: ms(3, 3)),
            ], "v\(version): hidden rules", sourceLocation: sourceLocation)
        }
        if version >= 12 {
            let corrections = try store.placeCorrections()
            #expect(corrections == [
                StoredPlaceCorrection(id: 1, role: .home, coordinate: Coordinate(latitude: 38.7223, longitude: -9.1393), name: "Home", createdMs: ms(4)),
                StoredPlaceCorrection(id: 2, role: .home, coordinate: Coordinate(latitude: 41.1579, longitude: -8.6291), name: "Porto flat",
                                      fromDay: 19_700, createdMs: ms(4, 1)),
                StoredPlaceCorrection(id: 3, role: .work, coordinate: Coordinate(latitude: 38.7078, longitude: -9.1366), createdMs: ms(4, 2)),
            ], "v\(version): place corrections", sourceLocation: sourceLocation)
        }
        if version >= 14 {
            let skipped = try store.skippedFolders().values.flatMap { $0 }
            #expect(skipped.map(\.path) == ["/home/ana/Pictures/.thumbnails"] && skipped.map(\.reason) == ["a hidden folder"],
                    "v\(version): folders not looked into", sourceLocation: sourceLocation)
        }
    }

    /// The migrations a store file has had, read directly.
    static func migrations(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0 }
    }
}

@Suite("Upgrades: today's pickerd opens a store of every earlier schema, every decision kept", .serialized)
struct UpgradeTests {
    @Test("a store of each schema version, as that version wrote it: pickerd upgrades it, keeps a copy from before, serves, and every decision is there exactly",
          arguments: StoreFixtures.versions)
    func upgrade(version: Int) throws {
        let root = try StoreFixtures.root(version: version)
        let script = #"{"consent": "accept", "reviews": [{"list": "recommended", "index": 0}]}"#
        let pickerd = try sessionPickerd(script: script, root: root)
        // It serves: the library's items are counted, its moments rebuilt, and an app is given one.
        let status = try pickerd.ctl(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        // The moments are built again beside serving; the app is given one of the new ones.
        #expect(pickerd.waitForLog("built the library's moments"), "\(pickerd.logText)")
        let outcome = try #require(try testClient(pickerd, "present").last, "\(pickerd.logText)")
        #expect(outcome["result"] as? String == "approved", "v\(version): \(outcome) \(pickerd.logText)")
        #expect(pickerd.stop() == 0)
        let store = try Store(dataDirectory: pickerd.data)
        try StoreFixtures.expectDecisions(store, version: version)
        #expect(try store.history().count == 3, "the two releases from before and the new one")
        let copy = pickerd.data + "/" + Store.beforeUpgradeName(Store.currentSchemaVersion)
        if version < Store.currentSchemaVersion {
            // The copy is the store as it was: that version's migrations, nothing of today's.
            let applied = try StoreFixtures.migrations(copy)
            #expect(applied == version, "v\(version): the copy has had \(applied) migrations")
            #expect(try StoreFixtures.migrations(pickerd.data + "/pickerd.sqlite") == Store.currentSchemaVersion)
        } else {
            #expect(!FileManager.default.fileExists(atPath: copy), "no upgrade, no copy")
        }
    }

    @Test("a store a newer pickerd wrote is refused with one clear line, and left as it was: no migration, no copy, every row")
    func newer() throws {
        let root = try StoreFixtures.root(version: 13)
        let path = root + "/data/pickerd.sqlite"
        let current = Store.currentSchemaVersion, later = current + 1
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: ["v\(later): something a later pickerd knows"])
        }
        func contents() throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                    + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                    + String.fetchAll(db, sql: "SELECT title FROM release ORDER BY id")
            }
        }
        let before = try contents()
        let result = try runProduct("pickerd", ["--runtime-dir", root + "/run", "--data-dir", root + "/data", "--config-dir", root + "/config"])
        #expect(result.status == 1)
        #expect(result.stderr == "pickerd: the store \(path) was written by a newer pickerd (schema v\(later); this pickerd knows up to v\(current)) "
                + "and was left as it is: run that newer pickerd again, or start this one with another --data-dir\n", "\(result.stderr)")
        #expect(try contents() == before)
        #expect(!FileManager.default.fileExists(atPath: root + "/data/" + Store.beforeUpgradeName(current)))
    }

    @Test("a migration that fails half-way is rolled back, pickerd says which and where the copy is; fixed, the next start upgrades and keeps the first copy")
    func failedMigration() throws {
        let root = try StoreFixtures.root(version: 11)
        let path = root + "/data/pickerd.sqlite"
        // Something in the way of v13's index: v12 applies, v13 cannot.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE VIEW source_file_by_size AS SELECT 1") }
        let arguments = ["--runtime-dir", root + "/run", "--data-dir", root + "/data", "--config-dir", root + "/config"]
        let failed = try runProduct("pickerd", arguments)
        #expect(failed.status == 1)
        let copy = root + "/data/" + Store.beforeUpgradeName(Store.currentSchemaVersion)
        #expect(failed.stderr.hasPrefix("pickerd: cannot upgrade the store \(path): migration 'v13: a source's files by size, to find a photo's copies' failed ("),
                "\(failed.stderr)")
        #expect(failed.stderr.contains("was rolled back; the store as it was before the upgrade is kept at \(copy)"), "\(failed.stderr)")
        #expect(try StoreFixtures.migrations(copy) == 11)
        #expect(try StoreFixtures.migrations(path) == 12, "v12 went through; v13 left nothing")
        // A second try while it still fails keeps the first copy, not the half-upgraded store.
        #expect(try runProduct("pickerd", arguments).status == 1)
        #expect(try StoreFixtures.migrations(copy) == 11)

        try DatabaseQueue(path: path).write { db in try db.execute(sql: "DROP VIEW source_file_by_size") }
        let pickerd = try RunningPickerd(seed: false, root: root)
        #expect(pickerd.stop() == 0)
        #expect(try StoreFixtures.migrations(path) == Store.currentSchemaVersion)
        #expect(try StoreFixtures.migrations(copy) == 11, "the copy from before the upgrade is kept")
        try StoreFixtures.expectDecisions(try Store(dataDirectory: root + "/data"), version: 11)
    }

    @Test("SIGKILL at any moment of an upgrade: the next start finishes it, every decision kept")
    func killedUpgrade() throws {
        // Killed ever later, from at once to after it serves: whichever step the kill lands in
        // (the copy, a migration, the rebuild), the next start ends with the same store.
        for delay in [0, 2_000, 10_000, 30_000, 80_000, 200_000] as [UInt32] {
            let root = try StoreFixtures.root(version: 4)
            let process = Process()
            process.executableURL = RunningPickerd.executable
            process.arguments = ["--runtime-dir", root + "/run", "--data-dir", root + "/data", "--config-dir", root + "/config"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let pickerd = try RunningPickerd(seed: false, root: root)
            #expect(pickerd.stop() == 0, "after a kill at \(delay) µs: \(pickerd.logText)")
            try StoreFixtures.expectDecisions(try Store(dataDirectory: root + "/data"), version: 4)
            #expect(try StoreFixtures.migrations(root + "/data/pickerd.sqlite") == Store.currentSchemaVersion)
            let copy = root + "/data/" + Store.beforeUpgradeName(Store.currentSchemaVersion)
            #expect(try StoreFixtures.migrations(copy) == 4, "the copy is the store before the upgrade, never a later state")
            #expect(!FileManager.default.fileExists(atPath: copy + ".partial"))
        }
    }
}
