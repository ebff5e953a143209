import PickerdTransport
import PickerdWire

/// The journaling reminders as this app sees them (Apple's `JournalingSuggestionsConfiguration`).
///
/// Unlike Apple's, it also says *why* the schedule is ``NotificationSchedule/off``.
public struct JournalingSuggestionsConfiguration: Sendable, Hashable {
    /// When reminders come.
    public enum NotificationSchedule: Sendable, Hashable {
        /// At a time the system picks from the person's routine.
        case smart
        /// At days and times the person set.
        case custom
        /// Not for this app (see ``JournalingSuggestionsConfiguration/offReasons``).
        case off
    }

    /// Why the schedule is off for this app.
    public enum OffReason: Sendable, Hashable {
        /// The person has not turned journaling suggestions on.
        case suggestionsOff
        /// Another app (or none) is chosen to open reminders.
        case notTheChosenApp
        /// The person turned reminders off.
        case notificationsOff
        /// This app declares no `JSNotificationURLFormat`.
        case noNotificationURLFormat
    }

    /// The schedule.
    public var notificationSchedule: NotificationSchedule
    /// Every reason it is off; empty unless it is.
    public var offReasons: [OffReason]

    /// Reads the configuration from pickerd.
    /// - Parameter runtimeDirectory: pickerd's runtime directory (default: `$XDG_RUNTIME_DIR/pickerd`).
    /// - Returns: the configuration.
    /// - Throws: ``JournalingSuggestionsError``.
    public static func current(runtimeDirectory: String? = nil) async throws(JournalingSuggestionsError) -> JournalingSuggestionsConfiguration {
        let reply: ConfigurationReply
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDirectory)
            let client = try ProtocolClient(path: paths.clientSocket, role: .client, software: "JournalingSuggestions")
            defer { client.close() }
            guard case .configurationReply(let r)? = try client.request(.configuration(ConfigurationRequest())).envelope.body else {
                throw JournalingSuggestionsError(code: .failed, message: "pickerd sent no configuration")
            }
            reply = r
        } catch let error as JournalingSuggestionsError {
            throw error
        } catch {
            throw JournalingSuggestionsPicker.map(error)
        }
        let reasons: [OffReason] = reply.offCauses.compactMap {
            switch $0 {
            case .suggestionsOff: .suggestionsOff
            case .notChosenApp: .notTheChosenApp
            case .notificationsOff: .notificationsOff
            case .noUrlFormat: .noNotificationURLFormat
            default: nil
            }
        }
        let schedule: NotificationSchedule = switch reply.schedule {
        case .smart: .smart
        case .custom: .custom
        default: .off
        }
        return JournalingSuggestionsConfiguration(notificationSchedule: schedule, offReasons: reasons)
    }
}
