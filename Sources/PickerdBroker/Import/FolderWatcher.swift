import Foundation
import Glibc
import PickerdImport
import Synchronization

/// Watches the sources' folders with inotify while pickerd runs: a file written, moved or deleted
/// makes its folder dirty; a folder made, moved in or removed makes that folder dirty with all below
/// it. The import service scans dirty folders (only them) a moment later.
///
/// One watch per folder (inotify is not recursive): new folders get theirs when they are scanned.
/// When the kernel's limit on watches is reached, the folders left unwatched are counted and said
/// (`fs.inotify.max_user_watches`); a rescan still finds their changes.
final class FolderWatcher: Sendable {
    /// What changed, for the import service.
    enum Change: Sendable, Hashable {
        /// Files in this folder changed.
        case folder(String)
        /// This folder and everything below it changed (made, moved in, removed, moved away).
        case tree(String)
        /// The kernel dropped events: everything must be looked at again.
        case overflow
    }

    private struct State {
        var paths: [Int32: String] = [:]
        var watches: [String: Int32] = [:]
        var unwatched = 0
        var limitReached = false
    }

    private let fd: Int32
    private let stopPipe: [Int32]
    private let state = Mutex(State())
    private let onChange: @Sendable ([Change]) -> Void
    private let stopped = Atomic<Bool>(false)

    /// Starts an inotify instance and its reading thread.
    /// - Parameter onChange: called from the watcher's thread with each read's changes.
    /// - Returns: `nil` when inotify is not available (then only rescans see changes).
    init?(onChange: @escaping @Sendable ([Change]) -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            return nil
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.fd = fd
        self.stopPipe = pipeEnds
        self.onChange = onChange
        Thread.detachNewThread { [self] in readLoop() }
    }

    /// How many folders are watched, and how many could not be (the kernel's limit).
    var counts: (watched: Int, unwatched: Int) { state.withLock { ($0.watches.count, $0.unwatched) } }

    /// Whether a folder is watched.
    func isWatched(_ path: String) -> Bool { state.withLock { $0.watches[path] != nil } }

    /// Watches these folders (already watched ones are left as they are).
    func watch(_ folders: [String]) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
        state.withLock { state in
            for folder in folders where state.watches[folder] == nil {
                let wd = inotify_add_watch(fd, folder, mask)
                if wd < 0 {
                    if errno == ENOSPC { state.limitReached = true }
                    state.unwatched += 1
                    continue
                }
                // The same folder by another path (a watch the kernel already had): keep one name.
                if let old = state.paths[wd] { state.watches[old] = nil }
                state.paths[wd] = folder
                state.watches[folder] = wd
            }
        }
    }

    /// Stops watching a folder and every folder below it.
    func unwatch(tree path: String) {
        state.withLock { state in
            for (folder, wd) in state.watches where folder == path || folder.hasPrefix(path + "/") {
                inotify_rm_watch(fd, wd)
                state.watches[folder] = nil
                state.paths[wd] = nil
            }
        }
    }

    /// Whether the kernel refused a watch for its limit.
    var limitReached: Bool { state.withLock { $0.limitReached } }

    /// Stops the reading thread and closes the inotify instance.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
    }

    private func readLoop() {
        defer {
            close(fd)
            close(stopPipe[0])
            close(stopPipe[1])
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopped.load(ordering: .acquiring) {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { continue }
            let changes = buffer.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            if !changes.isEmpty { onChange(changes) }
        }
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) -> [Change] {
        var changes: [Change] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            offset += header + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.append(.overflow)
                continue
            }
            let folder = state.withLock { state -> String? in
                guard let path = state.paths[wd] else { return nil }
                if mask & UInt32(IN_IGNORED) != 0 {
                    state.paths[wd] = nil
                    if state.watches[path] == wd { state.watches[path] = nil }
                }
                return path
            }
            guard let folder else { continue }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                changes.append(.tree(folder))
                continue
            }
            if name.isEmpty { continue }
            let path = folder + "/" + name
            if mask & UInt32(IN_ISDIR) != 0 {
                if mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { unwatch(tree: path) }
                if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) != 0 { changes.append(.tree(path)) }
            } else {
                changes.append(.folder(folder))
            }
        }
        return changes
    }
}
