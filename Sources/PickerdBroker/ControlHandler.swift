import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire

/// Answers the control role's requests (pickerctl): status, settings, consent, history, library,
/// known places.
struct ControlHandler {
    let broker: Broker
    let connection: FrameConnection
    let requestID: UInt64
    let logger: Logger

    /// The reply to `body`, or `nil` when the reply was already sent.
    func handle(_ body: Envelope.Body) -> Envelope.Body? {
        do {
            return try answer(body)
        } catch let error as StoreError {
            logger.error("store failure", metadata: ["error": "\(error)"])
            return .error(ErrorInfo(code: error.code == .invalid ? .invalidArgument : error.code == .notFound ? .notFound : .storage,
                                    message: error.message))
        } catch {
            logger.error("request failed", metadata: ["error": "\(error)"])
            return .error(ErrorInfo(code: .internal, message: "\(error)"))
        }
    }

    private func answer(_ body: Envelope.Body) throws -> Envelope.Body? {
        let store = broker.store
        switch body {
        case .status(let request):
            let counts = try store.itemCounts()
            let configuration = broker.configuration
            var reply = StatusReply(
                protocolVersion: ProtocolVersion.current, softwareVersion: Broker.version, pid: getpid(),
                uptimeMs: UInt64(Date().timeIntervalSince(broker.startedAt) * 1000), activeSessions: UInt32(broker.sessions.activeSessions),
                registeredAgents: UInt32(broker.sessions.registeredAgents),
                consentGiven: try store.consentDate() != nil, dataDir: store.dataDirectory,
                itemCount: UInt64(counts.values.reduce(0, +)), suggestionCount: UInt64(try store.suggestionCount()),
                sourceCount: UInt32(try store.sources().count), scanning: broker.importer.scanning.map(Self.wire),
                sockets: broker.servedSockets, display: configuration.display ?? "",
                desktopAgentCommand: configuration.desktopAgentCommand, terminalAgentCommand: configuration.terminalAgentCommand,
                agentCommand: configuration.agentCommand, agentExecutables: configuration.agentExecutables,
                dataFreeBytes: Self.freeBytes(on: store.dataDirectory), runtimeDir: configuration.paths.runtimeDirectory,
                developerMode: broker.developerMode,
                salvages: Store.salvageReports(in: store.dataDirectory).map {
                    StoreSalvage(timeMs: $0.dateMs, problem: $0.problem, damagedCopy: $0.damagedCopy, kept: $0.keptDecisions, lost: $0.lostLines)
                })
            if request.checkStore {
                // Both read the whole store: only when asked (pickerctl doctor), never for status.
                reply.storeChecked = true
                reply.storeProblem = store.integrityProblem()?.message ?? ""
                reply.storeBytes = store.diskUsage()
            }
            return .statusReply(reply)
        case .settingsGet:
            return try settingsReply()
        case .settingsSet(let request):
            try store.setCategories(request.categories)
            logger.info("settings changed", metadata: ["categories": "\(request.categories.map { "\($0.category)=\($0.enabled)" })"])
            return try settingsReply()
        case .consentReset:
            try store.resetConsent()
            return try settingsReply()
        case .history(let request) where request.clear:
            let cleared = try store.clearHistory(bundleID: request.bundleId)
            broker.truncateLog()
            logger.info("history cleared by the person", metadata: ["app": "\(request.bundleId.isEmpty ? "every app" : request.bundleId)",
                                                                   "entries": "\(cleared)"])
            return .historyReply(HistoryReply(cleared: UInt32(clamping: cleared)))
        case .history(let request):
            let entries = try store.history(limit: Int(request.limit), bundleID: request.bundleId).map {
                HistoryEntry(id: $0.id, time: Timestamp(unixMs: $0.timeMs), bundleId: $0.bundleID, appDisplayName: $0.appName,
                             suggestionId: $0.suggestionID, title: $0.title, items: $0.items)
            }
            return .historyReply(HistoryReply(entries: entries))
        case .libraryStats:
            return .libraryStatsReply(try stats())
        case .librarySeedDemo(let request) where request.scalePhotos > 0:
            // Scale libraries are bench support, not part of pickerd (issue 31): written into a data
            // directory by the benchmarks' own tool while pickerd is not running.
            return .error(ErrorInfo(code: .invalidArgument, message: """
                pickerd no longer makes scale libraries: they are written by the benchmark tool now \
                (pickerd-scale-library DATA-DIR \(request.scalePhotos), while pickerd is stopped; then start pickerd on that data directory)
                """))
        case .librarySeedDemo(let request):
            let existing = try store.itemCounts().values.reduce(0, +)
            if existing > 0 && !request.replace {
                return .error(ErrorInfo(code: .invalidArgument,
                                        message: "the library already holds \(existing) items; seed with replace to start over"))
            }
            logger.info("seeding the demo library", metadata: ["replace": "\(request.replace)"])
            // pickerd-demo-library writes it (pickerd links no generator); a failure of that child is
            // this request's error, and pickerd serves on.
            try broker.seedDemo(replace: request.replace) { progress in
                broker.reply(connection, requestID, .seedProgress(SeedProgress(stage: progress.stage, done: UInt64(progress.done),
                                                                               total: UInt64(progress.total))))
            }
            return .libraryStatsReply(try stats())
        case .appsList:
            return .appsListReply(AppsListReply(apps: try broker.listedApps()))
        case .appShow(let request):
            guard let app = try broker.listedApps().first(where: { $0.bundleId == request.bundleId }) else {
                return .error(ErrorInfo(code: .notFound, message: "no app \(request.bundleId) is known (pickerctl apps list)"))
            }
            return .appsListReply(AppsListReply(apps: [app]))
        case .appRevoke(let request):
            guard broker.registry.app(bundleID: request.bundleId) != nil else {
                return .error(ErrorInfo(code: .notFound, message: "no app \(request.bundleId) is known (pickerctl apps list)"))
            }
            try store.revokeApp(request.bundleId, timeMs: Date().unixMs)
            logger.info("app revoked by the person", metadata: ["bundle": "\(request.bundleId)"])
            return .appsListReply(AppsListReply(apps: try broker.listedApps().filter { $0.bundleId == request.bundleId }))
        case .appRegister(let request):
            do throws(BrokerError) {
                let registered = try broker.registry.register(request.app ?? AppManifest())
                // The reply is the entry as stored and listed, never what the request claimed
                // (approved_ms, last_presented_ms and problem are not the registering process's to say).
                guard let app = (try? broker.listedApps())?.first(where: { $0.bundleId == registered.bundleId }) else {
                    return .error(ErrorInfo(code: .storage, message: "\(registered.bundleId) was registered but cannot be read back"))
                }
                logger.info("app registered", metadata: ["bundle": "\(app.bundleId)", "executable": "\(app.executablePath)",
                                                         "flatpak": "\(app.flatpakAppId)", "state": "\(app.state)"])
                return .appRegisterReply(AppRegisterReply(app: app))
            } catch {
                return .error(ErrorInfo(code: .invalidArgument, message: error.message))
            }
        case .appRemove(let request):
            guard broker.registry.remove(bundleID: request.bundleId) else {
                let system = broker.registry.app(bundleID: request.bundleId)?.kind == .system
                return .error(ErrorInfo(code: system ? .invalidArgument : .notFound,
                                        message: system ? "\(request.bundleId) is installed by the system: revoke it instead (pickerctl apps revoke \(request.bundleId))"
                                                        : "no app \(request.bundleId) is registered"))
            }
            return .ack(Ack())
        case .notificationsGet:
            return .notificationsReply(try notificationsReply())
        case .notificationsSet(let request):
            let settings = request.settings ?? NotificationSettings()
            if let problem = NotificationPolicy.validate(settings, apps: broker.registry.apps()) {
                return .error(ErrorInfo(code: .invalidArgument, message: problem))
            }
            broker.reminders.settingsWillChange()
            try store.setNotificationSettings(settings)
            broker.reminders.wake()
            return .notificationsReply(try notificationsReply())
        case .notificationsList(let request):
            return .notificationsListReply(NotificationsListReply(notifications: try store.notifications(limit: Int(request.limit))))
        case .notificationOpen(let request):
            switch broker.reminders.open(id: request.id) {
            case .success(let reply): return .notificationOpenReply(reply)
            case .failure(let error): return .error(ErrorInfo(code: error.code, message: error.message))
            }
        case .sourcesList:
            return try sourcesList()
        case .sourcesAdd(let request):
            return try sourcesAdd(request)
        case .sourcesRemove(let request):
            return try sourcesRemove(request)
        case .sourcesRescan(let request):
            return try sourcesRescan(request)
        case .importRequest(let request):
            return try importExports(request)
        case .donationsList(let request):
            return try donationsList(request)
        case .donationsRemove(let request):
            return try donationsRemove(request)
        case .places(let request):
            return try places(request)
        case .placesSet(let request):
            return try placesSet(request)
        case .placesUnset(let request):
            return try placesUnset(request)
        case .hiddenList:
            return try hiddenReply(changed: nil)
        case .hiddenAdd(let request):
            return try hiddenAdd(request)
        case .hiddenRemove(let request):
            return try hiddenRemove(request)
        case .backup(let request):
            return try backup(request)
        case .restore(let request):
            return try restore(request)
        case .exportRequest(let request):
            return try export(request)
        case .hello:
            return .error(ErrorInfo(code: .invalidArgument, message: "hello was already exchanged"))
        default:
            return .error(ErrorInfo(code: .wrongRole, message: "\(Self.name(body)) is not a control request"))
        }
    }

