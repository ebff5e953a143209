import Glibc

/// Reading a file without surprises: only a regular file (never a FIFO or a device that would
/// block), only up to a size, read whole from its start. The listening service reads the person's
/// `.desktop` files, icons and artwork by path with it; donations read an app's descriptors with it.
enum BoundedFile {
    /// Why a file was not read.
    enum Problem: Error {
        /// `fstat(2)` failed on it.
        case unreadable
        /// Not a regular file (a memfd is one).
        case notRegular
        /// No bytes.
        case empty
        /// Larger than the limit.
        case tooLarge
        /// It ended, or a read failed, before its size was read.
        case short
    }

    /// The bytes of the regular file at `path`, `nil` when it is missing, unreadable, not a regular
    /// file, empty, or larger than `limit`.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? read(descriptor: fd, limit: limit).get()
    }

    /// The bytes of the regular file open at `descriptor`, from offset 0 whatever its position
    /// (`fstat(2)`, `pread(2)`).
    /// - Parameters:
    ///   - descriptor: an open descriptor, left open.
    ///   - limit: the most bytes accepted.
    /// - Returns: the bytes, or why they were not read.
    static func read(descriptor: Int32, limit: Int) -> Result<[UInt8], Problem> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.unreadable) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular) }
        guard info.st_size > 0 else { return .failure(.empty) }
        guard info.st_size <= limit else { return .failure(.tooLarge) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failure(.short) }
            done += n
        }
        return .success(bytes)
    }
}
