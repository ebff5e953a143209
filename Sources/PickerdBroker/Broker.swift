import Foundation
import Glibc
public import Logging
import PickerdImport
import PickerdMoments
public import PickerdStore
public import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// pickerd: owns the store and every decision, and answers every frame its sockets bring.
///
/// `main` builds a ``Broker`` and calls ``run()``, which returns after ``shutdown()`` (on SIGTERM or
/// SIGINT) once every connection is closed. Connections are served by an event loop
/// (``ConnectionLoop``) and a few worker threads per socket, never a thread per connection.
public final class Broker: Sendable {
    /// What to run with.
    public struct Configuration: Sendable {
        /// Where sockets, store and configuration live.
        public var paths: PickerdPaths
        /// How many connections are served, per socket and per app, and how long each may take.
        public var limits: ConnectionLimits
        /// The executables accepted as picker agents (checked through the peer's pidfd).
        public var agentExecutables: [String]
        /// What to start when an app presents and no agent is registered (argv); empty for nothing.
        public var agentCommand: [String]
        /// How long a started agent has to register before the presentation fails.
        public var agentStartTimeout: Double
        /// The time reminders follow.
        public var clock: PickerdClock
        /// What to start for a presentation that hands over its terminal (argv; the terminal picker
        /// registers and draws on that terminal); empty to ignore handed-over terminals.
        public var terminalAgentCommand: [String]
        /// Developers' builds and registered Flatpaks present without the person's allowance, as
        /// Apple's development profiles allow (`--developer-mode`).
        public var developerMode: Bool
        /// What to start for a presentation that brings no terminal when the person's session has a
        /// display (argv; the desktop picker registers and shows that presentation in a window);
        /// empty for none.
        public var desktopAgentCommand: [String]
        /// The person's display, as pickerd's environment names it (`$WAYLAND_DISPLAY`, else
        /// `$DISPLAY`, as systemd's user manager passes them on after `systemctl --user
        /// import-environment`); `nil` when there is none.
        public var display: String?
        /// The person's session bus, whose media players pickerd follows to record what was listened
        /// to (see ``ListeningRules``); `nil` for none (`pickerd --no-listening`, or no bus).
        public var sessionBus: String?
        /// Tracks shorter than this many seconds are never recorded as listened to.
        public var listeningMinimumTrack: Double
        /// How pickerd's confined file readers run (pickerd-reader): where the program is, how many,
        /// their limits.
        public var readers = ReaderSettings()
        /// The program that writes the demo library into the store (`pickerd-demo-library`): beside
        /// pickerd's own executable, else `/usr/libexec/pickerd/pickerd-demo-library`.
        public var demoLibraryExecutable = DemoSeeding.defaultExecutable()

        /// Creates a configuration.
        /// - Parameters:
        ///   - paths: where sockets, store and configuration live.
        ///   - limits: connections per socket and per app, and deadlines.
        ///   - agentExecutables: programs accepted as picker agents; by default `picker-agent` beside
        ///     pickerd's own executable.
        ///   - agentCommand: what to start when no agent is registered.
        ///   - agentStartTimeout: seconds a started agent has to register.
        ///   - clock: the time reminders follow (the system clock by default).
        ///   - terminalAgentCommand: what to start for a presentation with a terminal; by default
        ///     `picker-agent --tui` beside pickerd.
        ///   - developerMode: allow developers' builds without asking the person.
        ///   - desktopAgentCommand: what to start for a presentation without a terminal when there is
        ///     a display; by default `picker-gtk` beside pickerd.
        ///   - display: the person's display; by default from pickerd's environment.
        ///   - sessionBus: the session bus to follow media players on; none by default (`pickerd`
        ///     passes ``sessionBus(in:)`` unless told otherwise).
        ///   - listeningMinimumTrack: seconds below which a track never counts (30 by default).
        public init(paths: PickerdPaths, limits: ConnectionLimits = ConnectionLimits(), agentExecutables: [String]? = nil,
                    agentCommand: [String] = [], agentStartTimeout: Double = 15, clock: PickerdClock = PickerdClock(),
                    terminalAgentCommand: [String]? = nil, developerMode: Bool = false, desktopAgentCommand: [String]? = nil,
                    display: String?? = nil, sessionBus: String? = nil, listeningMinimumTrack: Double = 30) {
            self.developerMode = developerMode
            self.paths = paths
            self.limits = limits
            let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            let directory = URL(fileURLWithPath: own).deletingLastPathComponent()
            let sibling = directory.appendingPathComponent("picker-agent").path
            let desktop = directory.appendingPathComponent("picker-gtk").path
            self.agentExecutables = (agentExecutables ?? [sibling, desktop]).map(AppRegistry.canonical)
            self.agentCommand = agentCommand
            self.agentStartTimeout = agentStartTimeout
            self.clock = clock
            self.terminalAgentCommand = terminalAgentCommand ?? [sibling, "--tui"]
            self.desktopAgentCommand = desktopAgentCommand ?? (FileManager.default.isExecutableFile(atPath: desktop) ? [desktop] : [])
            self.display = display ?? Self.display(in: ProcessInfo.processInfo.environment)
            self.sessionBus = sessionBus
            self.listeningMinimumTrack = listeningMinimumTrack
        }

