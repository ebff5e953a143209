import CMedia
import Glibc
import PickerdImport
import Synchronization

/// How a reader reaches a file: the one place in the readers where a path becomes a descriptor.
///
/// Every reader in this module (photo and video probes, thumbnails, every export reader, zip
/// archives, Apple Health's route files, Gadgetbridge's database and tracks, Strava's
/// `activities.csv`) opens what it reads here and nowhere else, and hands the C libraries
/// (libheif, FFmpeg) descriptors or memory, never a path. So the readers can run in a process that
/// may not open anything (`pickerd-reader`, whose seccomp filter kills it at any `open`/`openat`):
/// it installs an opener that asks pickerd for each path, and pickerd decides which it grants.
/// Nothing here writes a file: a zip's members are seen through ``withOverlay(_:streams:_:)``,
/// unpacked into a `memfd_create` descriptor when opened, or inflated as they are read.
///
/// Directory walking (``FolderWalk``, the importer's list of files) is not reading a file's
/// content and stays with the caller (pickerd).
public enum ReaderFiles {
    /// The opener paths go through; `open(2)` until one is installed.
    private static let opener = Mutex<@Sendable (String) -> Int32?>(defaultOpen)

    /// Files made in memory that reads see first, a layer per ``withOverlay(_:_:)`` running (the
    /// newest last). Process-wide rather than task-local, so a reader that hops threads inside
    /// (GRDB runs its reads on its own queue) sees them too; the paths are an archive's path and a
    /// member's, which name no real file, so another import running at the same time is not misled.
    private static let layers = Mutex<(next: Int, layers: [Layer])>((0, []))

    /// One ``withOverlay(_:streams:_:)``'s files: unpacked ones, and an archive's entries left to be
    /// streamed (``ZipArchive/StreamedMember``).
    private struct Layer {
        var id: Int
        var files: [String: Int32]
        var streams: [String: ZipArchive.StreamedMember]

        func holds(_ path: String) -> Bool { files[path] != nil || streams[path] != nil }
    }

    /// Whether the overlay holds `path`.
    private static func inOverlay(_ path: String) -> Bool {
        layers.withLock { state in state.layers.contains { $0.holds(path) } }
    }

    /// The overlay's streamed entry at `path` (the newest layer's), when that layer has it as one.
    private static func streamedInOverlay(_ path: String) -> ZipArchive.StreamedMember? {
        layers.withLock { state in state.layers.last(where: { $0.holds(path) })?.streams[path] }
    }

    /// A descriptor of its own for the overlay's file at `path` (the newest layer's), rewound:
    /// `nil` when the overlay does not hold `path`, `.some(nil)` when it does but the descriptor
    /// cannot be duplicated (`errno` says why). Duplicated under the lock, so a layer's owner closing
    /// its descriptors once its layer is gone never races a reader.
    private static func openInOverlay(_ path: String) -> Int32?? {
        layers.withLock { state -> Int32?? in
            guard let member = state.layers.last(where: { $0.holds(path) })?.files[path] else { return nil }
            // `F_DUPFD_CLOEXEC` shares the offset with the owner's descriptor, so it is rewound:
            // readers of a member read it one at a time, as they do any file.
            let fd = fcntl(member, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else { return .some(nil) }
            lseek(fd, 0, SEEK_SET)
            return .some(fd)
        }
    }

    /// How paths become descriptors in this process. Default: ``defaultOpen(_:)``: `open(2)` with
    /// `O_RDONLY | O_CLOEXEC | O_NOFOLLOW` (a link resolved once with `realpath(3)` and its target
    /// opened the same way, as ``PersonsFile/open(_:)`` does), without blocking (`O_NONBLOCK`, so a
    /// FIFO never waits for a writer), and only a regular file. `pickerd-reader` installs one that
    /// asks pickerd over its socket.
    /// - Parameter opener: returns a descriptor the caller owns (closes), or `nil` when there is no
    ///   such regular file or it may not be read; it may set `errno` to say why (`EISDIR` for a
    ///   directory, `EINVAL` for a file that is not regular, `EACCES`…), which readers repeat.
    public static func install(opener: @escaping @Sendable (String) -> Int32?) {
        self.opener.withLock { $0 = opener }
    }

    /// Opens `path` for reading through the installed opener (or the overlay, which comes first):
    /// the one place a reader turns a path into a descriptor.
    /// - Parameter path: the file, as the reader names it (an archive's member is named by the
    ///   archive's path, a slash and its path inside).
    /// - Returns: a descriptor the caller closes, or `nil` with `errno` set when the opener said why
    ///   (0 when it did not).
    public static func open(_ path: String) -> Int32? {
        if let member = openInOverlay(path) { return member }
        // An archive's entry left to be streamed, wanted whole: unpacked now, bounded as any entry.
        if let streamed = streamedInOverlay(path) { return ZipArchive.memoryFile(streamed) }
        let open = opener.withLock { $0 }
        errno = 0
        return open(path)
    }

    /// Whether `path` names a file a reader may read: a member of the overlay, or a file the opener
    /// opens (it is opened and closed at once).
    /// - Parameter path: the file.
    /// - Returns: `true` when ``open(_:)`` would give a descriptor.
    public static func exists(_ path: String) -> Bool {
        if inOverlay(path) { return true }
        guard let fd = open(path) else { return false }
        Glibc.close(fd)
        return true
    }

    /// The whole file, when it holds at most `limit` bytes.
    /// - Parameters:
    ///   - path: the file.
    ///   - limit: the most bytes read.
    /// - Returns: its bytes, or `nil` when it cannot be opened or read, or is larger than `limit`.
    public static func contents(_ path: String, limit: Int) -> [UInt8]? {
        guard let fd = open(path) else { return nil }
        defer { Glibc.close(fd) }
        guard let size = size(of: fd), size <= limit else { return nil }
        return try? read(fd, limit: limit)
    }

    /// Makes files made in memory (a zip's members, unpacked into `memfd_create` descriptors)
    /// visible to ``open(_:)`` and ``exists(_:)`` under `paths` while `body` runs, on top of the
    /// opener and of any overlay around this one. The descriptors stay the caller's: it closes them
    /// after.
    /// - Parameters:
    ///   - files: descriptors by the paths they appear under.
    ///   - body: the work that reads them.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public static func withOverlay<T>(_ files: [String: Int32], _ body: () throws -> T) rethrows -> T {
        try withOverlay(files, streams: [:], body)
    }

