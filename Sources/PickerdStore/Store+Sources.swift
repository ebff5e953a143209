public import Foundation
import GRDB

/// A folder of the person's own photos and videos that pickerd indexes in place.
public struct Source: Sendable, Hashable, Identifiable {
    /// The store's number for it.
    public var id: Int64
    /// Its absolute path.
    public var path: String
    /// When it was added, ms since 1970.
    public var addedMs: Int64
    /// When its last complete scan ended, ms since 1970 (`nil`: never scanned).
    public var lastScanMs: Int64?
    /// How long that scan took, in seconds.
    public var lastScanSeconds: Double?

    /// Creates a source record.
    public init(id: Int64, path: String, addedMs: Int64, lastScanMs: Int64? = nil, lastScanSeconds: Double? = nil) {
        self.id = id
        self.path = path
        self.addedMs = addedMs
        self.lastScanMs = lastScanMs
        self.lastScanSeconds = lastScanSeconds
    }
}

/// What a source holds, counted.
public struct SourceCounts: Sendable, Hashable {
    /// Files seen (every regular file, indexed or not).
    public var files: Int = 0
    /// Files that are an item's media.
    public var indexed: Int = 0
    /// Of those, files whose item is not a memory (screenshots, scans, bursts…).
    public var notMemories: Int = 0
    /// The same files by why their items are not memories (a reason the store does not know, from a
    /// newer pickerd, is left out here but counted in ``notMemories``).
    public var notMemoryReasons: [NotAMemory: Int] = [:]
    /// Files skipped with a reason (not a photo or video, corrupt, unreadable).
    public var skipped: Int = 0

    /// Creates counts.
    public init(files: Int = 0, indexed: Int = 0, notMemories: Int = 0, notMemoryReasons: [NotAMemory: Int] = [:], skipped: Int = 0) {
        self.files = files
        self.indexed = indexed
        self.notMemories = notMemories
        self.notMemoryReasons = notMemoryReasons
        self.skipped = skipped
    }
}

/// One file of a source, as the last scan saw it.
public struct SourceFile: Sendable, Hashable {
    /// Its absolute path.
    public var path: String
    /// The source it belongs to.
    public var sourceID: Int64
    /// Its size in bytes.
    public var size: Int64
    /// Its modification time, ns since 1970.
    public var mtimeNs: Int64
    /// The device it is on.
    public var device: UInt64
    /// Its inode on that device (with the device, what tells a move from a new file).
    public var inode: UInt64
    /// The item whose media it is, if it was indexed.
    public var itemID: UUID?
    /// What it is to its item: `photo`, `video`, `livePhotoImage`, `livePhotoVideo`; empty when skipped.
    public var role: String
    /// Apple's Live Photo pairing key, when the file has one.
    public var contentIdentifier: String?
    /// Why it was skipped (empty when indexed).
    public var problem: String
    /// Its inode's change time (ns since 1970) when indexed; `nil` for a file indexed before pickerd
    /// recorded it. With the device, inode, size and mtime, what a release checks the open file against.
    public var ctimeNs: Int64?
    /// The generation of pickerd's readers that read it (``readers`` when read now; 1 for a file
    /// recorded before pickerd kept it). A scan reads a file again, however unchanged, when an
    /// older generation read it: what the readers take from a file has grown since.
    public var readBy: Int

    /// The generation of pickerd's readers, raised whenever they take more from a file than before
    /// (a format they now read, a field they now keep), so files an older pickerd read, or could
    /// not read, are read again on the next scan:
    /// - 1: until pickerd kept the generation.
    /// - 2: a photo's IPTC/XMP place (issue 42; a TIFF's and a DNG's too), Google Photos Takeout's
    ///   sidecars, WebP, AVIF and JPEG XL (issue 41). A library indexed before these had its photos' places and sidecars
    ///   unread, and its WebP photos recorded as "a format pickerd does not read yet", for good.
    public static let readers = 2

    /// Creates a file record.
    public init(path: String, sourceID: Int64, size: Int64, mtimeNs: Int64, device: UInt64, inode: UInt64,
                itemID: UUID? = nil, role: String = "", contentIdentifier: String? = nil, problem: String = "", ctimeNs: Int64? = nil,
                readBy: Int = SourceFile.readers) {
        self.path = path
        self.sourceID = sourceID
        self.size = size
        self.mtimeNs = mtimeNs
        self.device = device
        self.inode = inode
        self.itemID = itemID
        self.role = role
        self.contentIdentifier = contentIdentifier
        self.problem = problem
        self.ctimeNs = ctimeNs
        self.readBy = readBy
    }

    /// The folder it is in (its path without the last component).
    public var directory: String { Self.directory(of: path) }