        /// The session bus `environment` names: `$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`
        /// when that socket exists (where systemd's user manager puts it); `nil` for neither.
        public static func sessionBus(in environment: [String: String]) -> String? {
            if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
            guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
                  FileManager.default.fileExists(atPath: runtime + "/bus") else { return nil }
            return "unix:path=\(runtime)/bus"
        }

        /// The display `environment` names: `$WAYLAND_DISPLAY`, else `$DISPLAY`; `nil` for neither.
        public static func display(in environment: [String: String]) -> String? {
            for name in ["WAYLAND_DISPLAY", "DISPLAY"] {
                if let value = environment[name], !value.isEmpty { return value }
            }
            return nil
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The confined readers every file of the person's is read through.
    let readers: ReaderPool
    /// The store.
    public let store: Store
    /// The app registry.
    public let registry: AppRegistry
    let logger: Logger
    let startedAt = Date()
    let builder = SuggestionBuilder()
    private let runtime: RuntimeDirectory
    private let loop: ConnectionLoop
    let sessions: SessionManager
    let reminders: ReminderScheduler
    let importer: ImportService
    let listening: ListeningService?
    private let shuttingDown = Atomic<Bool>(false)
    private let integrityFailed = Atomic<Bool>(false)
    /// The sockets served, and whether systemd handed each over (`pickerctl doctor` reports them).
    let servedSockets: [ServedSocket]
    /// Says once, in the log, that the library is empty and how to fill it.
    let firstRun = FirstRunNotice()

    /// Whether pickerd stopped because its store failed SQLite's integrity check while serving:
    /// `main` then salvages it (``Store/salvage(dataDirectory:problem:)``) and starts again.
    public var stoppedForDamagedStore: Bool { integrityFailed.load(ordering: .relaxed) }
    /// What the background check found, when it stopped pickerd.
    public var damage: String { damageFound.withLock { $0 } }
    private let damageFound = Mutex("")
    /// Whether systemd handed the sockets over (pickerd started by a connection to them).
    public var socketActivated: Bool { servedSockets.contains { $0.fromSystemd } }

    /// Prepares pickerd: takes the runtime directory, opens the store, binds the sockets.
    /// - Parameters:
    ///   - configuration: paths and limits.
    ///   - logger: where logs go.
    /// - Throws: ``BrokerError`` (another pickerd runs; a directory is unusable; a socket cannot be
    ///   bound) or ``StoreError`` (the store cannot be opened), each with one clear message.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        readers = ReaderPool(configuration: configuration.readers.poolConfiguration(timeZone: TimeZone.current.identifier), logger: logger)
        // Without its reader pickerd could read no file: every one would be recorded as unreadable.
        guard FileManager.default.isExecutableFile(atPath: readers.configuration.executable) else {
            throw BrokerError("cannot read files: \(readers.configuration.executable) is not there (pickerd-reader, installed with pickerd)")
        }
        runtime = try RuntimeDirectory(path: configuration.paths.runtimeDirectory)
        // The whole-file check runs once serving has begun (see run()): a large store starts at once.
        store = try Store(dataDirectory: configuration.paths.dataDirectory, integrityCheck: .inBackground)
        if let salvage = store.salvaged {
            Self.tell(salvage, logger: logger)
        } else if let copy = ProcessInfo.processInfo.environment[Self.salvagedVariable] {
            // Started again by the pickerd that salvaged its store while serving.
            unsetenv(Self.salvagedVariable)
            if let salvage = Store.salvageReports(in: store.dataDirectory).first(where: { $0.damagedCopy == copy }) { Self.tell(salvage, logger: logger) }
        }
        registry = AppRegistry(configDirectory: configuration.paths.configDirectory)
        // A store from before the moments engine (or one another tool filled) gets its moments, and
        // one an older engine built gets them again (the same library gives other moments now): in
        // the background once serving has begun (see run()), so no one waits seconds at a large
        // library's first start after an upgrade; the moments it has are served meanwhile.
        let builtBy = try store.suggestionsEngineVersion()
        staleMoments = try builtBy != MomentEngine.version && store.libraryRange() != nil ? .init(builtBy: builtBy) : nil
        var listeners: [(UnixListener, Role)] = []
        var served: [ServedSocket] = []
        let activated = SocketActivation.listeners()
        for (path, role) in [(configuration.paths.clientSocket, Role.client), (configuration.paths.agentSocket, .agent),
                             (configuration.paths.controlSocket, .control)] {
            if let (listener, activatedPath) = activated[role] {
                listeners.append((listener, role))
                served.append(ServedSocket(role: role, path: activatedPath, fromSystemd: true))
                logger.info("socket from systemd", metadata: ["role": "\(role)"])
                continue
            }
            runtime.removeStaleSocket(path)
            do {
                listeners.append((try UnixListener(path: path), role))
                served.append(ServedSocket(role: role, path: path, fromSystemd: false))
            } catch {
                throw BrokerError("cannot listen on \(path): \(error.message)")
            }
        }
        servedSockets = served
        Self.raiseDescriptorLimit()
        do {
            loop = try ConnectionLoop(listeners: listeners, limits: configuration.limits, logger: logger)
        } catch {
            throw BrokerError("cannot start serving: \(error)")
        }
        importer = ImportService(store: store, builder: builder, reading: readers, logger: logger)
        sessions = SessionManager(configuration: configuration, store: store, builder: builder, readers: readers, firstRun: firstRun,
                                  logger: logger)
        reminders = ReminderScheduler(logger: logger)
        if let bus = configuration.sessionBus {
            listening = ListeningService(address: bus, rules: ListeningRules(minimumTrack: .milliseconds(Int64(configuration.listeningMinimumTrack * 1000))),
                                         store: store, builder: builder, clock: configuration.clock, logger: logger)
        } else {
            listening = nil
        }
        reminders.attach(self)
    }

