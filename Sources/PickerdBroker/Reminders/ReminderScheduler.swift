import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization

/// Fires journaling reminders on the person's schedule, records each, shows it on the desktop, and
/// opens it in the chosen app.
///
/// One thread looks at the clock, fires the reminder that fell due since it last looked, and sleeps
/// until the next one (at most a minute, so clock and settings changes are seen). What it has looked
/// at is a watermark in the store, moved in the same transaction that records the reminder; records
/// are keyed by their slot. So a restart repeats nothing (the slot is behind the watermark, and its id
/// is already there), and loses nothing: slots that fell due while pickerd was down are found on
/// start, and the latest of them fires (several missed reminders become one, as on a phone).
final class ReminderScheduler: Sendable {
    private let brokerReference = Mutex<Broker?>(nil)
    private var broker: Broker { brokerReference.withLock { $0! } }
    private let logger: Logger
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// One pass at a time (the thread's, or one a settings change asks for).
    private let passing = Mutex(())
    private let desktop: DesktopNotifier

    init(logger: Logger) {
        self.logger = logger
        desktop = DesktopNotifier(logger: logger)
    }

    /// Ties the scheduler to its broker (which owns it) once the broker is built.
    func attach(_ broker: Broker) {
        brokerReference.withLock { $0 = broker }
    }

    /// Starts the scheduler's thread.
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                let pause = pass()
                _ = wakeUp.wait(timeout: .now() + pause)
            }
        }
        thread.name = "pickerd-reminders"
        thread.start()
    }

    /// Before the settings change: handles what fell due under the old settings up to now, so the
    /// new ones apply from this moment on (a slot that passed while reminders were off stays quiet).
    func settingsWillChange() { _ = pass() }

    /// Looks again now (the settings changed).
    func wake() { wakeUp.signal() }

    /// Stops the scheduler's thread.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wakeUp.signal()
    }

    /// One look at the clock; returns the seconds to sleep.
    private func pass() -> TimeInterval {
        passing.withLock { _ in passOnce() }
    }

    private func passOnce() -> TimeInterval {
        let store = broker.store
        let now = broker.configuration.clock.now()
        do {
            let settings = try store.notificationSettings()
            let smart = NotificationPolicy.smartChoice(releaseTimes: try store.releaseTimes())
            let watermark = try store.reminderWatermark() ?? now.unixMs
            var reminder: NotificationRecord?
            if settings.enabled, watermark < now.unixMs,
               let due = NotificationPolicy.latestDue(settings: settings, smartMinute: smart.minute,
                                                      after: Date(unixMs: watermark), upTo: now) {
                reminder = try makeReminder(due: due, settings: settings)
            }
            // The watermark never moves back, even when the clock does.
            let mark = max(watermark, now.unixMs)
            if try store.advanceReminders(to: mark, firing: reminder), let reminder {
                logger.info("reminder fired", metadata: ["id": "\(reminder.id)", "suggestion": "\(reminder.suggestionId)"])
                desktop.show(reminder) { [self] in
                    if case .failure(let error) = open(id: reminder.id) {
                        logger.warning("cannot open the reminder", metadata: ["id": "\(reminder.id)", "error": "\(error.message)"])
                    }
                }
            }
            // What tests (and a curious person at --log-level debug) wait on: every slot up to here is settled.
            logger.debug("reminders checked up to \(Date(unixMs: mark).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))")
            // A clock set back behind the watermark: look again once it has caught up, when slots
            // are again the scheduler's to settle.
            let caughtUp = mark > now.unixMs ? Double(mark - now.unixMs) / 1000 + 0.02 : 60
            guard let next = NotificationPolicy.nextFire(settings: settings, smartMinute: smart.minute, now: Date(unixMs: mark)) else {
                return min(caughtUp, 60)
            }
            return min(max(next.timeIntervalSince(now) + 0.02, 0.02), caughtUp, 60)
        } catch {
            logger.error("the reminder scheduler cannot read or write the store", metadata: ["error": "\(error)"])
            return 60
        }
    }

    /// The reminder for the slot `due`: about the best suggestion the person has neither written about
    /// nor been reminded of, or a general one when there is none (or suggestions are off).
    private func makeReminder(due: Date, settings: NotificationSettings) throws -> NotificationRecord {
        let store = broker.store
        var suggestion: StoredSuggestion?
        if try store.consentDate() != nil {
            let done = try store.suggestionsReleasedOrReminded()
            let first = try broker.builder.firstPage(from: store, enabled: try store.enabledCategories(), now: due.unixMs, pageSize: 0)
            suggestion = first.recommended.first { !done.contains($0.suggestion.id.uuidString) }?.suggestion
        }
        let suggestionID = suggestion?.id.uuidString ?? ""
        let app = broker.registry.app(bundleID: settings.openWithBundleId)
        return NotificationRecord(
            id: NotificationPolicy.reminderID(for: due), suggestionId: suggestionID,
            title: "Journaling suggestion",
            body: suggestion.map { "\($0.title): add this moment to \(app?.displayName ?? "your journal")" }
                ?? "Take a moment to write about your day",
            firedAt: Timestamp(unixMs: due.unixMs), opened: false,
            url: app.map { NotificationPolicy.url(format: $0.notificationUrlFormat, suggestionID: suggestionID) } ?? "")
    }

    /// Opens a reminder: launches the app chosen to open reminders with the reminder's URL.
    /// - Parameter id: the reminder's id.
    /// - Returns: the URL, the app and the launched process id, or why it could not be opened.
    func open(id: String) -> Result<NotificationOpenReply, ReminderError> {
        let store = broker.store
        let record: NotificationRecord
        let settings: NotificationSettings
        do {
            guard let found = try store.notification(id: id) else { return .failure(ReminderError(.notFound, "no reminder \(id)")) }
            record = found
            settings = try store.notificationSettings()
        } catch {
            return .failure(ReminderError(.storage, error.message))
        }
        guard let app = broker.registry.app(bundleID: settings.openWithBundleId) else {
            return .failure(ReminderError(.failedPrecondition,
                                          "no app is chosen to open reminders (pickerctl notifications set --open-with BUNDLE-ID)"))
        }
        guard !app.notificationUrlFormat.isEmpty else {
            return .failure(ReminderError(.failedPrecondition, "\(app.bundleId) declares no JSNotificationURLFormat"))
        }
        guard !app.launchCommand.isEmpty, app.launchCommand.contains(where: { $0.contains("{url}") }) else {
            return .failure(ReminderError(.failedPrecondition, "\(app.bundleId)'s manifest says no launch command with {url}"))
        }
        let url = NotificationPolicy.url(format: app.notificationUrlFormat, suggestionID: record.suggestionId)
        let argv = app.launchCommand.map { $0.replacingOccurrences(of: "{url}", with: url) }
        guard let pid = Launcher.launch(argv, runtimeDirectory: broker.configuration.paths.runtimeDirectory,
                                        what: "\(app.bundleId) for reminder \(id)", logger: logger) else {
            return .failure(ReminderError(.internal, "cannot start \(argv[0])"))
        }
        do {
            try store.markNotificationOpened(id: id, url: url)
        } catch {
            logger.warning("cannot mark the reminder opened", metadata: ["id": "\(id)", "error": "\(error)"])
        }
        return .success(NotificationOpenReply(url: url, bundleId: app.bundleId, launchedPid: pid))
    }
}

/// Why a reminder could not be opened, with the wire's error code.
struct ReminderError: Error {
    let code: ErrorCode
    let message: String

    init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
