import Glibc

/// One photo however many files hold it (issue 41): a byte-identical copy (an album's copy in a
/// Google Photos Takeout, `IMG_1248 (1).HEIC` from a second backup) and an edited version beside its
/// original (Google's `-edited`, iOS's `IMG_E1248`) are one item.
///
/// How the files of one item are recorded: the file the item shows holds it (`source_file.role`
/// `photo` or `video`, the media row); each other file is recorded with the same item and the role
/// ``copyRole`` or ``originalRole``, and has no item of its own. Which file holds the item does not
/// change on a rescan (the first indexed keeps it); when it goes, a remaining copy is read again
/// and holds the item, with the same id (a released item, a hidden rule, a reminder's link keep
/// pointing at it).
enum PhotoCopies {
    /// The role of a byte-identical copy of the file that holds an item.
    static let copyRole = "copy"
    /// The role of the original whose edited version holds the item (the edited one is shown).
    static let originalRole = "original"

    /// Whether a `source_file` role is a further file of an item (not the one it shows).
    static func isFurtherFile(_ role: String) -> Bool { role == copyRole || role == originalRole }

    /// What an edited version's name adds to its original's stem: Google Photos' `-edited` (and the
    /// words of its other languages, as Takeout writes them: German, French, Spanish and Portuguese,
    /// Italian, Dutch) and the `_edited` other editors write. Compared without regard to case.
    static let editedSuffixes = ["-edited", "_edited", "-bearbeitet", "-modifié", "-editado", "-modificato", "-bewerkt"]

    /// The paths an edited version at `path` may have its original at, most likely first; `nil`
    /// when the name is not an edited version's. Only the same folder: an edit is saved beside its
    /// original.
    static func originals(ofEdited path: String) -> [String]? {
        let (folder, stem, ext) = parts(path)
        let lowered = stem.lowercased()
        for suffix in editedSuffixes where lowered.hasSuffix(suffix) && stem.count > suffix.count {
            let original = String(stem.dropLast(suffix.count))
            return variants(of: ext).map { folder + original + $0 }
        }
        // iOS: IMG_E1234.JPG is the edit of IMG_1234 (the original often a HEIC).
        if stem.hasPrefix("IMG_E"), stem.count > 5, stem.dropFirst(5).allSatisfy(\.isNumber) {
            let original = "IMG_" + stem.dropFirst(5)
            return (variants(of: ext) + [".HEIC", ".heic", ".JPG", ".jpg", ".JPEG", ".jpeg"]).uniqued().map { folder + original + $0 }
        }
        return nil
    }

    /// The paths an edited version of the original at `path` may have (the inverse of
    /// ``originals(ofEdited:)``, the same extension), for an original read after its edit.
    static func editedVersions(of path: String) -> [String] {
        let (folder, stem, ext) = parts(path)
        guard originals(ofEdited: path) == nil else { return [] }
        var out = editedSuffixes.flatMap { suffix in variants(of: ext).map { folder + stem + suffix + $0 } }
        if stem.hasPrefix("IMG_"), stem.count > 4, stem.dropFirst(4).allSatisfy(\.isNumber) {
            out += [".JPG", ".jpg", ".HEIC", ".heic"].map { folder + "IMG_E" + stem.dropFirst(4) + $0 }
        }
        return out
    }

    /// Whether two files of `size` bytes hold the same bytes: read side by side a chunk at a time,
    /// stopping at the first difference (two photos of one size differ within their first bytes).
    /// Plain reading, no parsing: pickerd compares bytes it never interprets. A file that cannot be
    /// read is not a copy.
    static func sameBytes(_ a: String, _ b: String, size: Int64) -> Bool {
        let first = open(a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard first >= 0 else { return false }
        defer { close(first) }
        let second = open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard second >= 0 else { return false }
        defer { close(second) }
        let chunk = 1 << 16
        var left = [UInt8](repeating: 0, count: chunk), right = [UInt8](repeating: 0, count: chunk)
        var done: Int64 = 0
        while done < size {
            let want = Int(min(Int64(chunk), size - done))
            guard readFully(first, &left, want), readFully(second, &right, want) else { return false }
            if memcmp(left, right, want) != 0 { return false }
            done += Int64(want)
        }
        // Both end where the size says (a file that grew since the walk is not judged a copy).
        var extra: UInt8 = 0
        return read(first, &extra, 1) == 0 && read(second, &extra, 1) == 0
    }

    /// A cheap key of a file's bytes: its first and last 4 KiB, hashed. Two files with different
    /// keys are not copies; two with the same key are compared in full (``sameBytes(_:_:size:)``).
    /// Photos of one size are common (a camera's fixed-size JPEGs, a library copied with its dates
    /// changed): comparing each new one with every other in full would be quadratic. `nil` when the
    /// file cannot be read.
    static func fingerprint(_ path: String, size: Int64) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let edge = Int(min(4096, size))
        var head = [UInt8](repeating: 0, count: edge), tail = [UInt8](repeating: 0, count: edge)
        guard readFully(fd, &head, edge) else { return nil }
        let read = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, edge, off_t(size - Int64(edge))) }
        guard read == edge else { return nil }
        var hasher = Hasher()
        hasher.combine(size)
        hasher.combine(head)
        hasher.combine(tail)
        return hasher.finalize()
    }

    private static func readFully(_ fd: Int32, _ buffer: inout [UInt8], _ count: Int) -> Bool {
        var got = 0
        while got < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            got += n
        }
        return true
    }

    /// (folder with its slash, stem, extension with its dot or "").
    private static func parts(_ path: String) -> (String, String, String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (folder, name, "") }
        return (folder, String(name[..<dot]), String(name[dot...]))
    }

    private static func variants(of ext: String) -> [String] { [ext, ext.lowercased(), ext.uppercased()].uniqued() }
}

private extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
