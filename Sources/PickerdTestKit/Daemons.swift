public import Foundation
import Glibc

/// Starts a daemon in the foreground that prints one line when it is ready (its address, its
/// display number) and waits for that line. The line goes into `file`, not a pipe: a pipe would
/// never reach its end while the daemon runs.
/// - Parameters:
///   - program: the daemon.
///   - arguments: its arguments, which make it print the line on standard output.
///   - file: where that line is written.
/// - Returns: the running daemon and its line, trimmed.
/// - Throws: when it cannot be started, or prints nothing within 30 seconds.
public func startDaemon(_ program: String, _ arguments: [String], printingTo file: String) throws -> (Process, String) {
    _ = FileManager.default.createFile(atPath: file, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: file)
    process.standardError = FileHandle.nullDevice
    try process.run()
    var written = ""
    _ = eventually(timeout: 30) { written = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""; return written.hasSuffix("\n") }
    guard written.hasSuffix("\n") else {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(program) did not start"])
    }
    return (process, written.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// A private D-Bus session bus (`dbus-daemon --session`) for as long as the value lives. When it
/// ends, so does everything the bus started (services it activated, such as the accessibility bus
/// and its registry, which fork away from it): every process whose environment names this bus, and
/// their descendants.
public final class SessionBus {
    /// `DBUS_SESSION_BUS_ADDRESS` for programs on this bus.
    public let address: String
    private let bus: Process

    /// Starts the bus.
    /// - Parameter directory: where its address file is kept.
    /// - Throws: when `dbus-daemon` does not start.
    public init(directory: String) throws {
        (bus, address) = try startDaemon("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"], printingTo: directory + "/bus")
        guard address.hasPrefix("unix:") else {
            kill(bus.processIdentifier, SIGKILL)
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon printed no address"])
        }
    }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and children (and theirs) inherit the mask.
        for pid in Self.started(on: address) { kill(pid, SIGKILL) }
        kill(bus.processIdentifier, SIGKILL)
        bus.waitUntilExit()
    }

    /// The processes whose environment names the bus at `address`, with their descendants.
    private static func started(on address: String) -> Set<Int32> {
        let own = Data(("DBUS_SESSION_BUS_ADDRESS=" + address).utf8)
        var parents: [Int32: Int32] = [:]
        var found: Set<Int32> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            if let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
               let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 2, let parent = Int32(fields[1]) {
                parents[pid] = parent
            }
            // Read to its end: /proc's files say they are empty.
            if let handle = FileHandle(forReadingAtPath: "/proc/\(entry)/environ"), let environ = try? handle.readToEnd(),
               environ.split(separator: 0).contains(where: { Data($0) == own }) {
                found.insert(pid)
            }
        }
        while true {
            let children = parents.filter { found.contains($0.value) && !found.contains($0.key) }.map(\.key)
            if children.isEmpty { return found }
            found.formUnion(children)
        }
    }
}

/// A `Process` that starts pickerd as systemd's socket activation does: python3 binds and listens on
/// the three sockets in `<root>/run`, passes them from descriptor 3 with `LISTEN_PID` and
/// `LISTEN_FDS`, and execs pickerd (python keeps its pid across exec, as systemd's child does). Not
/// yet run: the caller sets its standard error and runs it.
/// - Parameter root: a temporary folder; pickerd's runtime, data and config directories go in it.
/// - Returns: the process.
public func socketActivatedPickerd(root: String) -> Process {
    let activate = """
        import os, socket, sys
        run, argv = sys.argv[1], sys.argv[2:]
        os.makedirs(run, mode=0o700, exist_ok=True)
        held = []
        for name in ["control.sock", "client.sock", "agent.sock"]:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(os.path.join(run, name)); s.listen(16)
            held.append(s)
        high = [os.dup(s.fileno()) for s in held]
        for i, fd in enumerate(high):
            os.dup2(fd, 30 + i)
        for i in range(3):
            os.dup2(30 + i, 3 + i, inheritable=True)
        os.environ["LISTEN_PID"] = str(os.getpid())
        os.environ["LISTEN_FDS"] = "3"
        os.execv(argv[0], argv)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", activate, root + "/run", BuiltProducts.url("pickerd").path,
                         "--runtime-dir", root + "/run", "--data-dir", root + "/data", "--config-dir", root + "/config"]
    return process
}
