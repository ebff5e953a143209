import Glibc

/// How pickerd opens a person's file before passing its descriptor to a reader (pickerd-reader),
/// and how readers outside the confined process open files by default (PickerdReaders'
/// `ReaderFiles`): only a regular file, never a directory, FIFO or device.
public enum RegularFile {
    /// Opens a regular file for reading: `open(2)` with `O_RDONLY | O_CLOEXEC | O_NOFOLLOW`, a
    /// link resolved once with `realpath(3)` and its target opened the same way, without blocking
    /// (`O_NONBLOCK`, so a FIFO never waits for a writer), checked with `fstat(2)`.
    /// - Parameter path: the file.
    /// - Returns: a descriptor of a regular file, or `nil` with `errno` set: `open(2)`'s, `EISDIR`
    ///   for a directory, `EINVAL` for another file that is not regular.
    @Sendable public static func open(_ path: String) -> Int32? {
        let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
        var fd = Glibc.open(path, flags)
        if fd < 0, errno == ELOOP, let real = realpath(path, nil) {
            fd = Glibc.open(real, flags)
            free(real)
        }
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let saved = errno
            Glibc.close(fd)
            errno = saved
            return nil
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            errno = info.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL
            return nil
        }
        return fd
    }
}
