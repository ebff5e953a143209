import Glibc
import PickerdImport

extension ExportImporter {
    /// A zip archive's members, unpacked into memory (sealed memfds, bounded as ``ZipArchive`` says)
    /// and seen through ``ReaderFiles`` under `file + "/" + entry` while `body` runs: readers open
    /// them, and the files beside them (an Apple Health export's routes), as they would a folder's,
    /// and nothing is written anywhere. The memfds are closed when `body` returns.
    /// - Parameters:
    ///   - file: the archive's path (each member's path starts with it).
    ///   - name: its name, for errors.
    ///   - body: called with the members' paths, sorted.
    /// - Returns: what `body` returns.
    /// - Throws: ``ImportError`` when the archive cannot be unpacked.
    static func withArchiveMembers<T>(_ file: String, name: String, _ body: ([String]) -> T) throws(ImportError) -> T {
        let members = try ZipArchive.unpack(path: file, name: name)
        defer { for member in members { close(member.fd) } }
        var overlay: [String: Int32] = [:]
        for member in members { overlay[file + "/" + member.entry] = member.fd }  // a repeated entry: the last, as unzip leaves it
        return ReaderFiles.withOverlay(overlay) { body(members.map { file + "/" + $0.entry }.sorted()) }
    }
}
