import Foundation
import GRDB
import PickerdStore
import PickerdTestKit
import Testing

/// A disk of a few hundred kilobytes (a tmpfs mounted for the test; mounting needs root, as the
/// tests run in CI and on this project's machines), unmounted when the test is done.
final class SmallDisk {
    let path: String

    init(kilobytes: Int) throws {
        path = try TemporaryDirectory.forThisRun(prefix: "pkd-full")
        let mounted = try runCommand(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", path])
        guard mounted.status == 0 else { throw SmallDiskError(message: "cannot mount a small disk at \(path): \(mounted.stderr)") }
    }

    /// The bytes the disk has left.
    var free: Int {
        var stats = statvfs()
        return statvfs(path, &stats) == 0 ? Int(stats.f_bavail) * Int(stats.f_frsize) : 0
    }

    deinit { _ = try? runCommand(URL(fileURLWithPath: "/bin/umount"), ["-l", path]) }
}

struct SmallDiskError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A full disk while pickerd keeps the person's decisions: a clear error, nothing half-written
/// taken for the real thing, the store as it was, and pickerd serving on (issue 44).
@Suite("A full disk during a backup, an upgrade and a salvage", .serialized, .enabled(if: getuid() == 0, "mounting a small disk needs root"))
struct FullDiskTests {
    @Test("a backup onto a full disk: a clear error naming the file, no partial file left, pickerd serves on and a backup elsewhere is whole")
    func backup() throws {
        let (root, _) = try SalvageTests.filledStore()
        let disk = try SmallDisk(kilobytes: 64)
        let pickerd = try RunningPickerd(seed: false, root: root)
        let file = disk.path + "/decisions.backup"
        let failed = try pickerd.ctl(["backup", file])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("cannot write the backup \(file): ") && failed.stderr.contains("nothing was written"), "\(failed.stderr)")
        #expect(failed.stderr.contains("full"), "says why: \(failed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [], "no partial file is left on the disk")
        // pickerd serves on, and the same backup where there is room is whole.
        #expect(try pickerd.ctl(["status"]).status == 0)
        let elsewhere = root + "/decisions.backup"
        #expect(try pickerd.ctl(["backup", elsewhere]).status == 0)
        #expect(try Store.backupInfo(elsewhere).kind == .decisions)
        #expect(pickerd.stop() == 0)
    }

    @Test("a salvage with no room for the new store: the damaged store kept, a clear error naming it; with room, the next start salvages")
    func salvage() throws {
        let (root, releases) = try SalvageTests.filledStore()
        let path = root + "/data/pickerd.sqlite"
        let releaseLeaves = try DamagedStore.leaves(path, "release")
        let lost = Set(try DamagedStore.rowids(path, page: releaseLeaves[releaseLeaves.count / 2]))
        try DamagedStore.overwrite(path, pages: [releaseLeaves[releaseLeaves.count / 2]])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let disk = try SmallDisk(kilobytes: size / 1024 + 96)
        try FileManager.default.createDirectory(atPath: disk.path + "/data", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: disk.path + "/data/pickerd.sqlite")
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let arguments = ["--runtime-dir", root + "/run", "--data-dir", disk.path + "/data", "--config-dir", root + "/config"]
        let failed = try runProduct("pickerd", arguments)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("full"), "says why: \(failed.stderr)")
        // The damaged store is kept, moved aside whole (pickerd served on it until its check failed, so
        // it may hold what that pickerd wrote meanwhile), and the error names where.
        let names = try FileManager.default.contentsOfDirectory(atPath: disk.path + "/data")
        let copy = try #require(names.first { $0.hasPrefix("pickerd.sqlite.damaged-") && !$0.hasSuffix("-wal") }, "\(names)")
        #expect(failed.stderr.contains("the damaged store is kept at \(disk.path)/data/\(copy)"), "\(failed.stderr)")
        let copied = try #require(try FileManager.default.attributesOfItem(atPath: disk.path + "/data/" + copy)[.size] as? Int)
        #expect(copied >= damaged.count, "not cut short: \(copied) of \(damaged.count) bytes")
        // With room again (the data directory moved to a bigger disk), the next start salvages it.
        try FileManager.default.removeItem(atPath: root + "/data")
        try FileManager.default.copyItem(atPath: disk.path + "/data", toPath: root + "/data")
        let pickerd = try RunningPickerd(seed: false, root: root)
        #expect(try pickerd.ctl(["status"]).status == 0)
        #expect(pickerd.stop() == 0)
        let after = try Store(dataDirectory: root + "/data")
        #expect(try after.history().reversed() == releases.filter { !lost.contains($0.id) }, "every entry of an undamaged page")
    }

    /// A store's schema and every row of every table, read without changing it.
    static func rows(_ path: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: path, configuration: configuration).read { db in
            var rows = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                rows += try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { "\(table): \($0)" }
            }
            return rows
        }
    }

    @Test("an upgrade with no room for the copy from before: refused with one clear line, the store as it was; with room, the next start upgrades")
    func upgrade() throws {
        let fixture = try StoreFixtures.root(version: 13)
        let store = fixture + "/data/pickerd.sqlite"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        // Room for the store and a little, not for its copy.
        let disk = try SmallDisk(kilobytes: size / 1024 + 160)
        try FileManager.default.createDirectory(atPath: disk.path + "/data", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: store, toPath: disk.path + "/data/pickerd.sqlite")
        let before = try Self.rows(disk.path + "/data/pickerd.sqlite")
        #expect(disk.free < size, "the disk has no room for the copy: \(disk.free) bytes free")
        let arguments = ["--runtime-dir", fixture + "/run", "--data-dir", disk.path + "/data", "--config-dir", fixture + "/config"]
        let failed = try runProduct("pickerd", arguments)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.hasPrefix("pickerd: cannot keep a copy of \(disk.path)/data/pickerd.sqlite before upgrading it ("), "\(failed.stderr)")
        #expect(failed.stderr.contains("so it was not upgraded: free some space and start pickerd again"), "\(failed.stderr)")
        #expect(failed.stderr.contains("full"), "says why: \(failed.stderr)")
        #expect(try Self.rows(disk.path + "/data/pickerd.sqlite") == before, "the store as it was: its schema and every row")
        #expect(try StoreFixtures.migrations(disk.path + "/data/pickerd.sqlite") == 13)
        let left = try FileManager.default.contentsOfDirectory(atPath: disk.path + "/data").filter { $0.contains("before-v") }
        #expect(left.isEmpty, "no partial copy taken for the real one: \(left)")
        // With room again (the store moved to a bigger disk), the next start upgrades and keeps every decision.
        try FileManager.default.copyItem(atPath: disk.path + "/data/pickerd.sqlite", toPath: fixture + "/data/moved.sqlite")
        try FileManager.default.removeItem(atPath: store)
        try FileManager.default.moveItem(atPath: fixture + "/data/moved.sqlite", toPath: store)
        let pickerd = try RunningPickerd(seed: false, root: fixture)
        #expect(pickerd.stop() == 0)
        #expect(try StoreFixtures.migrations(store) == Store.currentSchemaVersion)
        try StoreFixtures.expectDecisions(try Store(dataDirectory: fixture + "/data"), version: 13)
    }
}
