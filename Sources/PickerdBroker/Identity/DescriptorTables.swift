import CPickerdShims
import Glibc
import SystemPackage

/// Every open descriptor of every process pickerd may inspect, in `/proc/PID/task/TID/fd/`: the only
/// way Linux tells who holds an open file (a pty's master, one end of a socket).
enum DescriptorTables {
    /// Walks every process's descriptor tables and asks `matches` of each descriptor.
    /// - Parameters:
    ///   - table: the `/proc` to read.
    ///   - matches: given the process, its task folder (`/proc/PID/task/TID`), the descriptor's
    ///     number and its link's text (`socket:[…]`, a path…), whether it is the file looked for; it
    ///     throws `EACCES`/`EPERM` when it may not look further, which makes the process uninspectable
    ///     (other errors: the descriptor closed meanwhile).
    /// - Returns: the processes (thread-group ids) holding a match, and those whose descriptors
    ///   pickerd could not look at (another user's, or a process that made itself non-dumpable).
    static func scan(in table: ProcessTable,
                     matching matches: (_ pid: Int32, _ task: String, _ descriptor: String, _ target: String) throws(Errno) -> Bool)
        -> (holders: Set<Int32>, uninspectable: Set<Int32>) {
        var holders: Set<Int32> = [], uninspectable: Set<Int32> = []
        for pid in table.processes() {
            // Threads usually share one descriptor table, but a thread may unshare its own
            // (unshare(CLONE_FILES)); kcmp(2) says which tables are distinct, and each is read once.
            var read: [Int32] = []
            for tid in table.tasks(of: pid) {
                if read.contains(where: { pickerd_same_descriptor_table($0, tid) == 1 }) { continue }
                read.append(tid)
                switch scanTable(pid: pid, task: "/proc/\(pid)/task/\(tid)", matches) {
                case .holds: holders.insert(pid)
                case .uninspectable: uninspectable.insert(pid)
                case .none: break
                }
            }
        }
        return (holders, uninspectable)
    }

    private enum TableResult { case holds, uninspectable, none }

    private static func scanTable(pid: Int32, task: String,
                                  _ matches: (Int32, String, String, String) throws(Errno) -> Bool) -> TableResult {
        let descriptors: [String]
        do {
            descriptors = try ProcessTable.entries(task + "/fd")
        } catch {
            // Gone (ENOENT, ESRCH) is nothing; anything else is a table pickerd may not see.
            return error == .noSuchFileOrDirectory || error == .noSuchProcess ? .none : .uninspectable
        }
        for descriptor in descriptors {
            do {
                let target = try ProcessTable.link(task + "/fd/" + descriptor)
                if try matches(pid, task, descriptor, target) { return .holds }
            } catch {
                if error == .permissionDenied || error == .notPermitted { return .uninspectable }
                continue  // closed meanwhile
            }
        }
        return .none
    }
}

/// The processes holding one end of a Unix socket, by the socket's inode (`socket:[INODE]`).
enum SocketHolders {
    /// - Parameters:
    ///   - inode: the socket's inode (``pickerd_unix_peer_inode`` gives the app's end of a connection).
    ///   - table: the `/proc` to read.
    /// - Returns: the processes (thread-group ids) that hold it.
    static func scan(inode: UInt64, in table: ProcessTable) -> Set<Int32> {
        let target = "socket:[\(inode)]"
        return DescriptorTables.scan(in: table) { _, _, _, link in link == target }.holders
    }
}
