import Glibc
import PickerdImport

/// An open regular file, read with `pread` (opened through ``ReaderFiles``; libheif and FFmpeg
/// get its descriptor, never its path).
final class MediaFile {
    /// The descriptor.
    let fd: Int32
    /// Its size in bytes.
    let size: Int64

    /// Opens `path` through ``ReaderFiles`` (without blocking: a FIFO would otherwise wait for a
    /// writer) and checks that it is a regular file.
    init(path: String) throws(ProbeError) {
        guard let fd = ReaderFiles.open(path) else {
            switch errno {
            case EISDIR: throw ProbeError(.unreadable, "it is a directory")
            case EINVAL: throw ProbeError(.unreadable, "it is not a regular file")
            default: throw ProbeError(.unreadable, "cannot open it: \(ReaderFiles.reason())")
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw ProbeError(.unreadable, "cannot stat it: \(message)")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ProbeError(.unreadable, st.st_mode & S_IFMT == S_IFDIR ? "it is a directory" : "it is not a regular file")
        }
        self.fd = fd
        self.size = Int64(st.st_size)
    }

    deinit { close(fd) }

    /// Up to `count` bytes at `offset`: fewer at the end of the file.
    func read(at offset: Int64, count: Int) throws(ProbeError) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        var buffer = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, wanted - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ProbeError(.unreadable, "cannot read it: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            done += n
        }
        if done < wanted { buffer.removeLast(wanted - done) }
        return buffer
    }
}
