import Glibc
public import PickerdStore

/// The check a person's own file passes before pickerd releases or previews it: the open file must
/// be the one indexed. Its size and mtime are read from the open descriptor (so a rename between the
/// check and the read cannot swap it) and compared with what the index recorded.
public enum PersonsFile {
    /// Why an open file is not the one indexed, or `nil` when it is.
    /// - Parameters:
    ///   - media: the file as indexed.
    ///   - descriptor: the file, open for reading.
    /// - Returns: a sentence for the person ("IMG_1234.HEIC changed since pickerd indexed it").
    public static func unavailability(of media: StoredMedia, descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "\(media.filename) cannot be read (\(String(cString: strerror(errno))))" }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        guard info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_size) == media.byteCount, mtime == media.modifiedNs else {
            return "\(media.filename) changed since pickerd indexed it"
        }
        return nil
    }

    /// Why a file that could not be opened cannot be released.
    public static func missing(_ media: StoredMedia) -> String { "\(media.filename) is no longer there" }
}
