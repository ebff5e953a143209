import CPickerdShims
import Glibc
import SystemPackage

/// Who holds the master side of one pseudo-terminal, found the only way Linux tells: every open
/// descriptor of every process pickerd may inspect, in `/proc/PID/task/TID/fd/`.
///
/// A pty master is a descriptor of a `ptmx` device; its `/proc/PID/fdinfo/FD` has a `tty-index:`
/// line (since Linux 4.x) naming the pty. The link's text is not trusted (a sandbox can bind-mount
/// `ptmx` under any name), so `fdinfo` is read for every descriptor that is a file at all.
///
/// A pty index is unique only within one devpts instance: every sandbox with its own `/dev`
/// (bwrap's `--dev`) has a pts/0 of its own. The instance is the slave's `st_dev`; a master is
/// matched to it by where it was opened:
/// - `…/pts/ptmx` (a devpts filesystem): its `st_dev` is the instance;
/// - a `ptmx` device node elsewhere (`/dev/ptmx`): the kernel took the devpts mounted at `pts`
///   beside it, looked up again through the holder's root;
/// - when neither answers, the master counts as this pty's (when in doubt, release less).
struct PtyMasters {
    /// The processes (thread-group ids) holding a master of the pty.
    var holders: Set<Int32> = []
    /// The processes whose descriptors pickerd could not look at (another user's, or a process that
    /// made itself non-dumpable): they may hold it too.
    var uninspectable: Set<Int32> = []

    /// Scans every process for masters of pty `index` in the devpts instance `instance`.
    /// - Parameters:
    ///   - index: the pty's index (the slave's minor number: `/dev/pts/<index>`).
    ///   - instance: the slave's `st_dev`, which names its devpts instance.
    ///   - table: the `/proc` to read.
    /// - Returns: who holds it, and who could not be inspected.
    static func scan(index: Int, instance: UInt64, in table: ProcessTable) -> PtyMasters {
        let found = DescriptorTables.scan(in: table) { pid, task, descriptor, target throws(Errno) in
            // Sockets, pipes and anonymous inodes are never a ptmx.
            if target.hasPrefix("socket:") || target.hasPrefix("pipe:") || target.hasPrefix("anon_inode:") { return false }
            let info = try ProcessTable.text(task + "/fdinfo/" + descriptor)
            guard let line = info.split(separator: "\n").first(where: { $0.hasPrefix("tty-index:") }),
                  Int(line.dropFirst("tty-index:".count).drop(while: { $0 == " " || $0 == "\t" })) == index else { return false }
            return master(at: task + "/fd/" + descriptor, shownAs: target, root: "/proc/\(pid)/root", isIn: instance)
        }
        return PtyMasters(holders: found.holders, uninspectable: found.uninspectable)
    }

    /// Whether the master open at `path` belongs to devpts instance `instance` (see the type's
    /// comment); `true` when that cannot be told.
    private static func master(at path: String, shownAs target: String, root: String, isIn instance: UInt64) -> Bool {
        var opened = stat()
        guard stat(path, &opened) == 0 else { return errno != ENOENT }
        if UInt64(opened.st_dev) == instance { return true }
        // Opened as <another devpts>/ptmx: another instance's pty with the same index.
        if pickerd_path_is_devpts(path) == 1 { return false }
        // A ptmx device node: the kernel used the devpts at "pts" in the same directory.
        guard target.hasPrefix("/"), !target.hasSuffix(" (deleted)"), let slash = target.lastIndex(of: "/") else { return true }
        let pts = root + target[..<slash] + "/pts"
        var beside = stat()
        guard stat(pts, &beside) == 0 else { return true }
        if UInt64(beside.st_dev) == instance { return true }
        return pickerd_path_is_devpts(pts) != 1
    }
}
