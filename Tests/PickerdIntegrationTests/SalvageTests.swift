import Foundation
import GRDB
import Glibc
import PickerdStore
import PickerdTestKit
import PickerdWire
import Testing

/// A store file damaged the way a failing disk or a cut copy damages one: whole pages overwritten.
enum DamagedStore {
    /// SQLite's page size in the store (pickerd leaves SQLite's default).
    static func pageSize(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096 }
    }

    /// The leaf pages of `btree` (a table or an index), in the file's order.
    static func leaves(_ path: String, _ btree: String) throws -> [Int] {
        try DatabaseQueue(path: path).read { db in
            try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", arguments: [btree])
        }
    }

    /// The rowids a table's leaf page holds, read from the page as SQLite lays it out (a 0x0D page:
    /// the cell count at byte 3, the cell pointers from byte 8; each cell a payload-size varint,
    /// then the rowid varint).
    static func rowids(_ path: String, page: Int) throws -> [Int64] {
        let size = try pageSize(path)
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * size))
        let bytes = [UInt8](try handle.read(upToCount: size) ?? Data())
        try handle.close()
        precondition(bytes[0] == 0x0D, "page \(page) is not a table leaf")
        func varint(_ at: inout Int) -> Int64 {
            var value: Int64 = 0
            for i in 0..<9 {
                let byte = bytes[at]
                at += 1
                if i == 8 { return (value << 8) | Int64(byte) }
                value = (value << 7) | Int64(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return value
        }
        let cells = Int(bytes[3]) << 8 | Int(bytes[4])
        return (0..<cells).map { cell in
            var at = Int(bytes[8 + 2 * cell]) << 8 | Int(bytes[9 + 2 * cell])
            _ = varint(&at)
            return varint(&at)
        }
    }

    /// Overwrites whole pages with a pattern no page type begins with.
    static func overwrite(_ path: String, pages: [Int]) throws {
        let size = try pageSize(path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for page in pages {
            try handle.seek(toOffset: UInt64((page - 1) * size))
            try handle.write(contentsOf: Data(repeating: 0xA5, count: size))
        }
        try handle.close()
    }
}

@Suite("A damaged store: moved aside, kept, salvaged decisions first; pickerd serves and says what was lost", .serialized)
struct SalvageTests {
    /// A demo library with many decisions, pickerd stopped: 600 history entries (several pages of
    /// them), apps, hidden rules, corrections and settings.
    static func filledStore() throws -> (root: String, releases: [Release]) {
        let pickerd = try RunningPickerd(seed: true)
        let root = pickerd.root
        pickerd.stop()
        // Keep the root past the RunningPickerd (it removes the roots it made).
        let kept = try TemporaryDirectory.forThisRun(prefix: "pkd-salv")
        try FileManager.default.removeItem(atPath: kept)
        try FileManager.default.copyItem(atPath: root, toPath: kept)
        // The seeding pickerd may have written its daily copy of the (then empty) decisions before it
        // stopped: the tests' pickerd must make its own of the filled store, not find that one.
        try? FileManager.default.removeItem(atPath: kept + "/data/backups")
        do {
            let store = try Store(dataDirectory: kept + "/data")
            let items = try store.items()
            for n in 0..<600 {
                let item = items[n % items.count]
                try store.recordRelease(timeMs: 1_700_000_000_000 + Int64(n) * 60_000, bundleID: n % 3 == 0 ? "org.example.diary" : "com.example.journal",
                                        appName: "Journal \(n)", suggestionID: UUID().uuidString, title: "Entry number \(n) with a longer title",
                                        items: [ReleasedItem(itemId: item.id.uuidString, kind: item.kind.rawValue, summary: "summary of \(n)")])
            }
            try store.allowApp("com.example.journal", key: "/usr/bin/journal|journal.entitlements", timeMs: 1_700_000_000_000)
            try store.revokeApp("org.example.diary", timeMs: 1_700_000_100_000)
            try store.addHiddenRule(StoredHiddenRule(target: .person("Bea Ortega"), createdMs: 1_700_000_000_000))
            try store.addHiddenRule(StoredHiddenRule(target: .days(from: 19_680, to: 19_682), createdMs: 1_700_000_000_001))
            try store.setPlaceCorrection(StoredPlaceCorrection(role: .home, coordinate: Coordinate(latitude: 52.52, longitude: 13.405), name: "Home",
                                                               createdMs: 1_700_000_000_000))
            try store.setCategories([CategorySetting(category: .stateOfMind, enabled: false)])
            try store.truncateLog()
            return (kept, try store.history().reversed())
        }
    }

    @Test("pages of the history, the items and an index overwritten: pickerd serves again, every decision in an undamaged page is kept, doctor names what was lost")
    func damagedPages() throws {
        let (root, releases) = try Self.filledStore()
        let path = root + "/data/pickerd.sqlite"
        let before = try Store(dataDirectory: root + "/data")
        let allItems = try before.items()
        let rules = try before.hiddenRules(), corrections = try before.placeCorrections(), apps = try before.appRecords()
        // A page in the middle of each: the history, the items, and the items' index by time.
        let releaseLeaves = try DamagedStore.leaves(path, "release"), itemLeaves = try DamagedStore.leaves(path, "item")
        let indexLeaves = try DamagedStore.leaves(path, "item_by_start")
        try #require(releaseLeaves.count >= 3 && itemLeaves.count >= 2 && !indexLeaves.isEmpty, "\(releaseLeaves) \(itemLeaves) \(indexLeaves)")
        let releasePage = releaseLeaves[releaseLeaves.count / 2], itemPage = itemLeaves[itemLeaves.count / 2]
        let indexPage = indexLeaves[indexLeaves.count / 2]
        let lostReleases = Set(try DamagedStore.rowids(path, page: releasePage))
        let itemRowids = Set(try DamagedStore.rowids(path, page: itemPage))
        let lostItems = Set(try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT id FROM item WHERE rowid IN (\(itemRowids.map(String.init).joined(separator: ",")))")
        }.compactMap(UUID.init(uuidString:)))
        #expect(!lostReleases.isEmpty && !lostItems.isEmpty)
        try DamagedStore.overwrite(path, pages: [releasePage, itemPage, indexPage])

        // pickerd starts on it, its background check finds the damage, and it salvages and serves
        // again (the same process, exec'd): waited for by the report it writes.
        let pickerd = try RunningPickerd(seed: false, root: root)
        var report: SalvageReport?
        for _ in 0..<600 where report == nil {
            report = Store.salvageReports(in: root + "/data").first
            if report == nil { usleep(50_000) }
        }
        let salvage = try #require(report, "\(pickerd.logText)")
        var serving = false
        for _ in 0..<600 where !serving {
            serving = (try? pickerd.ctl(["status"]))?.status == 0 && pickerd.logText.contains("the store was damaged and has been salvaged")
            if !serving { usleep(50_000) }
        }
        #expect(serving, "\(pickerd.logText)")
        #expect(FileManager.default.fileExists(atPath: salvage.damagedCopy), "the damaged store is kept")
        #expect(salvage.damagedCopy.hasPrefix(path + ".damaged-20"), "named with the date: \(salvage.damagedCopy)")

        let result = try doctor(runtime: pickerd.runtime)
        #expect(result.status == 1, "\(result.stdout)")
        let history = try #require(salvage.tables.first { $0.table == "release" })
        #expect(history.kept == releases.count - lostReleases.count, "\(history)")
        #expect(history.unreadable == ["\(lostReleases.min()!)–\(lostReleases.max()!)"], "exactly the damaged page's rows: \(history)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("lost: ") && $0.contains("history entries:") }, "\(result.stdout)")
        #expect(line.contains("history entries: \(history.kept) kept") && line.contains("unreadable rows \(lostReleases.min()!)–\(lostReleases.max()!)"),
                "\(line)")
        #expect(result.stdout.contains("was damaged (the store \(path) fails SQLite's integrity check"), "\(result.stdout)")
        #expect(result.stdout.contains("    damaged copy: \(salvage.damagedCopy)"), "\(result.stdout)")
        #expect(!result.stdout.contains("hidden rules:") && !result.stdout.contains("apps' allowances:"), "no other decision lost: \(result.stdout)")
        // The library serves: its moments are rebuilt from what was kept (beside serving).
        #expect(pickerd.waitForLog("built the library's moments"), "\(pickerd.logText)")
        let stats = try pickerd.ctl(["library", "stats"])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(pickerd.stop() == 0)

        let after = try Store(dataDirectory: root + "/data")
        #expect(after.integrityProblem() == nil)
        #expect(try after.history().reversed() == releases.filter { !lostReleases.contains($0.id) }, "every entry of an undamaged page, exactly")
        #expect(try after.hiddenRules() == rules)
        #expect(try after.placeCorrections() == corrections)
        #expect(try after.appRecords() == apps)
        #expect(try after.categorySettings().filter { !$0.enabled }.map(\.category) == [.stateOfMind])
        #expect(try after.consentDate() == before.consentDate())
        let kept = try after.items()
        #expect(Set(kept.map(\.id)) == Set(allItems.map(\.id)).subtracting(lostItems), "every item of an undamaged page")
        #expect(Set(kept) == Set(allItems.filter { !lostItems.contains($0.id) }), "each exactly")
        #expect(try after.suggestionCount() > 0)
    }

    @Test("a file that is not SQLite at all: moved aside and kept, pickerd starts afresh and serves, doctor says so")
    func notADatabase() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-salv")
        try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: root + "/data/pickerd.sqlite"))
        let pickerd = try RunningPickerd(seed: false, root: root)
        let salvage = try #require(Store.salvageReports(in: root + "/data").first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: salvage.damagedCopy)) == garbage)
        #expect(salvage.keptDecisions == "no decisions")
        let result = try doctor(runtime: pickerd.runtime)
        #expect(result.stdout.contains("is not a readable SQLite database"), "\(result.stdout)")
        #expect(result.stdout.contains("    when done:    rm \(salvage.damagedCopy) "), "\(result.stdout)")
        #expect(pickerd.stop() == 0)
        // Removing the copy ends the news.
        try FileManager.default.removeItem(atPath: salvage.damagedCopy)
        #expect(Store.salvageReports(in: root + "/data").isEmpty)
    }

    @Test("SIGKILL at each step of a salvage: the next start finishes the job, every readable decision kept, one damaged copy")
    func killedSalvage() throws {
        // The states a kill can leave, as the salvage leaves them: (1) the marker written, the file
        // not yet moved; (2) moved, nothing written; (3) the new store half written; (4) the new
        // store in place, the marker not yet removed.
        for step in 1...4 {
            let (root, releases) = try Self.filledStore()
            let data = root + "/data"
            let path = data + "/pickerd.sqlite"
            let page = try DamagedStore.leaves(path, "release")[1]
            let lost = Set(try DamagedStore.rowids(path, page: page))
            try DamagedStore.overwrite(path, pages: [page])
            let copy = path + ".damaged-2026-01-01T00-00-00Z"
            let marker = #"{"damagedCopy": "\#(copy)", "problem": "a test's damage", "dateMs": 1767225600000}"#
            try marker.write(toFile: data + "/pickerd.sqlite.salvaging", atomically: true, encoding: .utf8)
            if step >= 2 { #expect(rename(path, copy) == 0) }
            if step == 3 { try Data(repeating: 0, count: 8192).write(to: URL(fileURLWithPath: path + ".salvage-new")) }
            if step == 4 {
                try Store.salvage(dataDirectory: data, problem: "a test's damage")
                try marker.write(toFile: data + "/pickerd.sqlite.salvaging", atomically: true, encoding: .utf8)
            }
            let pickerd = try RunningPickerd(seed: false, root: root)
            #expect(pickerd.stop() == 0, "step \(step): \(pickerd.logText)")
            #expect(!FileManager.default.fileExists(atPath: data + "/pickerd.sqlite.salvaging"), "step \(step)")
            let copies = try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.contains(".damaged-") && !$0.hasSuffix(".json") && !$0.hasSuffix("-wal") }
            #expect(copies == ["pickerd.sqlite.damaged-2026-01-01T00-00-00Z"], "step \(step): \(copies)")
            let after = try Store(dataDirectory: data)
            #expect(try after.history().reversed() == releases.filter { !lost.contains($0.id) }, "step \(step)")
            #expect(try after.hiddenRules().count == 2, "step \(step)")
        }
    }
}