    /// The folder a path is in.
    public static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }
}

/// What one scan (or part of one) changes, written in one transaction.
public struct SourceChanges: Sendable {
    /// File records to write (new, changed, re-read, skipped), replacing any with the same path.
    public var files: [SourceFile] = []
    /// Items to write, replacing any with the same id.
    public var items: [LibraryItem] = []
    /// Items to remove (their files vanished or joined another item).
    public var removedItems: [UUID] = []
    /// File records to remove (the files vanished).
    public var removedFiles: [String] = []
    /// Files that moved within a source: their records and media rows follow (with the change time
    /// the rename gave the file); their items stay.
    public var moves: [(from: String, to: String, ctimeNs: Int64)] = []

    /// Creates an empty change.
    public init() {}

    /// Whether it changes nothing.
    public var isEmpty: Bool { files.isEmpty && items.isEmpty && removedItems.isEmpty && removedFiles.isEmpty && moves.isEmpty }
}

extension Store {
    /// Every source, in the order added.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func sources() throws(StoreError) -> [Source] {
        try read("read the sources") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM source ORDER BY id").map(Self.source)
        }
    }

    /// Adds a folder as a source.
    /// - Parameters:
    ///   - path: its absolute, canonical path.
    ///   - timeMs: now.
    /// - Returns: the new source, or the existing one when the folder was added before.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func addSource(path: String, timeMs: Int64) throws(StoreError) -> Source {
        try write("add the source \(path)") { db in
            try db.execute(sql: "INSERT INTO source (path, added_ms) VALUES (?, ?) ON CONFLICT(path) DO NOTHING",
                           arguments: [path, timeMs])
            return try Self.source(Row.fetchOne(db, sql: "SELECT * FROM source WHERE path = ?", arguments: [path])!)
        }
    }

    /// Removes a source, its files' records and their items, in one transaction.
    /// - Parameter path: the source's path.
    /// - Returns: when the removed items started and ended (for the engine to rebuild those days),
    ///   `nil` when no item went; throws `.notFound` when there is no such source.
    /// - Throws: ``StoreError``.
    public func removeSource(path: String) throws(StoreError) -> ClosedRange<Int64>? {
        try write("remove the source \(path)") { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE path = ?", arguments: [path]) else {
                throw StoreError(.notFound, "\(path) is not a source")
            }
            let range = try Row.fetchOne(db, sql: """
                SELECT MIN(start_ms) AS first, MAX(end_ms) AS last FROM item
                WHERE id IN (SELECT item_id FROM source_file WHERE source_id = ?)
                """, arguments: [id])
            try db.execute(sql: "DELETE FROM item WHERE id IN (SELECT item_id FROM source_file WHERE source_id = ?)", arguments: [id])
            try db.execute(sql: "DELETE FROM source_file WHERE source_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM source WHERE id = ?", arguments: [id])
            guard let first: Int64 = range?["first"], let last: Int64 = range?["last"] else { return nil }
            return first...max(first, last)
        }
    }

    /// How many files each source holds, indexed, not memories (by reason) and skipped.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func sourceCounts() throws(StoreError) -> [Int64: SourceCounts] {
        try read("count the sources' files") { db in
            var counts: [Int64: SourceCounts] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT f.source_id AS source, COUNT(*) AS files,
                       SUM(f.item_id IS NOT NULL) AS indexed,
                       SUM(f.item_id IS NOT NULL AND i.not_memory IS NOT NULL) AS not_memories,
                       SUM(f.problem != '') AS skipped
                FROM source_file f LEFT JOIN item i ON i.id = f.item_id GROUP BY f.source_id
                """) {
                counts[row["source"]] = SourceCounts(files: row["files"], indexed: row["indexed"] ?? 0,
                                                     notMemories: row["not_memories"] ?? 0, skipped: row["skipped"] ?? 0)
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT f.source_id AS source, i.not_memory AS reason, COUNT(*) AS files
                FROM source_file f JOIN item i ON i.id = f.item_id
                WHERE i.not_memory IS NOT NULL GROUP BY f.source_id, i.not_memory
                """) {
                guard let reason = NotAMemory(rawValue: row["reason"]) else { continue }
                counts[row["source"], default: SourceCounts()].notMemoryReasons[reason] = row["files"]
            }
            return counts
        }
    }

    /// The files a source's last scan recorded, by path: all of them, or those in some folders
    /// (each alone, or with every folder below it when `recursive`).
    /// - Parameters:
    ///   - sourceID: the source.
    ///   - folders: `nil` for the whole source; else (path, recursive) pairs.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func sourceFiles(of sourceID: Int64, in folders: [(path: String, recursive: Bool)]? = nil) throws(StoreError) -> [String: SourceFile] {
        try read("read the source's files") { db in
            var files: [String: SourceFile] = [:]
            func add(_ rows: [Row]) { for row in rows { let f = Self.sourceFile(row); files[f.path] = f } }
            guard let folders else {
                add(try Row.fetchAll(db, sql: "SELECT * FROM source_file WHERE source_id = ?", arguments: [sourceID]))
                return files
            }
            for folder in folders {
                add(try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM source_file WHERE source_id = ? AND directory = ?"),
                                     arguments: [sourceID, folder.path]))
                if folder.recursive {
                    // Below it: every directory from "path/" up to (not including) "path0", '0' being
                    // the character after '/': a range on the index, no LIKE and its wildcards.
                    add(try Row.fetchAll(db.cachedStatement(sql: """
                        SELECT * FROM source_file WHERE source_id = ? AND directory >= ? AND directory < ?
                        """), arguments: [sourceID, folder.path + "/", folder.path + "0"]))
                }
            }
            return files
        }
    }

    /// The records of files with these paths or these Live Photo pairing keys, in any source (for
    /// pairing new files with ones indexed before), a few queries for a whole batch.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func sourceFiles(paths: [String] = [], contentIdentifiers: [String] = []) throws(StoreError) -> [SourceFile] {
        try read("read files") { db in
            let byPath = try ItemCodec.inChunks(paths) { marks, arguments in
                try Row.fetchAll(db, sql: "SELECT * FROM source_file WHERE path IN (\(marks))", arguments: arguments)
            }
            let byKey = try ItemCodec.inChunks(contentIdentifiers) { marks, arguments in
                try Row.fetchAll(db, sql: "SELECT * FROM source_file WHERE content_id IN (\(marks))", arguments: arguments)
            }
            return (byPath + byKey).map(Self.sourceFile)
        }
    }

    /// The records of the files of these sizes that show an item (a photo or a video on its own,
    /// not a Live Photo's half, a copy or a workout): the files a new file of one of these sizes
    /// may be a byte-identical copy of (issue 41). Each size is a lookup on its index.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func itemFiles(sizes: [Int64]) throws(StoreError) -> [SourceFile] {
        try read("read files by size") { db in
            var rows: [Row] = []
            for start in stride(from: 0, to: sizes.count, by: 500) {
                let chunk = Array(sizes[start..<min(start + 500, sizes.count)])
                rows += try Row.fetchAll(db, sql: """
                    SELECT * FROM source_file
                    WHERE size IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ","))) AND item_id IS NOT NULL
                      AND role IN ('photo', 'video')
                    """, arguments: StatementArguments(chunk))
            }
            return rows.map(Self.sourceFile)
        }
    }

    /// The records of the files that are an item's media.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func sourceFiles(ofItem id: UUID) throws(StoreError) -> [SourceFile] {
        try read("read an item's files") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM source_file WHERE item_id = ? ORDER BY role", arguments: [id.text])
                .map(Self.sourceFile)
        }
    }

    /// Writes what a scan found, in one transaction: nothing of it is kept if any of it fails.
    /// - Parameter changes: the scan's changes.
    /// - Returns: when the items it wrote, replaced or removed started and ended (before and after),
    ///   ``joined(_:)``, for the engine to rebuild those days; empty when no item changed.
    /// - Throws: ``StoreError`` `.writeFailed`.
    @discardableResult
    public func apply(_ changes: SourceChanges) throws(StoreError) -> [ClosedRange<Int64>] {
        guard !changes.isEmpty else { return [] }
        return try write("record \(changes.files.count) files and \(changes.items.count) items") { db in
            var touched: [ClosedRange<Int64>] = []
            var present = Set<UUID>()
            let before = changes.removedItems + changes.items.map(\.id)
            try ItemCodec.spans(of: before, db) { id, start, end in
                present.insert(id)
                touched.append(start...max(start, end))
            }
            for move in changes.moves {
                try db.cachedStatement(sql: "UPDATE source_file SET path = ?, directory = ?, ctime_ns = ? WHERE path = ?")
                    .execute(arguments: [move.to, SourceFile.directory(of: move.to), move.ctimeNs, move.from])
                try db.cachedStatement(sql: "UPDATE media SET relative_path = ?, filename = ? WHERE relative_path = ?")
                    .execute(arguments: [move.to, (move.to as NSString).lastPathComponent, move.from])
            }
            for path in changes.removedFiles {
                try db.cachedStatement(sql: "DELETE FROM source_file WHERE path = ?").execute(arguments: [path])
            }
            for id in changes.removedItems {
                try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id.text])
            }
            // An item the library had, or one `changes` holds twice, replaces the one there.
            try ItemCodec.insert(changes.items, db) { present.insert($0.id).inserted }
            for item in changes.items { touched.append(item.startMs...max(item.startMs, item.endMs)) }
            for file in changes.files {
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO source_file (path, source_id, directory, size, mtime_ns, device, inode, item_id, role, content_id, problem, ctime_ns, read_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [file.path, file.sourceID, file.directory, file.size, file.mtimeNs,
                                             Int64(bitPattern: file.device), Int64(bitPattern: file.inode),
                                             file.itemID?.text, file.role, file.contentIdentifier, file.problem, file.ctimeNs, file.readBy])
            }
            return Self.joined(touched)
        }
    }

    /// `ranges` in order, those that overlap or lie less than `gapMs` apart made one. With the
    /// default, ``joinedGapMs``, the days and weeks they touch are the same (no day fits in a shorter
    /// gap, DST's included), and a history of a million listens hands the engine a few thousand
    /// ranges instead of a million (16 MB, held while it builds).
    /// - Parameters:
    ///   - ranges: ranges, in any order.
    ///   - gapMs: how far apart two ranges may start and end and be one.
    /// - Returns: the joined ranges, in order.
    public static func joined(_ ranges: [ClosedRange<Int64>], lessThanApart gapMs: Int64 = joinedGapMs) -> [ClosedRange<Int64>] {
        var joined: [ClosedRange<Int64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, range.lowerBound - last.upperBound < gapMs {
                joined[joined.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }

    /// How far apart two changed ranges may be and be reported as one: twelve hours.
    public static let joinedGapMs: Int64 = 12 * 3_600_000

    /// Records that a source's scan finished.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func recordScan(of sourceID: Int64, endedMs: Int64, seconds: Double) throws(StoreError) {
        try write("record a scan") { db in
            try db.execute(sql: "UPDATE source SET last_scan_ms = ?, last_scan_seconds = ? WHERE id = ?",
                           arguments: [endedMs, seconds, sourceID])
        }
    }

    /// Records the folders a scan did not look into (hidden ones, links to folders), replacing what
    /// earlier scans said of the folders below `folders`.
    /// - Parameters:
    ///   - sourceID: the source.
    ///   - folders: the folders the scan looked at with every folder below them.
    ///   - skipped: the folders it did not look into, by path, with why.
    /// - Throws: ``StoreError`` when the store cannot be written.
    public func replaceSkippedFolders(of sourceID: Int64, under folders: [String], with skipped: [String: String]) throws(StoreError) {
        guard !folders.isEmpty else { return }
        try write("record the folders not looked into") { db in
            for folder in folders {
                let prefix = folder.hasSuffix("/") ? folder : folder + "/"
                try db.execute(sql: "DELETE FROM source_skipped_folder WHERE source_id = ? AND substr(path, 1, ?) = ?",
                               arguments: [sourceID, prefix.utf8.count, prefix])
            }
            for (path, reason) in skipped {
                try db.execute(sql: "INSERT OR REPLACE INTO source_skipped_folder (path, source_id, reason) VALUES (?, ?, ?)",
                               arguments: [path, sourceID, reason])
            }
        }
    }

    /// The folders each source's scans did not look into, by source, in path order, with why.
    /// - Throws: ``StoreError`` `.unreadable`.
    public func skippedFolders() throws(StoreError) -> [Int64: [(path: String, reason: String)]] {
        try read("list the folders not looked into") { db in
            var folders: [Int64: [(path: String, reason: String)]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT source_id, path, reason FROM source_skipped_folder ORDER BY path") {
                folders[row["source_id"], default: []].append((row["path"], row["reason"]))
            }
            return folders
        }
    }

    private static func source(_ row: Row) -> Source {
        Source(id: row["id"], path: row["path"], addedMs: row["added_ms"], lastScanMs: row["last_scan_ms"],
               lastScanSeconds: row["last_scan_seconds"])
    }

    /// A `source_file` row, read by position (`SELECT *`, in the table's column order): reading by
    /// name costs a case-insensitive lookup per column, which showed in a rescan's profile.
    private static func sourceFile(_ row: Row) -> SourceFile {
        SourceFile(path: row[0], sourceID: row[1], size: row[3], mtimeNs: row[4],
                   device: UInt64(bitPattern: row[5]), inode: UInt64(bitPattern: row[6]),
                   itemID: (row[7] as String?).flatMap(UUID.parsing), role: row[8],
                   contentIdentifier: row[9], problem: row[10], ctimeNs: row[11], readBy: row[12])
    }
}
