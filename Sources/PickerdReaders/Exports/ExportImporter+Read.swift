import Foundation
public import PickerdImport

// The read half of `pickerctl import` (ExportImporter's write half is PickerdImport's): what one file,
// or an archive's members, holds, as its reader reads it. A reader process (pickerd-reader) runs it;
// pickerd never does.
extension ExportImporter {
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

    /// The read half, with no store: what one file (or an archive's members) holds, as its reader
    /// reads it. What a reader process does for `pickerctl import`; the file and every file it names
    /// are reached through ``ReaderFiles``.
    /// - Parameters:
    ///   - file: the file.
    ///   - name: its name; `nil`: its path's last component.
    ///   - depth: how deep in archives it is.
    ///   - names: Strava's `activities.csv` names, by file path.
    ///   - nowMs: the present, from which a calendar's recurrences are expanded a year on (capped); `nil`: the clock's.
    ///   - points: told the count of location points read so far.
    /// - Returns: one result per file read (an archive gives its members').
    public static func read(file: String, name: String? = nil, depth: Int = 0, names: [String: String] = [:], nowMs: Int64? = nil,
                            points: (Int) -> Void) -> [ExportRead] {
        let name = name ?? (file as NSString).lastPathComponent
        guard let prefix = ExportKind.prefix(ofFile: file) else {
            return [ExportRead(file: file, kind: "", error: "\(name): cannot be read")]
        }
        guard let kind = ExportKind.detect(prefix, name: name) else {
            return [ExportRead(file: file, kind: "", error: "\(name): not an export pickerd reads: \(ExportKind.describe(prefix))")]
        }
        if kind == .zip {
            guard depth < maximumArchiveDepth else {
                return [ExportRead(file: file, kind: "zip", error: "\(name): archives nested deeper than \(maximumArchiveDepth) are not unpacked")]
            }
            return readArchive(file, name: name, depth: depth, points: points)
        }
        var result = ExportRead(file: file, kind: kind.rawValue)
        do {
            // A calendar's recurrences are expanded from each event's start to a year from now (capped),
            // never by what the library holds: the same file imports the same whatever came before.
            let horizon = kind == .ics ? CalendarReader.horizon(library: nil, now: nowMs ?? Int64(Date().timeIntervalSince1970 * 1000)) : nil
            var (data, pointCount) = try ExportReaders.read(kind, path: file, name: name, points: points, horizon: horizon)
            // Strava's activities.csv names what its files do not (a FIT file carries no name).
            if let given = names[file] {
                for index in data.workouts.indices { data.workouts[index].name = given }
            }
            result.points = pointCount
            result.data = data
        } catch {
            result.error = error.description
            // Another app's SQLite database is no export, as any other file that is none.
            if kind == .gadgetbridge, error.message == GadgetbridgeExport.notGadgetbridge {
                result.kind = ""
                result.error = "\(name): not an export pickerd reads: \(error.message)"
            }
        }
        return [result]
    }

    /// A zip archive (a Strava or Garmin bulk export, whose FIT files come in zips of their own):
    /// unpacked, bounded, into memory (``withArchiveMembers(_:name:_:)``: no file is written), its
    /// files read as a folder's (a zip in it too, to ``maximumArchiveDepth``), each named by the
    /// archive's path and its path inside.
    private static func readArchive(_ file: String, name: String, depth: Int, points: (Int) -> Void) -> [ExportRead] {
        do {
            return try withArchiveMembers(file, name: name) { paths in
                let kept = Set(withoutFilesReadByOthers(paths))
                let members = paths.filter { kept.contains($0) }
                let names = activityNames(in: members)
                return members.flatMap { read(file: $0, depth: depth + 1, names: names, points: points) }
            }
        } catch {
            return [ExportRead(file: file, kind: "zip", error: error.description)]
        }
    }

    /// The activity names a Strava export's `activities.csv` gives its files, by the files' paths:
    /// its "Activity Name" for its "Filename" (relative to the CSV's folder).
    static func activityNames(in files: [String]) -> [String: String] {
        var names: [String: String] = [:]
        for csv in files where (csv as NSString).lastPathComponent == "activities.csv" {
            guard let bytes = ReaderFiles.contents(csv, limit: maximumWholeFile), let text = String(bytes: bytes, encoding: .utf8) else { continue }
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