    /// Seeds the demo library into an empty store, reporting progress.
    /// - Parameter progress: called as seeding advances.
    /// - Returns: `nil` when the store already held a library (nothing was changed).
    /// - Throws: ``StoreError``, or ``DemoSeeding/ChildFailed`` when `pickerd-demo-library` could
    ///   not run or stopped without an answer.
    @discardableResult
    public func seedDemoIfEmpty(progress: (DemoSeeding.Progress) -> Void) throws -> DemoSeeding.Summary? {
        guard try store.itemCounts().isEmpty else { return nil }
        return try seedDemo(replace: false, progress: progress)
    }

    /// Has `pickerd-demo-library` write the demo library into the store, and waits for it.
    /// - Parameters:
    ///   - replace: wipe a library that is there first (else a store with items is refused).
    ///   - progress: called on this thread as seeding advances.
    /// - Returns: what was written.
    /// - Throws: ``StoreError`` (`.invalid` for a store with items and no `replace`; a write
    ///   failure), or ``DemoSeeding/ChildFailed``.
    @discardableResult
    func seedDemo(replace: Bool, progress: (DemoSeeding.Progress) -> Void) throws -> DemoSeeding.Summary {
        try DemoSeeding.run(executable: configuration.demoLibraryExecutable, dataDirectory: store.dataDirectory,
                            replace: replace, progress: progress)
    }

