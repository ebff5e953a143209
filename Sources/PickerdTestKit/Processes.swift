public import Foundation
import Glibc

/// Where the package's executables are built: beside the test bundle (or a directory above it).
public enum BuiltProducts {
    /// The built executable `name`.
    /// - Parameter name: a product name, such as `pickerd`.
    /// - Returns: its URL.
    public static func url(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }
}

/// What a finished command printed, and how it ended.
public struct CommandResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: String
    /// Everything it wrote to standard error.
    public var stderr: String
}

/// Runs a program to completion, reading both pipes while it runs so neither can stall it.
/// - Parameters:
///   - executable: the program.
///   - arguments: its arguments.
///   - environment: variables to add to this process's environment for it.
/// - Returns: its output and status.
/// - Throws: when it cannot be started.
public func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    nonisolated(unsafe) var errorData = Data()
    let reader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !reader.isFinished { usleep(1000) }
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                         stderr: String(decoding: errorData, as: UTF8.self))
}

/// Runs one of the package's executables to completion.
/// - Parameters:
///   - name: the product name.
///   - arguments: its arguments.
/// - Returns: its output and status.
/// - Throws: when it cannot be started.
public func runProduct(_ name: String, _ arguments: [String]) throws -> CommandResult {
    try runCommand(BuiltProducts.url(name), arguments)
}

/// Polls `condition` until it holds or `timeout` seconds pass (for effects another process makes
/// asynchronously: a log line, a released descriptor). Loaded machines are slow; tests wait.
/// - Parameters:
///   - timeout: the most seconds to wait.
///   - condition: what should come true.
/// - Returns: whether it did.
@discardableResult
public func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() > deadline { return false }
        usleep(20_000)
    }
}

/// A program's output read as JSON lines (as `pickerd-test-client` and the test stand-ins print):
/// each line that is a JSON object, in order; other lines are skipped.
/// - Parameter text: the output.
/// - Returns: the objects.
public func jsonLines(_ text: some StringProtocol) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// Every byte a `pickerd-test-client` run received, from its JSON lines: each frame body exactly as
/// it arrived (`raw`) and each descriptor's content (`base64`).
/// - Parameter lines: the client's output, one JSON object a line.
/// - Returns: the byte strings.
public func receivedBytes(_ lines: [[String: Any]]) -> [Data] {
    lines.flatMap { line -> [Data] in
        var all: [Data] = []
        if let raw = line["raw"] as? String, let data = Data(base64Encoded: raw) { all.append(data) }
        for descriptor in line["descriptors"] as? [[String: Any]] ?? [] {
            if let text = descriptor["base64"] as? String, let data = Data(base64Encoded: text) { all.append(data) }
        }
        return all
    }
}

/// Whether any of `haystack` holds the UTF-8 bytes of `needle`.
/// - Parameters:
///   - haystack: byte strings, as ``receivedBytes(_:)`` gives.
///   - needle: a canary.
/// - Returns: `true` when found.
public func anyContains(_ haystack: [Data], _ needle: String) -> Bool {
    haystack.contains { $0.range(of: Data(needle.utf8)) != nil }
}

/// Runs a program that may leave a daemon behind (`tmux new-session -d`, `dbus-daemon --fork`) and
/// waits only for the program itself, its output discarded. Foundation's `Process` cannot: it waits
/// for its pipes and its exit watcher, which such a daemon inherits and keeps open. The program
/// starts with no signal blocked and every one at its default, as from a shell (the test runner's
/// threads block signals, and a daemon inheriting that would never hear SIGCHLD or SIGHUP).
/// - Parameters:
///   - path: the program.
///   - arguments: its arguments.
/// - Returns: its exit status, or -1 when it could not be started.
public func runDetaching(_ path: String, _ arguments: [String]) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t(), none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, &attributes, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}

/// bwrap's arguments for an app sandboxed as the tests need it: the system and Swift's runtime
/// read-only, the app itself, and of pickerd only `socket` (its client socket), at
/// `/run/pickerd/client.sock`; no other file of pickerd's, and every namespace unshared.
///
/// pickerd knows a sandboxed app only by a Flatpak app id: with `flatpakAppID`, a `.flatpak-info`
/// naming it is put at the sandbox's root, as Flatpak writes it (in `directory`); without, the
/// sandbox is not a Flatpak's and its apps are unidentified.
/// - Parameters:
///   - program: the app's executable, bound at the same path.
///   - socket: pickerd's `client.sock`.
///   - flatpakAppID: the app id the sandbox's `.flatpak-info` names, if any.
///   - directory: where that file is written (a test's temporary directory).
/// - Returns: the arguments to put before the program's own command line.
public func clientSandbox(program: String, socket: String, flatpakAppID: String? = nil, in directory: String = NSTemporaryDirectory()) -> [String] {
    var arguments = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                     "--ro-bind", "/opt/swift", "/opt/swift", "--ro-bind", program, program, "--bind", socket, "/run/pickerd/client.sock",
                     "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--die-with-parent"]
    if let flatpakAppID {
        let info = directory + "/flatpak-info-\(flatpakAppID)"
        // Written once per id and directory; a failure to write shows as the app being unidentified.
        if !FileManager.default.fileExists(atPath: info) {
            try? "[Application]\nname=\(flatpakAppID)\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=1234\n"
                .write(toFile: info, atomically: true, encoding: .utf8)
        }
        arguments += ["--ro-bind", info, "/.flatpak-info"]
    }
    return arguments
}

/// A process's peak resident memory so far (`VmHWM` in /proc/PID/status), in MiB; 0 when unknown.
/// - Parameter pid: the process; this one by default.
public func peakResidentMiB(_ pid: Int32? = nil) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
}