    private func notificationsReply() throws -> NotificationsReply {
        let store = broker.store
        let settings = try store.notificationSettings()
        let smart = NotificationPolicy.smartChoice(releaseTimes: try store.releaseTimes())
        let next = NotificationPolicy.nextFire(settings: settings, smartMinute: smart.minute, now: broker.configuration.clock.now())
        return NotificationsReply(
            settings: settings,
            eligibleBundleIds: broker.registry.apps().filter { !$0.notificationUrlFormat.isEmpty }.map(\.bundleId),
            nextFire: next.map { Timestamp(unixMs: $0.unixMs) },
            smartMinuteOfDay: smart.minute, smartExplanation: smart.why,
            effectiveSchedule: !settings.enabled ? .off : settings.mode == .custom ? .custom : .smart)
    }

    private func settingsReply() throws -> Envelope.Body {
        let store = broker.store
        return .settingsReply(SettingsReply(categories: try store.categorySettings(), consentGiven: try store.consentDate() != nil,
                                            consentDate: try store.consentDate().map { Timestamp(unixMs: $0) },
                                            privacyBannerDismissed: try store.privacyBannerDismissed()))
    }

    /// Counts per asset kind, and the suggestions as the picker would list them now.
    private func stats() throws -> LibraryStatsReply {
        let store = broker.store
        let counts = try store.itemCounts()
        let enabled = try store.enabledCategories()
        let first = try broker.builder.firstPage(from: store, enabled: enabled, now: broker.configuration.clock.now().unixMs, pageSize: 1)
        return LibraryStatsReply(
            counts: AssetKind.allCases.map { AssetCount(kind: $0.rawValue, count: UInt64(counts[$0] ?? 0)) },
            suggestionCount: UInt64(try store.suggestionCount()),
            largestSuggestionSize: UInt64(try store.largestSuggestionSize(enabled: Store.mask(enabled))),
            recommendedCount: UInt64(first.recommended.count), recentCount: UInt64(first.recentTotal))
    }

    /// Free space for an unprivileged writer on the filesystem holding `path` (`statvfs(3)`'s
    /// `f_bavail`), in bytes; 0 when it cannot be read.
    static func freeBytes(on path: String) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    static func name(_ body: Envelope.Body) -> String { String(String(describing: body).prefix { $0 != "(" }) }
}