    /// Serves until ``shutdown()``.
    public func run() {
        logger.info("pickerd serving", metadata: ["runtime": "\(configuration.paths.runtimeDirectory)", "data": "\(store.dataDirectory)",
                                                  "display": "\(configuration.display ?? "none")",
                                                  "desktop picker": "\(configuration.desktopAgentCommand.joined(separator: " "))"])
        Thread.detachNewThread { [self] in
            // Nothing is released from a store that fails: pickerd stops serving, and main salvages
            // it and starts again on what could be read (never a stop for good, never a loop).
            if let problem = store.integrityProblem() {
                logger.critical("\(problem.message); pickerd moves it aside, salvages what it can read and starts again")
                damageFound.withLock { $0 = problem.message }
                integrityFailed.store(true, ordering: .relaxed)
                shutdown()
                return
            }
            // Only a store found sound is copied: a daily copy never replaces a good one with damage.
            keepDailyBackups()
        }
        if let staleMoments {
            Thread.detachNewThread { [self] in
                // Below serving: on a busy machine the person's presentations come first (on Linux
                // a nice value is a thread's, and `who` 0 is the calling thread).
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                rebuildStaleMoments(staleMoments)
            }
        }
        firstRun.sayAtStart(store: store, logger: logger)
        reminders.start()
        importer.start()
        listening?.start()
        loop.run(handler: self)
        truncateLog(afterDeletion: false)
        logger.info("pickerd stopped")
    }

    /// Moments an older engine built (or none built), to be built again once serving has begun.
    private let staleMoments: StaleMoments?
    private struct StaleMoments { let builtBy: Int? }

    /// Builds the library's moments again beside serving (``MomentEngine/rebuildAllWhileServing(built:)``),
    /// swapped in one transaction; a failure is logged, and the next start tries again.
    private func rebuildStaleMoments(_ stale: StaleMoments) {
        let started = Date()
        let engine = "\(stale.builtBy.map(String.init) ?? "none") → \(MomentEngine.version)"
        logger.info(stale.builtBy == nil ? "building the library's moments while serving" : "building the library's moments again while serving: the engine changed",
                    metadata: ["engine": "\(engine)"])
        do {
            let (count, again) = try MomentEngine(store: store, builder: builder).rebuildAllWhileServing()
            logger.info(stale.builtBy == nil ? "built the library's moments" : "built the library's moments again: the engine changed",
                        metadata: ["suggestions": "\(count)", "engine": "\(engine)", "windows refreshed meanwhile": "\(again)",
                                   "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))"])
        } catch {
            logger.error("the library's moments were not built again; the older ones are served, and the next start tries again",
                         metadata: ["error": "\(error)"])
        }
    }

    private let backupWriting = Mutex(())
    /// Wakes the daily backups' thread to stop.
    private let dailyWake = DispatchSemaphore(value: 0)

    /// pickerd's own copies of the person's decisions, in `<data-dir>/backups`: one a day (made at
    /// start when the newest is a day old), the two newest kept (`decisions-1.sqlite`, then
    /// `decisions-2.sqlite`), so a lost disk sector costs at most a day of them.
    private func keepDailyBackups() {
        let newest = store.dataDirectory + "/backups/decisions-1.sqlite"
        while !shuttingDown.load(ordering: .relaxed) {
            let made = (try? FileManager.default.attributesOfItem(atPath: newest))?[.modificationDate] as? Date
            if made.map({ Date().timeIntervalSince($0) >= 86_400 }) ?? true { writeDailyBackup(keepingOlder: true) }
            _ = dailyWake.wait(timeout: .now() + .seconds(3600))
        }
    }

    /// Writes today's copy of the decisions, the newest before it kept as the second when
    /// `keepingOlder`, else removed (after a deletion: what the person removed stays in no copy).
    private func writeDailyBackup(keepingOlder: Bool) {
        // One writer at a time (the daily thread, and a deletion's request).
        backupWriting.withLock { _ in writeDailyBackupAlone(keepingOlder: keepingOlder) }
    }

