import Glibc

extension ExportImporter {
    /// A zip archive's members, unpacked into memory (sealed memfds, bounded as ``ZipArchive`` says)
    /// and seen through ``ReaderFiles`` under `file + "/" + entry` while `body` runs: readers open
    /// them, and the files beside them (an Apple Health export's routes), as they would a folder's,
    /// and nothing is written anywhere. A member too large to unpack (Apple Health's `export.xml`)
    /// is streamed from the archive by the reader that reads it (``ZipArchive/StreamedMember``).
    /// The memfds and the archive are closed when `body` returns.
    /// - Parameters:
    ///   - file: the archive's path (each member's path starts with it).
    ///   - name: its name, for errors.
    ///   - body: called with the members' paths, sorted.
    /// - Returns: what `body` returns.
    /// - Throws: ``ImportError`` when the archive cannot be unpacked.
    static func withArchiveMembers<T>(_ file: String, name: String, _ body: ([String]) -> T) throws(ImportError) -> T {
        let unpacked = try ZipArchive.unpack(path: file, name: name)
        defer { unpacked.close() }
        // A repeated entry: the last, as unzip leaves it.
        var overlay: [String: Int32] = [:], streams: [String: ZipArchive.StreamedMember] = [:]
        for member in unpacked.members { overlay[file + "/" + member.entry] = member.fd }
        for member in unpacked.streamed {
            overlay[file + "/" + member.entry.name] = nil
            streams[file + "/" + member.entry.name] = member
        }
        for member in unpacked.members { streams[file + "/" + member.entry] = nil }
        let paths = Set(overlay.keys).union(streams.keys).sorted()
        return ReaderFiles.withOverlay(overlay, streams: streams) { body(paths) }
    }
}
