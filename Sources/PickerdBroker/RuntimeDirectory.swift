import Foundation
import Glibc

/// pickerd's runtime directory: private to its owner (0700), holding the sockets and the instance
/// lock that keeps a second pickerd away.
struct RuntimeDirectory {
    let path: String
    private let lockDescriptor: Int32

    /// Creates (or checks) the directory and takes the instance lock (`flock(2)`, held until exit).
    init(path: String) throws(BrokerError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw BrokerError("cannot create the runtime directory \(path): \(error.localizedDescription)")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw BrokerError("the runtime directory \(path) is not a directory")
        }
        guard info.st_uid == getuid() else {
            throw BrokerError("the runtime directory \(path) belongs to uid \(info.st_uid), not to this user (\(getuid()))")
        }
        if info.st_mode & 0o077 != 0 { chmod(path, 0o700) }
        let lockPath = path + "/pickerd.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BrokerError("cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw BrokerError("another pickerd is already running on \(path)\(holder.isEmpty ? "" : " (pid \(holder))")")
        }
        ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        self.path = path
        self.lockDescriptor = fd
    }

    /// Removes a socket file a previous pickerd left behind. Safe: the lock proves none is running.
    func removeStaleSocket(_ socketPath: String) {
        var info = stat()
        if lstat(socketPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { unlink(socketPath) }
    }
}
