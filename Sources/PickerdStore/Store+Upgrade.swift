import Foundation
import GRDB

extension Store {
    // MARK: Upgrades

    /// The schema version of a migration identifier ("v12: …" is 12), `nil` for one not named so.
    static func schemaVersion(of identifier: String) -> Int? {
        guard identifier.hasPrefix("v"), let colon = identifier.firstIndex(of: ":") else { return nil }
        return Int(identifier[identifier.index(after: identifier.startIndex)..<colon])
    }

    /// The schema version this pickerd writes: its last migration's.
    public static var currentSchemaVersion: Int { migrator.migrations.last.flatMap(schemaVersion(of:)) ?? 0 }

    /// The name of the copy of the store kept from before an upgrade to `version`.
    /// - Parameter version: the schema version the store was upgraded to.
    /// - Returns: `pickerd.sqlite.before-vN`, beside the store.
    public static func beforeUpgradeName(_ version: Int) -> String { "pickerd.sqlite.before-v\(version)" }

    /// Brings the store's schema up to this pickerd's. A store another pickerd already migrated past
    /// this one's migrations is refused, never migrated down or written to. Before the first pending
    /// migration, the store is copied aside (``beforeUpgradeName(_:)``, through SQLite's online
    /// backup so what the write-ahead log holds is in it); that copy is kept until the next upgrade
    /// succeeds. Each migration is one transaction: one that fails is rolled back, the migrations
    /// before it stay, and the error says which failed and where the copy is.
    static func migrate(_ pool: DatabasePool, path: String) throws(StoreError) {
        let migrator = Self.migrator
        let known = migrator.migrations
        let applied: Set<String>
        do {
            applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw StoreError(.corrupt, "the store \(path) cannot be read (\(reason(error)))")
        } catch {
            throw StoreError(.unreadable, "cannot read the schema version of \(path): \(reason(error))")
        }
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty {
            let newest = unknown.compactMap(schemaVersion(of:)).max().map { "schema v\($0)" } ?? "migrations this pickerd does not know"
            throw StoreError(.invalid, """
                the store \(path) was written by a newer pickerd (\(newest); this pickerd knows up to v\(currentSchemaVersion)) \
                and was left as it is: run that newer pickerd again, or start this one with another --data-dir
                """)
        }
        let pending = known.filter { !applied.contains($0) }
        guard !pending.isEmpty else { return }
        let directory = (path as NSString).deletingLastPathComponent
        let target = currentSchemaVersion
        let copy = directory + "/" + beforeUpgradeName(target)
        if !applied.isEmpty {
            // A copy already there is from an earlier try of this same upgrade (one that failed or was
            // killed): it is the store as it was before any of it, so it is kept, not overwritten.
            if !FileManager.default.fileExists(atPath: copy) {
                try copyAside(pool, to: copy)
            }
        }
        var current: String?
        do {
            for identifier in pending {
                current = identifier
                try migrator.migrate(pool, upTo: identifier)
            }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // Damaged pages, not a wrong migration: salvaged like any damaged store (Store.init).
            throw StoreError(.corrupt, "the store \(path) cannot be upgraded: \(reason(error))")
        } catch {
            let from = applied.isEmpty ? "" : "; the store as it was before the upgrade is kept at \(copy)"
            let step = current.map { "'\($0)'" } ?? "a migration"
            throw StoreError(.writeFailed, """
                cannot upgrade the store \(path): migration \(step) failed (\(reason(error))) and was rolled back\(from); \
                the store was left at the last migration that succeeded
                """)
        }
        // Upgraded: the copies of earlier upgrades have served their turn.
        if let names = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            for name in names where name.hasPrefix("pickerd.sqlite.before-v") && name != beforeUpgradeName(target) {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        }
    }

    /// A consistent copy of the store at `destination`, through SQLite's online backup into a
    /// temporary file renamed into place once whole (a kill or a full disk leaves no half copy).
    static func copyAside(_ pool: DatabasePool, to destination: String) throws(StoreError) {
        let temporary = destination + ".partial"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            let queue = try DatabaseQueue(path: temporary)
            try pool.backup(to: queue)
            try queue.close()
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { fsync(fd); close(fd) }
            guard rename(temporary, destination) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw StoreError(.writeFailed, """
                cannot keep a copy of \(pool.path) before upgrading it (\(destination): \(reason(error))), \
                so it was not upgraded: free some space and start pickerd again
                """)
        }
    }
}
