import Foundation
import GRDB
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Synchronization
import Testing

@Suite("Backups of the decisions: pickerctl backup, restore and export; pickerd's daily copies", .serialized)
struct BackupTests {
    /// Every decision the store holds, to compare one store with another.
    struct Decisions: Equatable {
        var history: [Release]
        var apps: [String: AppRecord]
        var hidden: [StoredHiddenRule]
        var corrections: [StoredPlaceCorrection]
        var settings: [CategorySetting]
        var consent: Int64?

        /// Each field that differs from `other`'s, by name.
        func differences(_ other: Decisions) -> [String] {
            [("history", history == other.history), ("apps", apps == other.apps), ("hidden", hidden == other.hidden),
             ("corrections", corrections == other.corrections), ("settings", settings == other.settings),
             ("consent", consent == other.consent)].filter { !$0.1 }.map(\.0)
        }

        init(_ data: String) throws {
            let store = try Store(dataDirectory: data)
            history = try store.history()
            apps = try store.appRecords()
            hidden = try store.hiddenRules()
            corrections = try store.placeCorrections()
            settings = try store.categorySettings()
            consent = try store.consentDate()
        }
    }

    @Test("backup → wipe → restore gives every decision back; while pickerd serves; a second restore changes nothing")
    func roundTrip() throws {
        let (root, releases) = try SalvageTests.filledStore()
        let expected = try Decisions(root + "/data")
        #expect(expected.history.count == releases.count)
        let file = root + "/decisions.backup"
        do {
            let pickerd = try RunningPickerd(seed: false, root: root)
            let made = try pickerd.ctl(["backup", file])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stdout.hasPrefix("your decisions written to \(file) ("), "\(made.stdout)")
            #expect(pickerd.stop() == 0)
        }
        let info = try Store.backupInfo(file)
        #expect(info.kind == .decisions && info.schemaVersion == Store.currentSchemaVersion)
        // The library is not in it: only what no folder can give again.
        #expect(try DatabaseQueue(path: file).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE source NOT LIKE 'donation:%'")
        } == 0)

        try FileManager.default.removeItem(atPath: root + "/data")
        let fresh = try RunningPickerd(seed: true, root: root)
        let restored = try fresh.ctl(["restore", file])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.hasPrefix("restored your decisions from \(file), made "), "\(restored.stdout)")
        let again = try fresh.ctl(["restore", file])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(fresh.stop() == 0)
        #expect(try Decisions(root + "/data").differences(expected) == [])
    }

    @Test("a file that is not a backup is refused with one line naming it, and nothing changes")
    func notABackup() throws {
        let (root, _) = try SalvageTests.filledStore()
        let expected = try Decisions(root + "/data")
        let pickerd = try RunningPickerd(seed: false, root: root)
        let text = root + "/notes.txt"
        try "my notes\n".write(toFile: text, atomically: true, encoding: .utf8)
        let store = root + "/a-store.sqlite"
        try FileManager.default.copyItem(atPath: StoreFixtures.directory + "/v13/pickerd.sqlite", toPath: store)
        for (file, why) in [(text, "is not a pickerd backup (file is not a database)"),
                            (store, "is not a pickerd backup (pickerctl backup FILE makes one)"),
                            (root + "/missing.backup", "cannot be read (is it there?)")] {
            let result = try pickerd.ctl(["restore", file])
            #expect(result.status == 1)
            #expect(result.stderr == "pickerctl: \(file) \(why)\n", "\(result.stderr)")
        }
        #expect(pickerd.stop() == 0)
        #expect(try Decisions(root + "/data").differences(expected) == [])
    }

    @Test("restore while an app presents: both finish, the app gets its suggestion, the decisions are the backup's")
    func restoreWhilePresenting() throws {
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{"list": "recommended", "index": 0}]}"#)
        let file = pickerd.root + "/decisions.backup"
        #expect(try pickerd.ctl(["hidden", "add", "--person", "Bea Ortega"]).status == 0)
        #expect(try pickerd.ctl(["backup", file]).status == 0)
        #expect(try pickerd.ctl(["hidden", "add", "--person", "Carl"]).status == 0)
        // A presentation runs on while the restore does (in whichever order they meet).
        let outcome = Mutex("none")
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let result = (try? testClient(pickerd, "present").last?["result"] as? String) ?? "none"
            outcome.withLock { $0 = result }
        }
        let restored = try pickerd.ctl(["restore", file])
        group.wait()
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(outcome.withLock { $0 } == "approved", "\(pickerd.logText)")
        let hidden = try pickerd.ctl(["hidden", "list"])
        #expect(hidden.stdout.contains("Bea Ortega") && !hidden.stdout.contains("Carl"), "\(hidden.stdout)")
        #expect(pickerd.stop() == 0)
        // The presentation's release came after the backup: the history is the backup's (none),
        // plus that release if it committed after the restore.
        #expect(try Store(dataDirectory: pickerd.data).history().count <= 1)
    }

    @Test("everything (--all): the library too; a decisions backup is refused for --all")
    func everything() throws {
        let (root, _) = try SalvageTests.filledStore()
        let expected = try Decisions(root + "/data")
        let items = try Store(dataDirectory: root + "/data").personsItems().count
        let pickerd = try RunningPickerd(seed: false, root: root)
        let all = root + "/all.backup", decisions = root + "/decisions.backup"
        #expect(try pickerd.ctl(["backup", "--all", all]).status == 0)
        #expect(try pickerd.ctl(["backup", decisions]).status == 0)
        #expect(pickerd.stop() == 0)
        try FileManager.default.removeItem(atPath: root + "/data")
        let empty = try RunningPickerd(seed: false, root: root)
        let refused = try empty.ctl(["restore", "--all", decisions])
        #expect(refused.status == 1 && refused.stderr == "pickerctl: \(decisions) holds the decisions only: restore it without --all\n", "\(refused.stderr)")
        let restored = try empty.ctl(["restore", "--all", all])
        #expect(restored.status == 0, "\(restored.stderr)")
        let stats = try empty.ctl(["status"])
        #expect(stats.stdout.contains("library: \(items) items, "), "\(stats.stdout)")
        #expect(!stats.stdout.contains(", 0 suggestions"), "moments built again: \(stats.stdout)")
        #expect(empty.stop() == 0)
        #expect(try Decisions(root + "/data").differences(expected) == [])
        #expect(try Store(dataDirectory: root + "/data").personsItems().count == items)
    }

    @Test("export DIR: every table as JSON, the history entry for entry")
    func export() throws {
        let (root, releases) = try SalvageTests.filledStore()
        let pickerd = try RunningPickerd(seed: false, root: root)
        let directory = root + "/export"
        let result = try pickerd.ctl(["export", directory])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(pickerd.stop() == 0)
        let history = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/release.json"))) as? [[String: Any]])
        #expect(history.count == releases.count)
        #expect(Set(history.compactMap { $0["title"] as? String }) == Set(releases.map(\.title)))
        for table in ["app_state", "hidden_rule", "place_correction", "category_setting", "item", "location", "README"] {
            #expect(FileManager.default.fileExists(atPath: directory + "/\(table).json"), "\(table)")
        }
    }

    @Test("pickerd keeps a copy of the decisions itself, once its store is found sound: a backup restore takes")
    func dailyCopy() throws {
        let (root, _) = try SalvageTests.filledStore()
        let expected = try Decisions(root + "/data")
        let pickerd = try RunningPickerd(seed: false, root: root)
        let copy = root + "/data/backups/decisions-1.sqlite"
        var info: BackupInfo?
        for _ in 0..<600 where info == nil {
            info = try? Store.backupInfo(copy)
            if info == nil { usleep(50_000) }
        }
        #expect(info?.kind == .decisions, "\(pickerd.logText)")
        #expect(pickerd.stop() == 0)
        try FileManager.default.moveItem(atPath: copy, toPath: root + "/kept.backup")
        try FileManager.default.removeItem(atPath: root + "/data")
        let fresh = try RunningPickerd(seed: false, root: root)
        #expect(try fresh.ctl(["restore", root + "/kept.backup"]).status == 0)
        #expect(fresh.stop() == 0)
        let differences = try Decisions(root + "/data").differences(expected)
        #expect(differences == [], "\(differences)")
    }

    @Test("clearing the history writes pickerd's copies again: the cleared entries stay in no copy")
    func deletionReachesTheCopies() throws {
        let (root, releases) = try SalvageTests.filledStore()
        let pickerd = try RunningPickerd(seed: false, root: root)
        let copy = root + "/data/backups/decisions-1.sqlite"
        func entries(_ file: String) -> Int? { try? DatabaseQueue(path: file).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM release") } }
        var before: Int?
        for _ in 0..<600 where before == nil {
            before = (try? Store.backupInfo(copy)) != nil ? entries(copy) : nil
            if before == nil { usleep(50_000) }
        }
        #expect(before == releases.count, "\(pickerd.logText)")
        // An older copy, as the day before left it.
        try FileManager.default.copyItem(atPath: copy, toPath: root + "/data/backups/decisions-2.sqlite")
        let cleared = try pickerd.ctl(["history", "clear"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(entries(copy) == 0)
        #expect(!FileManager.default.fileExists(atPath: root + "/data/backups/decisions-2.sqlite"))
        #expect(pickerd.stop() == 0)
    }
}