    private func writeDailyBackupAlone(keepingOlder: Bool) {
        let directory = store.dataDirectory + "/backups"
        let newest = directory + "/decisions-1.sqlite", older = directory + "/decisions-2.sqlite"
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Written whole first, then rotated: a kill or a full disk never costs the older copies.
            try store.backup(to: directory + "/decisions-0.sqlite", kind: .decisions)
            if keepingOlder, fm.fileExists(atPath: newest) { _ = rename(newest, older) } else { try? fm.removeItem(atPath: older) }
            _ = rename(directory + "/decisions-0.sqlite", newest)
            logger.info("copy of the decisions written", metadata: ["file": "\(newest)"])
        } catch {
            logger.warning("the copy of the decisions was not written", metadata: ["error": "\(error)"])
        }
    }

    /// The variable a pickerd that salvaged its store while serving sets for the one it `exec`s,
    /// naming the damaged copy, so the new one tells the person.
    public static let salvagedVariable = "PICKERD_SALVAGED"

    /// Tells the person what a salvage kept and lost: the log, and a desktop notification when a
    /// session bus is there (`pickerctl doctor` says it too, until the damaged copy is removed).
    static func tell(_ salvage: SalvageReport, logger: Logger) {
        logger.critical("the store was damaged and has been salvaged", metadata: [
            "problem": "\(salvage.problem)", "copy": "\(salvage.damagedCopy)",
            "kept": "\(salvage.keptDecisions)", "lost": "\(salvage.lostLines.joined(separator: "; "))"])
        let lost = salvage.lostAnything ? "Some rows could not be read: pickerctl doctor lists them." : "Nothing was lost."
        DesktopNotifier(logger: logger).notice(title: "pickerd repaired its store",
                                               body: "Its file was damaged. Kept: \(salvage.keptDecisions). \(lost) The damaged copy is at \(salvage.damagedCopy).")
    }

    /// Empties the store's write-ahead log (after a deletion, and when pickerd stops), so what was
    /// deleted stays in no file; a failure is logged, and the next deletion or stop tries again.
    /// After a deletion, pickerd's own copies of the decisions are written again for the same reason.
    func truncateLog(afterDeletion: Bool = true) {
        do {
            try store.truncateLog()
        } catch {
            logger.warning("the write-ahead log was not emptied", metadata: ["error": "\(error.message)"])
        }
        if afterDeletion, FileManager.default.fileExists(atPath: store.dataDirectory + "/backups/decisions-1.sqlite") {
            writeDailyBackup(keepingOlder: false)
        }
    }

    /// Stops accepting, closes every connection, and lets ``run()`` return. Safe to call from a
    /// signal handler's queue, and more than once.
    public func shutdown() {
        guard !shuttingDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        logger.info("pickerd shutting down", metadata: ["connections": "\(loop.openConnections.values.reduce(0, +))"])
        sessions.shutdown()
        dailyWake.signal()
        reminders.stop()
        importer.stop()
        readers.stop()
        listening?.stop()
        loop.stop()
    }

