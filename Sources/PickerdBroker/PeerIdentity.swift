import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import CPickerdShims
import SystemPackage

/// Who is connecting, from the kernel, taken once when the connection is accepted: uid and pid from
/// `SO_PEERCRED`, the pidfd, the executable file behind `/proc/<pid>/exe` (device, inode and the
/// rest of its signature), the process's mount namespace and, for a sandboxed caller, its Flatpak
/// app id. The pidfd is checked to still name a live process after each is read, so a pid reused by
/// another program in between is caught.
///
/// What it is trusted for (Documentation/security.md, "Peer credentials, pidfds and the executable"):
/// - A caller in pickerd's own mount namespace (a host process) is known by its executable file.
/// - A caller in another mount namespace (any sandbox) gets no identity from its executable: a
///   sandbox can show any file at any path and run it. Only a Flatpak's app id, from the
///   `.flatpak-info` at its root, names it; any other sandbox is unidentified.
/// - Every later request is checked against what was taken at the connection
///   (``change(connection:holders:)``): the process that connected must still run that same file in
///   that same namespace (an exec since, such as a program that connects, forks and has its parent
///   exec a registered app while the child keeps the socket, is refused), and, for what releases or
///   stores anything, every process holding the app's end of the connection must run it too.
struct PeerIdentity {
    let uid: UInt32
    let pid: Int32
    /// The peer's executable as the kernel resolves `/proc/<pid>/exe` at the connection, or `nil` if
    /// it could not be: for messages only.
    let executablePath: String?
    /// The executable file the process ran when the connection was accepted, whatever its
    /// namespace (for telling an exec since, and for sharing capacity among callers).
    let runningFile: FileVersion?
    /// The process's mount namespace (`/proc/<pid>/ns/mnt`, such as `mnt:[4026531841]`) at the connection.
    let mountNamespace: String?
    /// Whether the caller runs in a mount namespace other than pickerd's: a sandbox.
    let sandboxed: Bool
    /// The Flatpak app id of a sandboxed caller: `[Application] name=` of the `.flatpak-info` at its
    /// root, read through `/proc/<pid>/root` as xdg-desktop-portal does; `nil` for a host process and
    /// for a sandbox that is not Flatpak's.
    let flatpakAppID: String?
    private let pidfd: OwnedFileDescriptor?

    init(_ credentials: PeerCredentials) {
        uid = credentials.uid
        pid = credentials.pid
        pidfd = credentials.pidfd
        var path: String? = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(credentials.pid)/exe")
        if let p = path, p.hasSuffix(" (deleted)") { path = String(p.dropLast(" (deleted)".count)) }
        let file = FileVersion(path: "/proc/\(credentials.pid)/exe")
        let namespace = Self.mountNamespace("/proc/\(credentials.pid)")
        let own = Self.mountNamespace("/proc/self")
        // Unknown counts as sandboxed: no identity from a file pickerd cannot place.
        let sandboxed = namespace == nil || own == nil || namespace != own
        let flatpak = sandboxed ? Self.flatpakAppID(pid: credentials.pid) : nil
        let alive = Self.alive(credentials.pidfd)
        executablePath = alive ? path : nil
        runningFile = alive ? file : nil
        mountNamespace = alive ? namespace : nil
        self.sandboxed = sandboxed
        flatpakAppID = alive ? flatpak : nil
    }

