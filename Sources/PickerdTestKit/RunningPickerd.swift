public import Foundation
import Glibc

/// A real pickerd in temporary directories: started, waited for until its control socket answers,
/// stopped with SIGTERM, and cleaned up (SIGKILL if still running) when the object goes away.
public final class RunningPickerd: @unchecked Sendable {
    /// The temporary root holding `run/`, `data/`, `config/` and the log.
    public let root: String
    /// The runtime directory (sockets).
    public var runtime: String { root + "/run" }
    /// The data directory (store).
    public var data: String { root + "/data" }
    /// The configuration directory (app registry).
    public var config: String { root + "/config" }
    /// Extra arguments pickerd was started with.
    public let extra: [String]
    /// Variables added to pickerd's environment (and so to what it starts).
    public let environment: [String: String]
    /// pickerd's stdout and stderr, and anything the agents it started printed.
    public let log: String
    private var process: Process?
    private let ownsRoot: Bool

    /// Starts pickerd and waits until `pickerctl status` succeeds.
    /// - Parameters:
    ///   - seed: pass `--seed-demo`.
    ///   - root: reuse this root (to restart on the same store); a new one by default.
    ///   - extra: more arguments, such as `--agent-command`.
    ///   - environment: variables to add to pickerd's environment, such as `TZ`. pickerd gets no
    ///     `DISPLAY` or `WAYLAND_DISPLAY` but from here (no desktop picker otherwise).
    ///   - developerMode: pass `--developer-mode`, so registered test apps present without the
    ///     person's allowance (tests of that allowance pass `false`).
    /// - Throws: when pickerd does not come up; the error holds its log.
    public init(seed: Bool = true, root existing: String? = nil, extra: [String] = [], environment: [String: String] = [:],
                developerMode: Bool = true) throws {
        self.extra = extra + (developerMode ? ["--developer-mode"] : [])
        self.environment = environment
        if let existing {
            root = existing
            ownsRoot = false
        } else {
            var template = Array("/tmp/pkd-it.XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
            root = String(cString: made)
            ownsRoot = true
        }
        log = root + "/pickerd-\(UUID().uuidString.prefix(8)).log"
        try start(seed: seed)
    }

    /// pickerd's path arguments.
    public var arguments: [String] { ["--runtime-dir", runtime, "--data-dir", data, "--config-dir", config] }

    private func start(seed: Bool) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments + extra + (seed ? ["--seed-demo"] : [])
        // The display and the session bus are the test's to give: a test run on a desktop starts no
        // window there and records nothing its media players play.
        var inherited = ProcessInfo.processInfo.environment
        inherited["DISPLAY"] = nil
        inherited["WAYLAND_DISPLAY"] = nil
        inherited["DBUS_SESSION_BUS_ADDRESS"] = nil
        process.environment = inherited.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        self.process = process
        for _ in 0..<600 {
            if FileManager.default.fileExists(atPath: runtime + "/control.sock"),
               (try? runProduct("pickerctl", ["status", "--runtime-dir", runtime]))?.status == 0 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "pickerd did not come up: \(logText)"])
    }

    /// The pickerd under test: `$PICKERD_UNDER_TEST` if set (Tools/conformance --pickerd PATH), else
    /// the one this package built.
    public static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["PICKERD_UNDER_TEST"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return BuiltProducts.url("pickerd")
    }

    /// pickerd's process id while it runs.
    public var pid: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

    /// Everything in the log so far.
    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Waits until the log holds `text` (what pickerd does in the background, such as building
    /// moments again after an upgrade, is waited on by what it logs when done), or pickerd stops.
    /// - Parameters:
    ///   - text: what to wait for.
    ///   - limit: how long at most, in seconds: a bound against a hang, never a timing claim.
    /// - Returns: whether the log holds it.
    @discardableResult
    public func waitForLog(_ text: String, limit: Double = 300) -> Bool {
        eventually(timeout: limit) { logText.contains(text) || pid == nil } && logText.contains(text)
    }

    /// Sends SIGTERM and waits.
    /// - Returns: pickerd's exit status.
    @discardableResult
    public func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs `pickerctl` against this pickerd.
    /// - Parameter arguments: the subcommand and its arguments.
    /// - Returns: its output and status.
    /// - Throws: when it cannot be started.
    public func ctl(_ arguments: [String]) throws -> CommandResult {
        try runProduct("pickerctl", arguments + ["--runtime-dir", runtime])
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsRoot { try? FileManager.default.removeItem(atPath: root) }
    }
}
