import Glibc
import PickerdImport

extension ExportImporter {
    /// A zip archive's members, seen through ``ReaderFiles`` under `file + "/" + entry` while
    /// `body` runs: readers open them, and the files beside them (an Apple Health export's routes),
    /// as they would a folder's, each unpacked into a sealed memfd when opened (bounded as
    /// ``ZipArchive`` says) or, read as a stream (Apple Health's `export.xml`), inflated as it is
    /// read; nothing is written anywhere, and only the archive stays open. It is closed when `body`
    /// returns.
    /// - Parameters:
    ///   - file: the archive's path (each member's path starts with it).
    ///   - name: its name, for errors.
    ///   - body: called with the members' paths, sorted.
    /// - Returns: what `body` returns.
    /// - Throws: ``ImportError`` when the archive cannot be read, or an entry is damaged or too large.
    static func withArchiveMembers<T>(_ file: String, name: String, _ body: ([String]) -> T) throws(ImportError) -> T {
        let unpacked = try ZipArchive.unpack(path: file, name: name)
        defer { unpacked.close() }
        // A repeated entry: the last, as unzip leaves it.
        var streams: [String: ZipArchive.StreamedMember] = [:]
        for member in unpacked.members { streams[file + "/" + member.entry.name] = member }
        return ReaderFiles.withOverlay([:], streams: streams) { body(streams.keys.sorted()) }
    }
}
