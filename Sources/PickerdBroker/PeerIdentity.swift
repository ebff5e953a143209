import Foundation
import Glibc
import PickerdTransport
import CPickerdShims
import SystemPackage

/// Who is connecting, from the kernel: uid and pid from `SO_PEERCRED`, the executable behind the
/// pidfd. The pidfd is checked to still name a live process after the executable is read, so a pid
/// reused by another program in between is caught.
struct PeerIdentity {
    let uid: UInt32
    let pid: Int32
    /// The peer's executable as the kernel resolves `/proc/<pid>/exe`, or `nil` if it could not be.
    let executablePath: String?
    private let pidfd: OwnedFileDescriptor?

    init(_ credentials: PeerCredentials) {
        uid = credentials.uid
        pid = credentials.pid
        pidfd = credentials.pidfd
        var path: String? = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(credentials.pid)/exe")
        if let p = path, p.hasSuffix(" (deleted)") { path = String(p.dropLast(" (deleted)".count)) }
        executablePath = Self.alive(credentials.pidfd) ? path : nil
    }

    /// The bytes of the running executable (through `/proc/<pid>/exe`, which is the file the
    /// process runs even if its path has changed), if the process is still the one that connected.
    func executableBytes() -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/exe"), Self.alive(pidfd) else { return nil }
        return [UInt8](data)
    }

    /// The running executable file's identity and version, as `stat` of `/proc/<pid>/exe` gives
    /// it: device, inode, size, modification and change times. Any write to the file changes the
    /// change time, which no one can set back, so an unchanged signature means unchanged bytes.
    func executableSignature() -> FileSignature? {
        var st = stat()
        guard stat("/proc/\(pid)/exe", &st) == 0, Self.alive(pidfd) else { return nil }
        return FileSignature(st)
    }

    /// The running executable file's device and inode: what a registered app is matched by. A
    /// sandbox can put any binary at any path in its own mount namespace (`/proc/<pid>/exe` then
    /// names the registered path), but not make it the registered file.
    func executableFile() -> FileIdentity? {
        executableSignature().map(FileIdentity.init)
    }

    /// The Flatpak app id of a sandboxed caller: `[Application] name=` of the `.flatpak-info` in its
    /// root, read through `/proc/<pid>/root` as xdg-desktop-portal does, or `nil` when it has none
    /// (a host process, or a sandbox that is not Flatpak's).
    func flatpakAppID() -> String? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/root/.flatpak-info") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 65_536), Self.alive(pidfd) else { return nil }
        var section = ""
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("[") && text.hasSuffix("]") {
                section = String(text.dropFirst().dropLast())
            } else if section == "Application", text.hasPrefix("name=") {
                let id = String(text.dropFirst(5)).trimmingCharacters(in: .whitespaces)
                return id.isEmpty ? nil : id
            }
        }
        return nil
    }

    /// Whether the process that connected is still alive (its pidfd, not its pid, which could have
    /// been reused): checked after reading anything about it through `/proc/<pid>/`.
    var isAlive: Bool { Self.alive(pidfd) }

    private static func alive(_ pidfd: OwnedFileDescriptor?) -> Bool {
        guard let fd = pidfd?.descriptor?.rawValue else { return false }
        return pickerd_pidfd_alive(fd) == 0
    }
}

/// A file's identity and version from `stat`: equal signatures mean the same, unchanged file.
struct FileSignature: Hashable, Sendable {
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

    /// The signature of the file at `path` (following links), or `nil` when it cannot be seen.
    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(st)
    }
}

/// A file's device and inode: the file itself, whatever path names it.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` (following links), or `nil` when it cannot be seen.
    init?(path: String) {
        guard let signature = FileSignature(path: path) else { return nil }
        self.init(signature)
    }

    /// The identity part of a file's signature.
    init(_ signature: FileSignature) {
        device = signature.device
        inode = signature.inode
    }
}