    /// The bytes of the running executable (through `/proc/<pid>/exe`, which is the file the
    /// process runs even if its path has changed), if the process is still the one that connected
    /// and still runs the file it ran then. `nil` for a sandboxed caller (its file identifies nothing).
    func executableBytes() -> [UInt8]? {
        guard !sandboxed, let runningFile else { return nil }
        let fd = open("/proc/\(pid)/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var st = stat()
        guard fstat(fd, &st) == 0, FileVersion(st) == runningFile, let data = try? handle.readToEnd(), Self.alive(pidfd) else { return nil }
        return [UInt8](data)
    }

    /// The executable file's identity and version as it was when the connection was accepted, for a
    /// caller on the host; `nil` for a sandboxed one. Any write to the file changes its change time,
    /// which no one can set back, so an unchanged signature means unchanged bytes.
    func executableVersion() -> FileVersion? {
        sandboxed ? nil : runningFile
    }

    /// The executable file's device and inode: what a registered app on the host is matched by.
    /// `nil` for a sandboxed caller: a sandbox can put any binary at any path in its own mount
    /// namespace and run the registered file itself under any program's control.
    func executableFile() -> FileIdentity? {
        executableVersion().map(FileIdentity.init)
    }

    /// Why this connection's caller is no longer who it was when the connection was accepted, or
    /// `nil` when it still is: the process that connected has exited, runs another file (an exec
    /// since), or moved to another mount namespace; with `holders`, for a caller on the host, a
    /// process other than it holds the app's end of the connection and runs another file or lives
    /// in another namespace (a child the connecting program forked before it exec'd a registered
    /// app). A sandbox is one app, whichever of its processes holds the connection.
    /// - Parameters:
    ///   - connection: pickerd's end of the connection.
    ///   - holders: whether to look at every process holding the app's end (a walk of `/proc`).
    /// - Returns: the reason, in words an app developer can act on.
    func change(connection: FileDescriptor, holders: Bool) -> String? {
        guard Self.alive(pidfd) else { return "the process that connected (pid \(pid)) has exited; its connection serves no one else" }
        guard let runningFile, FileIdentity(path: "/proc/\(pid)/exe") == FileIdentity(runningFile),
              Self.mountNamespace("/proc/\(pid)") == mountNamespace, Self.alive(pidfd) else {
            return "the process that connected (pid \(pid)) runs another program than when it connected; connect again from the app itself"
        }
        // A sandbox is one app (a Flatpak's app id names all of it), so who in it holds the
        // connection does not matter; it also has a network namespace of its own, where the
        // connection's sockets live and pickerd's sock_diag query cannot see them.
        guard holders, !sandboxed else { return nil }
        var peer: UInt64 = 0
        guard pickerd_unix_peer_inode(connection.rawValue, &peer) == 0 else {
            // No unix_diag in this kernel, or the app's end is already closed: nothing to compare.
            return nil
        }
        let table = ProcessTable()
        for holder in SocketHolders.scan(inode: peer, in: table) where holder != pid {
            if FileIdentity(path: "/proc/\(holder)/exe") != FileIdentity(runningFile) || Self.mountNamespace("/proc/\(holder)") != mountNamespace {
                return "another program (pid \(holder)) holds this connection too; an app's connection must stay its own"
            }
        }
        return nil
    }

    private static func flatpakAppID(pid: Int32) -> String? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/root/.flatpak-info") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 65_536) else { return nil }
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

    /// A process's mount namespace (the target of `PROC/ns/mnt`, as ``ProcessTable`` reads it), or
    /// `nil` when it cannot be inspected.
    private static func mountNamespace(_ process: String) -> String? {
        try? ProcessTable.link(process + "/ns/mnt")
    }

    /// Whether the process that connected is still alive (its pidfd, not its pid, which could have
    /// been reused): checked after reading anything about it through `/proc/<pid>/`.
    var isAlive: Bool { Self.alive(pidfd) }

    private static func alive(_ pidfd: OwnedFileDescriptor?) -> Bool {
        guard let fd = pidfd?.descriptor?.rawValue else { return false }
        return pickerd_pidfd_alive(fd) == 0
    }
}

extension AppRegistry {
    /// The app a caller is: a sandboxed one by its Flatpak app id alone, a host process by the
    /// executable file it ran when it connected.
    /// - Parameter identity: the caller, as the kernel said when it connected.
    /// - Returns: its manifest, if it has one.
    func app(for identity: PeerIdentity) -> AppManifest? {
        app(executable: identity.executableFile(), flatpakAppID: identity.flatpakAppID)
    }
}

/// A file's device and inode: the file itself, whatever path names it.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` (following links), or `nil` when it cannot be seen.
    init?(path: String) {
        guard let signature = FileVersion(path: path) else { return nil }
        self.init(signature)
    }

    /// The identity part of a file's signature.
    init(_ signature: FileVersion) {
        device = signature.device
        inode = signature.inode
    }
}