    /// ``withOverlay(_:_:)`` with an archive's entries too large to unpack as well (`streams`, by
    /// the paths they appear under): a streaming reader reads them inflated as it goes
    /// (``openStream(_:)``); ``open(_:)`` unpacks one whole when asked, bounded as any entry. Their
    /// archive's descriptor stays the caller's.
    static func withOverlay<T>(_ files: [String: Int32], streams: [String: ZipArchive.StreamedMember],
                               _ body: () throws -> T) rethrows -> T {
        let id = layers.withLock { state in
            state.next += 1
            state.layers.append(Layer(id: state.next, files: files, streams: streams))
            return state.next
        }
        defer { layers.withLock { state in state.layers.removeAll { $0.id == id } } }
        return try body()
    }

    /// Why a ``Stream`` stopped: words a reader puts after the file's name and place.
    struct StreamFailure: Error {
        /// What went wrong.
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// A file read from its start to its end a piece at a time: a descriptor, or an archive's entry
    /// inflated as it is read (so an Apple Health `export.xml` of several GB inside `export.zip` is
    /// read in bounded memory, never unpacked whole).
    final class Stream {
        private let fd: Int32
        private let member: ZipMemberStream?

        fileprivate init(fd: Int32) {
            self.fd = fd
            member = nil
        }

        fileprivate init(member: ZipMemberStream) {
            fd = -1
            self.member = member
        }

        deinit { if fd >= 0 { Glibc.close(fd) } }

        /// Reads up to `count` bytes into `buffer`; 0 at the end.
        /// - Throws: why it cannot be read on.
        func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(StreamFailure) -> Int {
            if let member { return try member.read(into: buffer, count: count) }
            while true {
                let n = Glibc.read(fd, buffer, count)
                if n >= 0 { return n }
                if errno != EINTR { throw StreamFailure("cannot be read: \(String(cString: strerror(errno)))") }
            }
        }
    }

    /// Opens `path` to be read from its start to its end: an archive's streamed entry is inflated as
    /// it is read; anything else is ``open(_:)``'s descriptor.
    /// - Returns: the stream, or `nil` with `errno` set as ``open(_:)`` sets it.
    static func openStream(_ path: String) -> Stream? {
        if let streamed = streamedInOverlay(path) {
            guard let member = try? ZipMemberStream(streamed) else {
                errno = ENOMEM
                return nil
            }
            return Stream(member: member)
        }
        return open(path).map { Stream(fd: $0) }
    }

    /// The default opener (see ``install(opener:)``): ``RegularFile/open(_:)``, as pickerd opens
    /// the files it passes to its readers.
    /// - Parameter path: the file.
    /// - Returns: a descriptor of a regular file, or `nil` with `errno` set: `open(2)`'s, `EISDIR`
    ///   for a directory, `EINVAL` for another file that is not regular.
    @Sendable public static func defaultOpen(_ path: String) -> Int32? {
        RegularFile.open(path)
    }

    // MARK: Helpers for the readers

    /// A regular file's size from its descriptor (`fstat(2)`), `nil` when it cannot be read or is not regular.
    static func size(of fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Why the last ``open(_:)`` gave nothing, as a reader says it ("No such file or directory").
    static func reason() -> String {
        errno == 0 ? "it may not be read" : String(cString: strerror(errno))
    }

    /// Reads `fd` from its start to its end with `pread(2)`, at most `limit` bytes.
    /// - Throws: `Errno`-like ``ReadFailure`` when a read fails or the file holds more than `limit`.
    static func read(_ fd: Int32, limit: Int) throws(ReadFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        let expected = size(of: fd) ?? 0
        bytes.reserveCapacity(min(expected, limit))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else { throw .tooLarge }
            bytes += chunk[0..<n]
            offset += n
        }
    }

    /// Why ``read(_:limit:)`` stopped.
    enum ReadFailure: Error {
        /// A read failed (`strerror`'s words).
        case unreadable(String)
        /// The file holds more than the limit.
        case tooLarge
    }

    /// A sealed `memfd_create(2)` descriptor holding `bytes`: a file made in memory, for
    /// ``withOverlay(_:_:)``. Nothing is written to any file system.
    /// - Returns: the descriptor (the caller closes it), `nil` with `errno` when it cannot be made.
    static func memoryFile(_ name: String, _ bytes: [UInt8]) -> Int32? {
        let fd = bytes.withUnsafeBufferPointer { pm_memfd_from_bytes(name, $0.baseAddress, $0.count) }
        return fd >= 0 ? fd : nil
    }
}
