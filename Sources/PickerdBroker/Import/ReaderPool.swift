import CPickerdShims
import Foundation
import Glibc
import Logging
import PickerdImport
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// How pickerd's confined file readers run: ``Broker/Configuration/readers``.
public struct ReaderSettings: Sendable, Hashable {
    /// The pickerd-reader program; `nil`: beside pickerd, else `/usr/libexec/pickerd/pickerd-reader`.
    public var executable: String?
    /// Readers at most at once; `nil`: one per core.
    public var count: Int?
    /// CPU seconds a file may take to read, plus one per MiB of the file.
    public var cpuSeconds: Double = 30
    /// Resident memory past which a reader is killed, MiB.
    public var maxResidentMiB: Int = 768
    /// A reader's data limit (RLIMIT_DATA), MiB: past it, its allocations fail.
    public var maxDataMiB: UInt64 = 1024

    /// The defaults.
    public init() {}

    func poolConfiguration(timeZone: String) -> ReaderPool.Configuration {
        var c = ReaderPool.Configuration(executable: executable ?? ReaderPool.Configuration.defaultExecutable(),
                                         count: count ?? max(ProcessInfo.processInfo.activeProcessorCount, 1), timeZone: timeZone)
        c.cpuSeconds = cpuSeconds
        c.maxResidentBytes = maxResidentMiB << 20
        c.maxDataMiB = maxDataMiB
        return c
    }
}

/// pickerd's file readers: a few `pickerd-reader` processes, each confined (no file system, no
/// network, no programs, limited memory; see CReaderJail), that read and decode every file of the
/// person's that pickerd looks into. pickerd opens each file itself (no links followed, a regular
/// file, checked with `fstat`) and passes only its descriptor.
///
/// A reader that crashes, runs past its time or its memory is killed; the file it was reading is
/// answered with a ``ReaderBreakdown`` (which the indexer records as the file's problem, so it is
/// not read again until it changes), and the next file gets a new reader. The daemon keeps serving
/// meanwhile: a reader is a process of its own.
final class ReaderPool: FileReading, Sendable {
    /// The limits and where the program is.
    struct Configuration: Sendable {
        /// The pickerd-reader program.
        var executable: String
        /// Readers at most at once (one per core by default).
        var count: Int
        /// The person's time zone, for files that do not state their offset.
        var timeZone: String
        /// A reader's data limit (RLIMIT_DATA, set by the reader on itself), MiB.
        var maxDataMiB: UInt64 = 1024
        /// A reader's resident memory past which pickerd kills it, bytes.
        var maxResidentBytes: Int = 768 << 20
        /// CPU seconds a request may take: this, plus ``cpuSecondsPerMiB`` per MiB of the file.
        var cpuSeconds: Double = 30
        /// …
        var cpuSecondsPerMiB: Double = 1
        /// Wall-clock seconds a request may take whatever its CPU time (a reader stuck waiting).
        var wallSeconds: Double = 600
        /// CPU and wall-clock seconds added per MiB a reader says it has inflated from an archive's
        /// streamed entry (``ReaderProgress/inflatedBytes``): Apple Health's `export.xml` of several
        /// GB inside an `export.zip` a tenth of its size, whose allowance the archive's size alone
        /// would set. Its parse costs about 0.004 s per MiB in a release build (bench-health: 2.8 s
        /// of the reader's CPU for 736 MB): sixty times that leaves room for a busy machine, slower
        /// hardware and exports denser in workouts and routes than bench-health's.
        var secondsPerInflatedMiB: Double = 0.25
        /// The most inflated bytes counted so (a reader's claim past it earns no more time), MiB:
        /// ``ZipArchive``'s bound on a streamed entry.
        var maxInflatedMiB: Double = 32 * 1024

        /// The program beside pickerd's own (a build's products, or /usr/bin), else the installed one.
        static func defaultExecutable() -> String { CompanionProgram.path("pickerd-reader") }
    }

