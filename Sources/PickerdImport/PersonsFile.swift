import Glibc
public import PickerdStore

/// The check a person's own file passes before pickerd releases or previews it: the open file must
/// be the one indexed. It is opened without following a link (a link the index reached is resolved
/// once and its target opened the same way), and the descriptor's device, inode, size, mtime and
/// ctime (read from it, so no rename between the check and the read can swap it) are compared with
/// what the index recorded: a file swapped in under the same name, even a link to another file given
/// the same size and mtime, is not the one the person saw.
public enum PersonsFile {
    /// Opens a person's file for reading without following links: `open(2)` with `O_NOFOLLOW`; where
    /// the indexed path is itself a link (a source may hold links to files), its target as
    /// `realpath(3)` resolves it now, opened the same way. What it opens is checked by
    /// ``unavailability(of:record:descriptor:)``.
    /// - Parameter path: the indexed path.
    /// - Returns: the descriptor, or `nil` with `errno` set.
    public static func open(_ path: String) -> Int32? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd >= 0 { return fd }
        guard errno == ELOOP, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let target = Glibc.open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        return target >= 0 ? target : nil
    }

    /// Why an open file is not the one indexed, or `nil` when it is.
    /// - Parameters:
    ///   - media: the file as indexed.
    ///   - record: the index's record of the file (device, inode, ctime); `nil` when the index has
    ///     none, which refuses.
    ///   - descriptor: the file, open for reading.
    /// - Returns: a sentence for the person ("IMG_1234.HEIC changed since pickerd indexed it").
    public static func unavailability(of media: StoredMedia, record: SourceFile?, descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "\(media.filename) cannot be read (\(String(cString: strerror(errno))))" }
        guard let record else { return "\(media.filename) is no longer in pickerd's index of its folder" }
        guard info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_size) == media.byteCount, info.st_mtim.nanoseconds == media.modifiedNs,
              UInt64(info.st_dev) == record.device, UInt64(info.st_ino) == record.inode,
              record.ctimeNs.map({ $0 == info.st_ctim.nanoseconds }) ?? true else {
            return "\(media.filename) changed since pickerd indexed it"
        }
        return nil
    }

    /// Why a file that could not be opened cannot be released.
    public static func missing(_ media: StoredMedia) -> String { "\(media.filename) is no longer there" }
}
