import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import SystemPackage

/// systemd socket activation: the listening sockets systemd passed (`LISTEN_PID`, `LISTEN_FDS`,
/// from descriptor 3 on), matched to roles by the name of the path each is bound to
/// (`client.sock`, `agent.sock`, `control.sock`).
enum SocketActivation {
    /// The passed sockets by role, each with the path it is bound to; the environment variables are
    /// cleared so children do not see them.
    static func listeners() -> [Role: (listener: UnixListener, path: String)] {
        let environment = ProcessInfo.processInfo.environment
        defer { for key in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(key) } }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0 else { return [:] }
        var found: [Role: (listener: UnixListener, path: String)] = [:]
        for fd in 3..<(3 + count) {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // never let a started agent inherit a listening socket
            var address = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { continue }
            let path = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let role: Role? = switch (path as NSString).lastPathComponent {
            case "client.sock": .client
            case "agent.sock": .agent
            case "control.sock": .control
            default: nil
            }
            if let role { found[role] = (UnixListener(adopting: FileDescriptor(rawValue: fd)), path) }
        }
        return found
    }
}
