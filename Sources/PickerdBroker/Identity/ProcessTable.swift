import Foundation
import Glibc
import SystemPackage

/// What `/proc` says about processes, as the terminal guard needs it (`man 5 proc`): a directory's
/// entries, a link's target, a small file's text, each process's parent, pid namespace depth,
/// namespaces and controlling terminal. Parents are remembered for one guard decision, so walking
/// up from many processes reads each `status` file once.
///
/// Nothing here trusts what a process says about itself: every fact comes from the kernel's files.
/// Anything can change while it is read (processes exit, pids are reused); callers treat a missing
/// answer as "unknown" and decide on the safe side.
final class ProcessTable {
    /// One process's `status` lines that matter: `PPid` and how deep its pid namespace is.
    private struct Status {
        var parent: Int32
        /// More than one pid in `NStgid`: the process lives in a pid namespace below the one this
        /// `/proc` was mounted for (a sandbox such as bwrap's).
        var nestedPIDNamespace: Bool
    }

    private var statuses: [Int32: Status?] = [:]
    private let root = "/proc"

    /// A table over `/proc`, with nothing read yet.
    init() {}

    // MARK: Processes

    /// Every process id `/proc` lists now.
    /// - Returns: the ids, or an empty list if `/proc` cannot be read.
    func processes() -> [Int32] {
        (try? Self.entries(root))?.compactMap { Int32($0) } ?? []
    }

    /// The tasks (threads) of `pid`, the process itself first.
    /// - Parameter pid: a process id.
    /// - Returns: the task ids, or just `pid` when its task list cannot be read.
    func tasks(of pid: Int32) -> [Int32] {
        let listed = ((try? Self.entries("\(root)/\(pid)/task")) ?? []).compactMap { Int32($0) }.filter { $0 != pid }
        return [pid] + listed.sorted()
    }

    /// The parent of `pid` as this pid namespace sees it (`PPid` in `/proc/PID/status`).
    /// - Parameter pid: a process id.
    /// - Returns: the parent's id (0 for the namespace's init), or `nil` when the process is gone.
    func parent(of pid: Int32) -> Int32? {
        status(of: pid)?.parent
    }

    /// Whether `pid` lives in a pid namespace nested below this `/proc`'s (it has more than one pid
    /// in `NStgid`). Readable for any process, even one whose descriptors are hidden from pickerd.
    /// - Parameter pid: a process id.
    /// - Returns: `nil` when the process is gone.
    func inNestedPIDNamespace(_ pid: Int32) -> Bool? {
        status(of: pid)?.nestedPIDNamespace
    }

    /// Whether `ancestor` is an ancestor of `pid`, walking `PPid` up to the namespace's init.
    /// - Parameters:
    ///   - pid: the process to start from.
    ///   - ancestor: the process looked for.
    /// - Returns: `true` when `ancestor` is found on the way up; `false` when the walk ends (or a
    ///   process on the way is gone).
    func isDescendant(_ pid: Int32, of ancestor: Int32) -> Bool {
        var current = pid
        // A bound, in case reused pids ever made a cycle.
        for _ in 0..<4096 {
            guard current > 1, let parent = parent(of: current), parent > 0 else { return false }
            if parent == ancestor { return true }
            current = parent
        }
        return false
    }

    /// The mount and pid namespaces of `pid`: the targets of `/proc/PID/ns/mnt` and `/ns/pid`
    /// (such as `mnt:[4026531841]`). Reading them needs the right to inspect the process.
    /// - Parameter pid: a process id, or `nil` for this process (`/proc/self`).
    /// - Returns: both targets, or `nil` when either cannot be read.
    func namespaces(of pid: Int32?) -> [String]? {
        let directory = "\(root)/\(pid.map(String.init) ?? "self")/ns/"
        guard let mount = try? Self.link(directory + "mnt"), let pids = try? Self.link(directory + "pid") else { return nil }
        return [mount, pids]
    }

    /// The controlling terminal of `pid`: field 7 (`tty_nr`) of `/proc/PID/stat`, in the kernel's
    /// device encoding; 0 when it has none.
    /// - Parameter pid: a process id.
    /// - Returns: the encoded device, or `nil` when the file cannot be read or parsed.
    func controllingTerminal(of pid: Int32) -> UInt32? {
        (try? Self.text("\(root)/\(pid)/stat")).flatMap(Self.controllingTerminal(fromStat:))
    }

    /// `tty_nr` from the text of a `/proc/PID/stat` file. The command name (field 2) is in
    /// parentheses and may itself hold spaces and parentheses, so fields are counted after the last
    /// `)`: state, ppid, pgrp, session, tty_nr.
    /// - Parameter stat: the file's text.
    /// - Returns: `tty_nr`, or `nil` when the text is not a stat line.
    static func controllingTerminal(fromStat stat: String) -> UInt32? {
        guard let fields = fieldsAfterName(stat), fields.count > 4, let value = Int64(fields[4]) else { return nil }
        return UInt32(truncatingIfNeeded: value)
    }

    /// The fields of a `/proc/PID/stat` line after the command name (field 2, in parentheses, which
    /// may itself hold spaces and parentheses): the first is field 3, the state.
    /// - Parameter stat: the file's text.
    /// - Returns: the fields, or `nil` when the text is not a stat line.
    static func fieldsAfterName(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private func status(of pid: Int32) -> Status? {
        if let known = statuses[pid] { return known }
        var found: Status?
        if let text = try? Self.text("\(root)/\(pid)/status") {
            var parent: Int32?
            var nested = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("PPid:") {
                    parent = Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
                } else if line.hasPrefix("NStgid:") {
                    nested = line.dropFirst(7).split(whereSeparator: { $0 == " " || $0 == "\t" }).count > 1
                }
            }
            if let parent { found = Status(parent: parent, nestedPIDNamespace: nested) }
        }
        statuses[pid] = found
        return found
    }

    // MARK: Files

    /// The names in a directory (without `.` and `..`): opendir(3) and readdir(3).
    /// - Parameter path: the directory.
    /// - Returns: the names.
    /// - Throws: the `Errno` of opendir: `EACCES` when pickerd may not look (another user's, or a
    ///   non-dumpable process's descriptors), `ENOENT` when the process is gone.
    static func entries(_ path: String) throws(Errno) -> [String] {
        guard let directory = opendir(path) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A symbolic link's target: readlink(2). For `/proc/PID/fd/N` the open file's path as the
    /// kernel shows it (`socket:[…]`, `pipe:[…]` and `anon_inode:…` for files without one).
    /// - Parameter path: the link.
    /// - Returns: the target.
    /// - Throws: readlink's `Errno` (`EACCES` when pickerd may not inspect the process, `ENOENT`
    ///   when the descriptor or process is gone).
    static func link(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw Errno(rawValue: errno) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A small file's text (procfs files have no size, so it is read to its end, up to `limit`).
    /// - Parameters:
    ///   - path: the file.
    ///   - limit: the most bytes read.
    /// - Returns: the text.
    /// - Throws: open's `Errno` (`EACCES`, `ENOENT`…).
    static func text(_ path: String, limit: Int = 1 << 16) throws(Errno) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
