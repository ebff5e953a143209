import Foundation
import Glibc
public import PickerdStore

/// `pickerctl import`: walks the paths given (files, folders), tells each file's kind from its first
/// bytes, reads it with its reader and writes what it held through ``ExportItems``, one transaction
/// per file. A file that fails to read leaves nothing; the next file goes on.
public struct ExportImporter: Sendable {
    /// The store.
    public let store: Store
    /// The largest export file read whole (Records.json is streamed, whatever its size).
    static let maximumWholeFile = 256 << 20

    /// Creates an importer.
    public init(store: Store) { self.store = store }

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
        let files = Self.withoutFilesReadByOthers(paths.flatMap(Self.files(under:)))
        let names = Self.activityNames(in: files)
        var results: [FileResult] = []
        for (index, file) in files.enumerated() {
            progress(file, index, files.count, 0)
            results += importFile(file, names: names) { points in progress(file, index, files.count, points) }
        }
        return results
    }

    /// Regular files at or below `path`, in path order, as a source's walk finds them (hidden files
    /// and folders left out; FIFOs, devices and links to folders too).
    static func files(under path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        return FolderWalk([ScanFolder(path: path, recursive: true)]).files.map(\.path).sorted()
    }

    /// `files` without those another file among them reads itself: an Apple Health export's
    /// `workout-routes/*.gpx` (which would otherwise import again as workouts of no kind) and the
    /// files beside it that are no export (`export_cda.xml`, `electrocardiograms/`,
    /// `clinical-records/`); the GPX tracks a Gadgetbridge database names, beside it or in `files/`
    /// there. Both are told by content (an `export.xml` whose DOCTYPE is HealthData, a SQLite file),
    /// and only their own folder loses these.
    static func withoutFilesReadByOthers(_ files: [String]) -> [String] {
        var members: [String] = []
        for file in files {
            guard let prefix = ExportKind.prefix(ofFile: file) else { continue }
            let name = (file as NSString).lastPathComponent, folder = (file as NSString).deletingLastPathComponent
            switch ExportKind.detect(prefix, name: name) {
            case .appleHealth where name == "export.xml":
                members += ["/workout-routes/", "/electrocardiograms/", "/clinical-records/"].map { folder + $0 } + [folder + "/export_cda.xml"]
            case .gadgetbridge where prefix.starts(with: Array("SQLite format 3\0".utf8)):
                for track in GadgetbridgeExport.trackFiles(of: file) { members += [folder + "/" + track, folder + "/files/" + track] }
            default: continue
            }
        }
        guard !members.isEmpty else { return files }
        let exact = Set(members.filter { !$0.hasSuffix("/") }), folders = members.filter { $0.hasSuffix("/") }
        return files.filter { file in !exact.contains(file) && !folders.contains { file.hasPrefix($0) } }
    }

    /// How deep archives may nest (Garmin's export holds zips of FIT files; a zip quine must end).
    static let maximumArchiveDepth = 2

    private func importFile(_ file: String, depth: Int = 0, names: [String: String] = [:], points: (Int) -> Void) -> [FileResult] {
        let name = (file as NSString).lastPathComponent
        var result = FileResult(file: file, kind: "")
        guard let prefix = ExportKind.prefix(ofFile: file) else {
            result.error = "\(name): cannot be read"
            return [result]
        }
        guard let kind = ExportKind.detect(prefix, name: name) else {
            result.error = "\(name): not an export pickerd reads: \(ExportKind.describe(prefix))"
            return [result]
        }
        if kind == .zip {
            guard depth < Self.maximumArchiveDepth else {
                return [FileResult(file: file, kind: "zip", error: "\(name): archives nested deeper than \(Self.maximumArchiveDepth) are not unpacked")]
            }
            return importArchive(file, name: name, depth: depth, points: points)
        }
        result.kind = kind.rawValue
        do {
            // A calendar's recurrences are expanded from each event's start to a year from now (capped),
            // never by what the library holds: the same file imports the same whatever came before.
            let horizon = kind == .ics ? CalendarReader.horizon(library: nil, now: Int64(Date().timeIntervalSince1970 * 1000)) : nil
            var (data, pointCount) = try ExportReaders.read(kind, path: file, name: name, points: points, horizon: horizon)
            // Strava's activities.csv names what its files do not (a FIT file carries no name).
            if let given = names[file] {
                for index in data.workouts.indices { data.workouts[index].name = given }
            }
            result.workouts = data.workouts.count
            result.visits = data.visits.count
            result.points = pointCount
            result.counts.merge(data.listeningCounts) { $0 + $1 }
            result.counts.merge(data.peopleCounts) { $0 + $1 }
            result.counts.merge(data.read.filter { $0.value > 0 }) { $0 + $1 }
            if !data.motion.isEmpty { result.counts["walks and runs", default: 0] += data.motion.count }
            let written = try ExportItems(store: store).write(data)
            result.duplicates = written.duplicates
            result.added = written.added
            result.touched = written.touched
        } catch let error as ImportError {
            result.error = error.description
            // Another app's SQLite database is no export, as any other file that is none.
            if kind == .gadgetbridge, error.message == GadgetbridgeExport.notGadgetbridge {
                result.kind = ""
                result.error = "\(name): not an export pickerd reads: \(error.message)"
            }
        } catch {
            result.error = "\(name): \(error)"
        }
        return [result]
    }

    /// A zip archive (a Strava or Garmin bulk export, whose FIT files come in zips of their own):
    /// unpacked, bounded, into a private folder, its files imported as a folder's (a zip in it too,
    /// to ``maximumArchiveDepth``), the folder removed.
    private func importArchive(_ file: String, name: String, depth: Int, points: (Int) -> Void) -> [FileResult] {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("pickerd-import.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return [FileResult(file: file, kind: "zip", error: "\(name): no room to unpack it")] }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let all = try ZipArchive.extract(path: file, name: name, into: folder)
            let kept = Set(Self.withoutFilesReadByOthers(all.map { folder + "/" + $0 }))
            let entries = all.filter { kept.contains(folder + "/" + $0) }
            let names = Self.activityNames(in: entries.map { folder + "/" + $0 })
            return entries.sorted().flatMap { entry in
                importFile(folder + "/" + entry, depth: depth + 1, names: names, points: points).map { inner in
                    var inner = inner
                    // Named by where it is in the archive (an entry of a zip inside keeps its own path).
                    inner.file = file + "/" + (inner.file.hasPrefix(folder + "/") ? String(inner.file.dropFirst(folder.count + 1)) : entry)
                    return inner
                }
            }
        } catch {
            return [FileResult(file: file, kind: "zip", error: error.description)]
        }
    }

    /// The activity names a Strava export's `activities.csv` gives its files, by the files' paths:
    /// its "Activity Name" for its "Filename" (relative to the CSV's folder).
    static func activityNames(in files: [String]) -> [String: String] {
        var names: [String: String] = [:]
        for csv in files where (csv as NSString).lastPathComponent == "activities.csv" {
            guard let text = try? String(contentsOfFile: csv, encoding: .utf8) else { continue }
            let rows = CSV.rows(text)
            guard let header = rows.first, let nameColumn = header.firstIndex(of: "Activity Name"),
                  let fileColumn = header.firstIndex(of: "Filename") else { continue }
            let folder = String(csv.dropLast("/activities.csv".count))  // as the paths were given: no normalising
            for row in rows.dropFirst() where row.count > max(nameColumn, fileColumn) {
                let name = row[nameColumn].trimmingCharacters(in: .whitespaces), file = row[fileColumn]
                if !name.isEmpty, !file.isEmpty { names[folder + "/" + file] = name }
            }
        }
        return names
    }
}

/// RFC 4180 CSV, as Strava writes it: quoted fields may hold commas, doubled quotes and line breaks.
enum CSV {
    /// The rows of `text`, each a list of fields.
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false
        var characters = text.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? characters.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let next = characters.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" || c == "\r\n" || c == "\r" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