    /// One running reader.
    private final class Reader: Sendable {
        let pid: Int32
        let connection: FrameConnection

        init(pid: Int32, connection: FrameConnection) {
            self.pid = pid
            self.connection = connection
        }
    }

    let configuration: Configuration
    private let logger: Logger
    private let idle = Mutex<[Reader]>([])
    private let slots: DispatchSemaphore
    private let nextID = Atomic<UInt64>(1)
    /// Readers started so far (for the tests and `pickerctl status`).
    let started = Atomic<Int>(0)

    init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        slots = DispatchSemaphore(value: max(configuration.count, 1))
    }

    /// Ends every idle reader (pickerd stopping).
    func stop() {
        for reader in idle.withLock({ readers in defer { readers = [] }; return readers }) { end(reader) }
    }

    // MARK: FileReading

    func probe(path: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        let reply = try ask(path) { .probeMedia(ReaderProbeMedia(name: path, timeZone: timeZone.identifier, readPeople: readPeople)) }
        switch reply.last {
        case .probed(let m)?: return (try ProbedMedia(m), m.people)
        case .failure(let failure)?: throw ProbeError(failure)
        default: throw ProbeError(.corrupt, "its reader gave no answer pickerd understands")
        }
    }

    func probe(path: String, sidecar: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError)
        -> (media: ProbedMedia, people: [String], sidecarProblem: String?) {
        // A sidecar that cannot be opened is named so, and the photo read alone.
        var opened = false
        let reply = try ask(path, also: sidecar) { also in
            opened = also
            return .probeMedia(ReaderProbeMedia(name: path, timeZone: timeZone.identifier, readPeople: readPeople, sidecarName: also ? sidecar : ""))
        }
        switch reply.last {
        case .probed(let m)?:
            let problem = !opened ? "cannot open it: \(String(cString: strerror(EACCES)))" : m.sidecarProblem.isEmpty ? nil : m.sidecarProblem
            return (try ProbedMedia(m), m.people, problem)
        case .failure(let failure)?: throw ProbeError(failure)
        default: throw ProbeError(.corrupt, "its reader gave no answer pickerd understands")
        }
    }

    func workout(path: String, size: Int) throws(ProbeError) -> ImportedWorkout? {
        let reply = try ask(path) { .readWorkout(ReaderReadWorkout(name: path, size: UInt64(max(size, 0)))) }
        guard case .workout(let m)? = reply.last, m.found, let workout = m.workout else { return nil }
        return ImportedWorkout(workout)
    }

    func preview(path: String, contentType: String, maxSide: Int) throws(ProbeError) -> [UInt8] {
        let reply = try ask(path) { .decodePreview(ReaderDecodePreview(name: path, contentType: contentType, maxSide: UInt32(maxSide))) }
        switch reply.last {
        case .preview(let m)?: return m.png
        case .failure(let failure)?: throw ProbeError(failure)
        default: throw ProbeError(.corrupt, "its reader gave no answer pickerd understands")
        }
    }

    func pictureHash(path: String, contentType: String) throws(ProbeError) -> UInt64 {
        let reply = try ask(path) { .hashPicture(ReaderHashPicture(name: path, contentType: contentType)) }
        switch reply.last {
        case .pictureHash(let m)?: return m.hash
        case .failure(let failure)?: throw ProbeError(failure)
        default: throw ProbeError(.corrupt, "its reader gave no answer pickerd understands")
        }
    }

    func plan(files: [String], granted: (String) -> Bool) -> (files: [String], names: [String: String]) {
        guard !files.isEmpty else { return ([], [:]) }
        do throws(ProbeError) {
            let replies = try ask(nil, granted: granted) { .planImport(ReaderPlanImport(files: files)) }
            guard case .plan(let plan)? = replies.last else { return ([], [:]) }
            // Only files pickerd found: a reader names no other.
            let found = Set(files)
            return (plan.files.filter { found.contains($0) },
                    Dictionary(plan.activityNames.map { ($0.path, $0.name) }, uniquingKeysWith: { first, _ in first }))
        } catch {
            // No reader to look into them: each file is read on its own, as its own export.
            logger.warning("the files of an import could not be looked into", metadata: ["why": "\(error.message)"])
            return (files, [:])
        }
    }

    func export(path: String, name: String, names: [String: String], nowMs: Int64?, granted: (String) -> Bool,
                progress: (Int) -> Void) -> [ExportRead] {
        let request = ReaderReadExport(path: path, name: name, nowMs: nowMs ?? 0,
                                       activityNames: names.sorted { $0.key < $1.key }.map { ReaderActivityName(path: $0.key, name: $0.value) })
        let replies: [ReaderReply.Kind]
        do throws(ProbeError) {
            replies = try ask(path, granted: granted, progress: progress) { .readExport(request) }
        } catch {
            return [ExportRead(file: path, kind: "", error: "\(name): \(error.message)")]
        }
        // Parts of the same file follow each other: their data add up.
        var files: [ExportRead] = []
        for case .export(let part) in replies {
            for file in part.files {
                let data = file.hasData ? ImportedData(file.data ?? ReaderImportedData()) : nil
                if let last = files.last, last.file == file.file, let more = data {
                    var merged = last.data ?? ImportedData()
                    merged.append(more)
                    files[files.count - 1].data = merged
                    files[files.count - 1].points += Int(file.points)
                } else {
                    files.append(ExportRead(file: file.file, kind: file.kind, error: file.error.isEmpty ? nil : file.error,
                                            points: Int(file.points), data: data))
                }
            }
        }
        return files
    }

    // MARK: Asking

    /// Has a reader answer one request about `path`, opened here and passed.
    /// - Returns: the replies (progress left out; an export's parts, then the last).
    /// - Throws: `ProbeError` `.unreadable` when the file cannot be opened, or when its reader broke
    ///   down (the message is the ``ReaderBreakdown``'s words).
    private func ask(_ path: String?, granted: (String) -> Bool = { _ in false }, progress: (Int) -> Void = { _ in },
                     _ kind: () -> ReaderRequest.Kind) throws(ProbeError) -> [ReaderReply.Kind] {
        try ask(path, also: nil, granted: granted, progress: progress) { _ in kind() }
    }

    /// Has a reader answer one request about `path` and a second file read with it (`also`: a
    /// photo's sidecar), both opened here and passed; `kind` is told whether the second could be
    /// opened (when not, the request is about `path` alone).
    private func ask(_ path: String?, also: String?, granted: (String) -> Bool = { _ in false }, progress: (Int) -> Void = { _ in },
                     _ kind: (Bool) -> ReaderRequest.Kind) throws(ProbeError) -> [ReaderReply.Kind] {
        var fd: Int32?
        if let path {
            guard let opened = RegularFile.open(path) else {
                throw ProbeError(.unreadable, "cannot open it: \(String(cString: strerror(errno == 0 ? EACCES : errno)))")
            }
            fd = opened
        }
        defer { if let fd { Glibc.close(fd) } }
        let second = also.flatMap { RegularFile.open($0) }
        defer { if let second { Glibc.close(second) } }
        var info = stat()
        let sizeMiB = fd.map { fstat($0, &info) == 0 ? Double(info.st_size) / 1_048_576 : 0 } ?? 0
        slots.wait()
        defer { slots.signal() }
        let reader: Reader
        switch take() {
        case .success(let r): reader = r
        case .failure(let breakdown): throw ProbeError(.unreadable, breakdown.description)
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let outcome = converse(reader, ReaderRequest(id: id, kind: kind(second != nil)), fds: [fd, second].compactMap { $0 }, sizeMiB: sizeMiB,
                               granted: granted, progress: progress)
        switch outcome {
        case .success(let replies):
            idle.withLock { $0.append(reader) }
            return replies
        case .failure(let breakdown):
            logger.warning("a file's reader broke down", metadata: ["file": "\(path ?? "(an import's files)")", "why": "\(breakdown.description)"])
            throw ProbeError(.unreadable, breakdown.description)
        }
    }

    /// An idle reader, or a new one.
    private func take() -> Result<Reader, ReaderBreakdown> {
        if let reader = idle.withLock({ $0.popLast() }) { return .success(reader) }
        let pair: (FrameConnection, FrameConnection)
        do {
            pair = try UnixSocket.pair(limits: FrameLimits(maxBodyBytes: 64 << 20, maxDescriptors: 4))
        } catch {
            return .failure(ReaderBreakdown(.unavailable, "no socketpair: \(error)"))
        }
        let (mine, theirs) = pair
        defer { try? theirs.close() }
        let argv = [configuration.executable, "--time-zone", configuration.timeZone, "--max-data-mib", String(configuration.maxDataMiB)]
        let arguments = argv.map { strdup($0) } + [nil]
        // Only what a reader needs of pickerd's environment: nothing of the person's session.
        // One malloc arena from the start: glibc reads /proc/sys/vm/overcommit_memory when a thread's
        // own arena first shrinks, which the filter would kill the reader for (libde265's threads did).
        let environment: [String] = ["LANG=C.UTF-8", "TZ=" + configuration.timeZone, "GLIBC_TUNABLES=glibc.malloc.arena_max=1"]
        let variables = environment.map { strdup($0) } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: Int32 = 0
        let error = pickerd_spawn_with_channel(configuration.executable, arguments, variables, theirs.descriptor?.rawValue ?? -1, &pid)
        guard error == 0 else {
            return .failure(ReaderBreakdown(.unavailable, "\(configuration.executable): \(String(cString: strerror(error)))"))
        }
        // A reader stuck inside a frame must not hold pickerd's thread for ever.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        if let fd = mine.descriptor?.rawValue {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        started.add(1, ordering: .relaxed)
        return .success(Reader(pid: pid, connection: mine))
    }

    /// Sends the request and reads replies until the last, answering the reader's requests for
    /// other files, and watching its time and memory.
    private func converse(_ reader: Reader, _ request: ReaderRequest, fds: [Int32], sizeMiB: Double, granted: (String) -> Bool,
                          progress: (Int) -> Void) -> Result<[ReaderReply.Kind], ReaderBreakdown> {
        let cpuBase = configuration.cpuSeconds + configuration.cpuSecondsPerMiB * sizeMiB
        // Streamed entries' inflated bytes, as the reader tells them: more time, within a cap.
        var inflatedMiB = 0.0
        var extra: Double { configuration.secondsPerInflatedMiB * min(inflatedMiB, configuration.maxInflatedMiB) }
        let cpuAtStart = Self.cpuSeconds(reader.pid) ?? 0
        let started = ContinuousClock.now
        func broken(_ breakdown: ReaderBreakdown) -> Result<[ReaderReply.Kind], ReaderBreakdown> {
            kill(reader.pid, SIGKILL)
            end(reader)
            return .failure(breakdown)
        }
        do {
            try reader.connection.sendMessage(request, descriptors: fds.map { FileDescriptor(rawValue: $0) })
        } catch {
            return broken(died(reader))
        }
        var replies: [ReaderReply.Kind] = []
        while true {
            // Wait for a reply a little at a time, looking at the reader's time and memory in between.
            if !reader.connection.hasBufferedFrame, let socket = reader.connection.descriptor?.rawValue {
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, 100)
                if ready == 0 {
                    let cpu = (Self.cpuSeconds(reader.pid) ?? cpuAtStart) - cpuAtStart
                    let cpuBudget = cpuBase + extra
                    if cpu > cpuBudget {
                        return broken(ReaderBreakdown(.time, String(format: "%.0f s of CPU, %.0f s allowed", cpu, cpuBudget)))
                    }
                    let wall = (ContinuousClock.now - started) / .seconds(1)
                    if wall > configuration.wallSeconds + extra {
                        return broken(ReaderBreakdown(.time, String(format: "%.0f s, %.0f s allowed", wall, configuration.wallSeconds + extra)))
                    }
                    if let resident = Self.residentBytes(reader.pid), resident > configuration.maxResidentBytes {
                        return broken(ReaderBreakdown(.memory, "over the \(configuration.maxResidentBytes >> 20) MiB a reader may hold"))
                    }
                    continue
                }
                if ready < 0 && errno == EINTR { continue }
            }
            let received: (message: ReaderReply, descriptors: [OwnedFileDescriptor])?
            do {
                received = try reader.connection.receiveMessage(ReaderReply.self)
            } catch {
                return broken(died(reader))
            }
            guard let (reply, _) = received else { return broken(died(reader)) }
            guard reply.id == request.id, let kind = reply.kind else {
                return broken(ReaderBreakdown(.crashed, "it answered out of step"))
            }
            switch kind {
            case .open(let asked):
                // Another file of the same export: only beneath the folder the person named, opened
                // the same way (no links followed, regular files only).
                let opened = granted(asked.path) ? RegularFile.open(asked.path) : nil
                defer { if let opened { Glibc.close(opened) } }
                do {
                    try reader.connection.sendMessage(ReaderRequest(id: request.id, kind: .openReply(ReaderOpenReply(path: asked.path, granted: opened != nil))),
                                                      descriptors: opened.map { [FileDescriptor(rawValue: $0)] } ?? [])
                } catch {
                    return broken(died(reader))
                }
            case .progress(let p):
                inflatedMiB = max(inflatedMiB, Double(p.inflatedBytes) / 1_048_576)
                progress(Int(clamping: p.points))
            case .export(let part) where part.more:
                replies.append(kind)
            default:
                replies.append(kind)
                return .success(replies)
            }
        }
    }

    /// Why a reader that stopped answering stopped: its exit status, once reaped.
    private func died(_ reader: Reader) -> ReaderBreakdown {
        // A reader closes its end only by ending; give it a moment to, then make sure.
        var status: Int32 = 0
        var reaped = waitpid(reader.pid, &status, WNOHANG)
        if reaped == 0 {
            usleep(50_000)
            reaped = waitpid(reader.pid, &status, WNOHANG)
        }
        if reaped == 0 {
            kill(reader.pid, SIGKILL)
            while waitpid(reader.pid, &status, 0) == -1 && errno == EINTR {}
            return ReaderBreakdown(.crashed, "it stopped answering")
        }
        let code = Launcher.exitCode(status)
        if code == 128 + SIGSYS { return ReaderBreakdown(.crashed, "its filter stopped a system call readers may not make") }
        if code > 128 { return ReaderBreakdown(.crashed, "signal \(code - 128), \(String(cString: strsignal(code - 128)))") }
        return ReaderBreakdown(.crashed, "it exited with status \(code)")
    }

    /// Closes a reader's socket and reaps it (it ends when its socket closes).
    private func end(_ reader: Reader) {
        try? reader.connection.close()
        var status: Int32 = 0
        // Killed, or about to end on the closed socket: reap it, at most briefly waiting.
        for _ in 0..<40 {
            let reaped = waitpid(reader.pid, &status, WNOHANG)
            if reaped != 0 { return }
            usleep(25_000)
        }
        kill(reader.pid, SIGKILL)
        while waitpid(reader.pid, &status, 0) == -1 && errno == EINTR {}
    }

    // MARK: /proc

    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// User and system CPU seconds a process has used (/proc/PID/stat, fields 14 and 15).
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let fields = ProcessTable.fieldsAfterName(text) else { return nil }
        // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticks
    }

    /// A process's resident memory (/proc/PID/statm, its second field, in pages).
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * pageSize
    }
}
