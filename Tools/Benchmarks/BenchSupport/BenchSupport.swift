// What the benchmarks share: a monotonic clock, percentiles, running a program, and a real pickerd
// started from a release build, with its memory read from /proc.

public import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import Synchronization

/// The pickerd being measured, stopped on the way out of a failed run.
private let running = Mutex<Int32?>(nil)

/// Prints one line on stderr, stops the pickerd being measured, exits 1.
/// - Parameters:
///   - tool: the benchmark's name, for the line's prefix.
///   - message: what went wrong.
public func benchFail(_ tool: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
    if let pid = running.withLock({ $0 }) { kill(pid, SIGTERM) }
    exit(1)
}

/// Milliseconds on the monotonic clock.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

/// The `p` quantile (0…1) of `samples`, nearest rank.
public func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// Runs a program to its end.
/// - Returns: its exit status, stdout and stderr.
@discardableResult
public func runProgram(_ program: String, _ args: [String]) -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = args
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    do { try process.run() } catch { benchFail("bench", "cannot run \(program): \(error)") }
    let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// A real pickerd in `root` (run/, data/, config/), started from `bin`.
public final class BenchPickerd: @unchecked Sendable {
    /// Its directory.
    public let root: String
    /// Where the release binaries are.
    public let bin: String
    /// Arguments beyond the directories.
    public let extra: [String]
    /// The running process.
    public private(set) var process: Process?
    /// Its runtime directory.
    public var runtime: String { root + "/run" }

    /// Describes a pickerd to start.
    public init(root: String, bin: String, extra: [String] = []) {
        self.root = root
        self.bin = bin
        self.extra = extra
    }

    /// Starts pickerd and waits for its first status.
    /// - Returns: the milliseconds from spawn to that answer.
    @discardableResult
    public func start() -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin + "/pickerd")
        p.arguments = ["--runtime-dir", runtime, "--data-dir", root + "/data", "--config-dir", root + "/config", "--log-level", "notice"] + extra
        // Its root first: pickerd makes its folders only once started, and the log is opened before.
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/pickerd.log", contents: nil)
        let log = FileHandle(forWritingAtPath: root + "/pickerd.log")
        log?.seekToEndOfFile()
        p.standardError = log
        let start = now()
        do { try p.run() } catch { benchFail("bench", "cannot start pickerd: \(error)") }
        process = p
        running.withLock { $0 = p.processIdentifier }
        while true {
            if let c = try? ProtocolClient(path: runtime + "/control.sock", role: .control, software: "bench"),
               (try? c.request(.status(StatusRequest()))) != nil {
                c.close()
                return now() - start
            }
            guard p.isRunning else { benchFail("bench", "pickerd exited (\(p.terminationStatus))") }
            usleep(500)
        }
    }

    /// Stops pickerd (SIGTERM) and waits for it.
    public func stop() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        process = nil
        running.withLock { $0 = nil }
    }

    /// pickerd's resident memory now and at its peak, in MB.
    public func memory() -> (rss: Double, peak: Double) {
        guard let pid = process?.processIdentifier else { return (0, 0) }
        return processMemory("\(pid)")
    }

    /// Runs pickerctl against this pickerd.
    public func ctl(_ args: [String]) -> (status: Int32, out: String, err: String) {
        runProgram(bin + "/pickerctl", args + ["--runtime-dir", runtime])
    }
}

/// `value` with `digits` decimals.
public func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// A process's resident memory now and at its peak (VmRSS, VmHWM from /proc/PID/status), in MB.
/// - Parameter pid: the process, or `self`.
public func processMemory(_ pid: String = "self") -> (rss: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Double {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
    return (field("VmRSS"), field("VmHWM"))
}

/// Resets this process's VmHWM to its current RSS (Linux 4.0 and later, through
/// /proc/self/clear_refs), so each phase's peak is its own; false where not allowed.
public func resetPeakMemory() -> Bool {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "5", 1) == 1
}

/// Appends `value` in decimal to `out` (generators writing millions of records without String).
public func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    var v = value
    if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
    var digits: [UInt8] = []
    repeat { digits.append(UInt8(ascii: "0") + UInt8(v % 10)); v /= 10 } while v > 0
    out.append(contentsOf: digits.reversed())
}

/// Appends `value` (0…99) as two digits to `out`.
public func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "0") + UInt8(value / 10))
    out.append(UInt8(ascii: "0") + UInt8(value % 10))
}
