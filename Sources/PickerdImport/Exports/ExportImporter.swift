import Foundation
import Glibc
public import PickerdStore

/// `pickerctl import`: walks the paths given (files, folders), has each file read by a reader (which
/// tells its kind from its first bytes; the read half is PickerdReaders', run in pickerd-reader) and
/// writes what it held through ``ExportItems``, one transaction per file. A file that fails to read
/// leaves nothing; the next file goes on.
public struct ExportImporter: Sendable {
    /// The store.
    public let store: Store
    /// The largest export file read whole (Records.json is streamed, whatever its size).
    package static let maximumWholeFile = 256 << 20

    /// Creates an importer.
    /// How files are read: pickerd's confined readers, or in this process (tests, benchmarks).
    public let reading: any FileReading

    /// Creates an importer.
    /// - Parameters:
    ///   - store: the store.
    ///   - reading: how files are read: pickerd passes its confined readers; tests and tools may
    ///     pass PickerdReaders' `InProcessReading`.
    public init(store: Store, reading: any FileReading) {
        self.store = store
        self.reading = reading
    }

    /// What importing one file did.
    public struct FileResult: Sendable, Hashable {
        /// The file.
        public var file: String
        /// Its kind (`records`, `semantic`, `timeline`, `owntracks`, `gpx`, `tcx`, `fit`); empty when not an export.
        public var kind: String
        /// Workouts it held.
        public var workouts = 0
        /// Visits it held (or that its raw points gave).
        public var visits = 0
        /// Raw location points read.
        public var points = 0
        /// Workouts and visits the library had already.
        public var duplicates = 0
        /// Items written.
        public var added = 0
        /// What else it held, by a plural noun a person reads ("songs", "contacts", "moods",
        /// "events"): the formats that hold neither workouts nor visits say here what they held.
        public var counts: [String: Int] = [:]
        /// Why nothing of it was imported: a reader's refusal, or, with an empty ``kind``, what the
        /// file is when it is no export pickerd reads ("not an export pickerd reads: a JPEG photo …").
        public var error: String?
        /// When what it wrote happens: the days the engine builds again.
        public var touched: [ClosedRange<Int64>] = []
    }

    /// Imports files and folders.
    /// - Parameters:
    ///   - paths: absolute paths.
    ///   - progress: told of each file (its path, files done, files in all, points read so far).
    /// - Returns: one result per file looked at.
    public func run(_ paths: [String], progress: (String, Int, Int, Int) -> Void) -> [FileResult] {
        // Which files are exports of their own is found by looking into them: a reader's work. It
        // may read what the person named, nothing else.
        let roots = paths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let (files, names) = reading.plan(files: paths.flatMap(Self.files(under:))) { path in
            !path.split(separator: "/").contains("..") && roots.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        // Each file is read (by a reader, another process) while the one before it is written, one
        // file ahead: reading and writing take a core each, and the writes stay in the files' order,
        // each seeing what the ones before wrote. A file read ahead reports its points once read.
        // A file's listens are made items there too (``ExportItems/pick(_:)``: the file alone says what they are).
        var results: [FileResult] = []
        var ahead: Prefetch<[Prepared]>?  // this file's read, when asked for while the one before was written
        for (index, file) in files.enumerated() {
            progress(file, index, files.count, 0)
            let read: [Prepared]
            if let done = try? ahead?.value() {
                read = done
                progress(file, index, files.count, read.map(\.read.points).reduce(0, +))
            } else {
                read = self.read(file, names: names) { points in progress(file, index, files.count, points) }.map(Prepared.init)
            }
            ahead = index + 1 < files.count ? Prefetch { [self] in self.read(files[index + 1], names: names) { _ in }.map(Prepared.init) } : nil
            results += read.map(write)
        }
        return results
    }

    /// A file read, with its listens made items.
    private struct Prepared: Sendable {
        var read: ExportRead
        var listens: ExportItems.PickedListens?

        init(_ read: ExportRead) {
            self.read = read
            listens = read.data.flatMap { $0.listens.isEmpty ? nil : ExportItems.pick($0.listens) }
        }
    }

    /// Regular files at or below `path`, in path order, as a source's walk finds them (hidden files
    /// and folders left out; FIFOs, devices and links to folders too).
    static func files(under path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        return FolderWalk([ScanFolder(path: path, recursive: true)]).files.map(\.path).sorted()
    }

    /// One file read by a reader: one result, or an archive's members'.
    private func read(_ file: String, names: [String: String], points: (Int) -> Void) -> [ExportRead] {
        // The folder the person named (or the file's own): an export's other files (Apple Health's
        // routes, Gadgetbridge's tracks) are granted to its reader from there, nowhere else.
        let folder = (file as NSString).deletingLastPathComponent
        let granted: (String) -> Bool = { path in
            path.hasPrefix(folder + "/") && !path.split(separator: "/").contains("..")
        }
        return reading.export(path: file, name: (file as NSString).lastPathComponent, names: names, nowMs: nil,
                              granted: granted, progress: points)
    }

    /// The write half: what a reader read of one file, into the store (duplicates merged).
    private func write(_ prepared: Prepared) -> FileResult {
        let read = prepared.read
        var result = FileResult(file: read.file, kind: read.kind)
        result.error = read.error
        result.points = read.points
        guard let data = read.data else { return result }
        result.workouts = data.workouts.count
        result.visits = data.visits.count
        result.counts.merge(data.listeningCounts) { $0 + $1 }
        result.counts.merge(data.peopleCounts) { $0 + $1 }
        result.counts.merge(data.read.filter { $0.value > 0 }) { $0 + $1 }
        if !data.motion.isEmpty { result.counts["walks and runs", default: 0] += data.motion.count }
        do {
            let written = try ExportItems(store: store, reading: reading).write(data, listens: prepared.listens)
            result.duplicates = written.duplicates
            result.added = written.added
            result.touched = written.touched
        } catch {
            result.error = "\((read.file as NSString).lastPathComponent): \(error)"
        }
        return result
    }
}