    /// Each connection, each app's share and every idle connection costs a descriptor: take the
    /// hard limit the system allows (systemd's default soft limit of 1024 would cap them early).
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The client role: present, close, configuration, donations.
    func handleClient(_ body: Envelope.Body, descriptors: [OwnedFileDescriptor], id: UInt64, connection: FrameConnection,
                              identity: PeerIdentity, logger: Logger) {
        switch body {
        case .present(let request):
            let app: AppManifest
            switch entitledApp(identity, key: EntitlementGate.journalAllowKey, logger: logger) {
            case .success(let entitled): app = entitled
            case .failure(let refused):
                reply(connection, id, .error(refused.info))
                return
            }
            let approval: AppApprovalRequest?
            do {
                approval = try approvalRequest(for: app)
                try store.recordPresentation(app.bundleId, timeMs: Date().unixMs)
            } catch {
                reply(connection, id, .error(ErrorInfo(code: .storage, message: "\(error)")))
                return
            }
            var terminal: OwnedFileDescriptor?
            if request.hasTerminal {
                // Only a real terminal is passed on to a picker (never, say, a file or a socket).
                guard descriptors.indices.contains(Int(request.terminalFdIndex)),
                      let fd = descriptors[Int(request.terminalFdIndex)].descriptor, isatty(fd.rawValue) == 1 else {
                    reply(connection, id, .error(ErrorInfo(code: .invalidArgument, message: "the descriptor handed over as a terminal is not one")))
                    return
                }
                // Invariant 13: and only one whose other end neither the app nor its sandbox holds.
                if let refusal = TerminalGuard.refusal(terminal: fd, caller: identity) {
                    logger.notice("terminal refused", metadata: ["reason": "\(refusal.detail)"])
                    reply(connection, id, .error(ErrorInfo(code: .permissionDenied, message: refusal.message)))
                    return
                }
                terminal = descriptors[Int(request.terminalFdIndex)]
            }
            if !request.parentWindow.isEmpty && !Self.isWindowHandle(request.parentWindow) {
                reply(connection, id, .error(ErrorInfo(code: .invalidArgument,
                                                       message: "parent_window is \"x11:<hex window id>\" or \"wayland:<exported handle>\"")))
                return
            }
            sessions.present(client: connection, requestID: id, app: app, request: request, terminal: terminal, approval: approval)
        case .close(let request):
            sessions.close(client: connection, requestID: id, handle: request.sessionHandle)
        case .configuration:
            let app = registry.app(for: identity)
            do {
                let configuration = NotificationPolicy.configuration(for: app, settings: try store.notificationSettings(),
                                                                     consentGiven: try store.consentDate() != nil)
                reply(connection, id, .configurationReply(configuration))
            } catch {
                reply(connection, id, .error(ErrorInfo(code: .storage, message: "\(error)")))
            }
        case .donation(let request):
            reply(connection, id, donate(request, descriptors: descriptors, identity: identity, logger: logger))
        case .withdrawDonations(let request):
            reply(connection, id, withdrawDonations(request, identity: identity, logger: logger))
        default:
            reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "\(ControlHandler.name(body)) is not a client request")))
        }
    }

    /// Whether `handle` is a window handle in xdg-desktop-portal's form: "x11:" and a hexadecimal
    /// window id, or "wayland:" and an exported handle (printable, at most 256 bytes).
    static func isWindowHandle(_ handle: String) -> Bool {
        if handle.hasPrefix("x11:") {
            let id = handle.dropFirst(4)
            return !id.isEmpty && id.count <= 16 && id.allSatisfy(\.isHexDigit) && UInt64(id, radix: 16) != 0
        }
        if handle.hasPrefix("wayland:") {
            let exported = handle.utf8.dropFirst(8)
            return !exported.isEmpty && exported.count <= 256 && exported.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        }
        return false
    }

    /// The agent role, once registered: the app's approval, consent, decisions, media for previews.
    func handleAgent(_ body: Envelope.Body, id: UInt64, connection: FrameConnection) {
        switch body {
        case .appApproval(let decision): sessions.approve(from: connection, requestID: id, decision)
        case .consentDecision(let decision): sessions.consent(from: connection, requestID: id, decision)
        case .reviewDecision(let decision): sessions.decide(from: connection, requestID: id, decision)
        case .fetchMedia(let request): sessions.fetchMedia(from: connection, requestID: id, request)
        case .cyclePrompt(let request): sessions.cyclePrompt(from: connection, requestID: id, request)
        case .suggestionsPage(let request): sessions.page(from: connection, requestID: id, request)
        case .hide(let request): sessions.hide(from: connection, requestID: id, request)
        case .unhide(let request): sessions.unhide(from: connection, requestID: id, request)
        case .namePlace(let request): sessions.namePlace(from: connection, requestID: id, request)
        case .agentRegister:
            reply(connection, id, .error(ErrorInfo(code: .invalidArgument, message: "this agent is already registered")))
        default:
            reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "\(ControlHandler.name(body)) is not an agent request")))
        }
    }

    func reply(_ connection: FrameConnection, _ id: UInt64, _ body: Envelope.Body) {
        Self.reply(connection, id, body, logger: logger)
    }

    /// Answers one request; a peer gone meanwhile is no failure, only logged.
    static func reply(_ connection: FrameConnection, _ id: UInt64, _ body: Envelope.Body, logger: Logger) {
        do {
            try connection.send(Envelope(requestId: id, body: body))
        } catch {
            logger.debug("reply not delivered", metadata: ["error": "\(error)"])
        }
    }

    /// pickerd's version.
    public static let version = "0.1.0"
}

extension Logger {
    func with(_ metadata: Logger.Metadata) -> Logger {
        var copy = self
        for (key, value) in metadata { copy[metadataKey: key] = value }
        return copy
    }
}
