import Glibc

/// Which file, as of which write, from its `stat` fields (device, inode, size, modification and change
/// times): equal versions mean the same, unchanged file. No digest: it says nothing of the bytes, only
/// that they have not been replaced or written since.
struct FileVersion: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int64
    let changed: Int64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }

    /// The version of the file at `path` (following links), or `nil` when it cannot be seen.
    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(st)
    }
}
