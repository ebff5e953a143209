public import Foundation
public import PickerdImport
public import PickerdStore

/// The readers in this process, unconfined: for tests, benchmarks and tools that read files they
/// made themselves. pickerd reads a person's files through its confined readers instead.
public struct InProcessReading: FileReading {
    /// Creates it.
    public init() {}

    public func probe(path: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        // The indexer's probe (the one that asks for the people) hashes a still's picture, for
        // telling its near-duplicates. pickerd-reader answers a probe through here too.
        try MediaProbe.probe(path: path, timeZone: timeZone, readPeople: readPeople, hashPicture: readPeople)
    }

    public func workout(path: String, size: Int) throws(ProbeError) -> ImportedWorkout? {
        FileReaderService.workout(path: path, size: size)
    }

    public func export(path: String, name: String, names: [String: String], nowMs: Int64?, granted: (String) -> Bool,
                       progress: (Int) -> Void) -> [ExportRead] {
        FileReaderService.export(path: path, name: name, names: names, nowMs: nowMs, progress: progress)
    }

    public func preview(path: String, contentType: String, maxSide: Int) throws(ProbeError) -> [UInt8] {
        try FileReaderService.preview(path: path, contentType: contentType, maxSide: maxSide)
    }

    public func pictureHash(path: String, contentType: String) throws(ProbeError) -> UInt64 {
        try PictureHash.of(path: path, contentType: contentType)
    }

    public func plan(files: [String], granted: (String) -> Bool) -> (files: [String], names: [String: String]) {
        FileReaderService.plan(files)
    }
}

// In-process reading as the default, for tests and tools that read files they made themselves.
// PickerdImport's indexer and importer take their reading as an argument; pickerd passes its
// confined readers, and only what links PickerdReaders can read in its own process.

extension SourceIndexer {
    /// An indexer that reads in this process (``InProcessReading``): for tests and tools.
    /// - Parameters:
    ///   - store: the store.
    ///   - timeZone: the person's time zone.
    public init(store: Store, timeZone: TimeZone = .current) {
        self.init(store: store, timeZone: timeZone, reading: InProcessReading())
    }
}

extension ExportImporter {
    /// An importer that reads in this process (``InProcessReading``): for tests and tools.
    /// - Parameter store: the store.
    public init(store: Store) {
        self.init(store: store, reading: InProcessReading())
    }
}

extension ExportItems {
    /// A writer that reads contacts' photos back in this process (``InProcessReading``): for tests and tools.
    /// - Parameter store: the store.
    public init(store: Store) {
        self.init(store: store, reading: InProcessReading())
    }
}

extension ThumbnailCache {
    /// A preview's path, its file decoded in this process (``InProcessReading``): for tests and tools.
    /// - Parameters:
    ///   - media: a person's file, as indexed.
    ///   - itemID: its item.
    ///   - slot: its index in the item's media.
    /// - Returns: the PNG's path and its bytes' count.
    /// - Throws: ``ProbeError`` when the file cannot be decoded or the preview cannot be written.
    public func preview(of media: StoredMedia, itemID: UUID, slot: Int) throws(ProbeError) -> (path: String, byteCount: UInt64) {
        try preview(of: media, itemID: itemID, slot: slot, reading: InProcessReading())
    }
}
