import Foundation
import Glibc
import Testing

/// Where the package's executables are built: beside the test bundle.
enum BuiltProducts {
    static func url(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }
}

/// What a finished command printed, and how it ended.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs one of the package's executables to completion.
func runProduct(_ name: String, _ arguments: [String]) throws -> CommandResult {
    let process = Process()
    process.executableURL = BuiltProducts.url(name)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes while it runs, so a full pipe cannot stall it.
    nonisolated(unsafe) var errorData = Data()
    let reader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !reader.isFinished { usleep(1000) }
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                         stderr: String(decoding: errorData, as: UTF8.self))
}

/// A real pickerd in temporary directories, stopped (SIGTERM) and cleaned up at the end.
final class RunningPickerd {
    let root: String
    var runtime: String { root + "/run" }
    var data: String { root + "/data" }
    var config: String { root + "/config" }
    private(set) var process: Process?
    let log: String

    let extra: [String]

    init(seed: Bool = true, root existing: String? = nil, extra: [String] = []) throws {
        self.extra = extra
        if let existing {
            root = existing
        } else {
            var template = Array("/tmp/pkd-it.XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
            root = String(cString: made)
        }
        log = root + "/pickerd-\(UUID().uuidString.prefix(8)).log"
        try start(seed: seed)
    }

    var arguments: [String] { ["--runtime-dir", runtime, "--data-dir", data, "--config-dir", config] }

    func start(seed: Bool) throws {
        let process = Process()
        process.executableURL = BuiltProducts.url("pickerd")
        process.arguments = arguments + extra + (seed ? ["--seed-demo"] : [])
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        self.process = process
        // Ready when the control socket answers.
        for _ in 0..<600 {
            if FileManager.default.fileExists(atPath: runtime + "/control.sock"),
               (try? runProduct("pickerctl", ["status", "--runtime-dir", runtime]))?.status == 0 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "pickerd did not come up: \(logText)"])
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func ctl(_ arguments: [String]) throws -> CommandResult {
        try runProduct("pickerctl", arguments + ["--runtime-dir", runtime])
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
    }
}
