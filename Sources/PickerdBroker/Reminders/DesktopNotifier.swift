import Foundation
import Logging
import PickerdWire

/// Shows a reminder on the person's desktop through the freedesktop notification service
/// (`org.freedesktop.Notifications` on the session bus), with an "Open" action.
///
/// It speaks to the service through libnotify's `notify-send --wait --action`, which stays until the
/// notification is closed and prints the action the person chose; choosing "Open" calls `onOpen`.
/// Without a session bus or `notify-send`, nothing is shown: the record (`pickerctl notifications
/// list`) is always there either way.
struct DesktopNotifier: Sendable {
    let logger: Logger

    /// The `notify-send` to use, when a session bus is there to talk to.
    private var notifySend: String? {
        let environment = ProcessInfo.processInfo.environment
        let bus = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["XDG_RUNTIME_DIR"].map { "unix:path=\($0)/bus" }.flatMap {
                FileManager.default.fileExists(atPath: String($0.dropFirst("unix:path=".count))) ? $0 : nil
            }
        guard bus != nil else { return nil }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/notify-send" }
        return path.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Shows a notice with no action (pickerd's own news, such as a repaired store); does not wait.
    func notice(title: String, body: String) {
        guard let program = notifySend else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--app-name=pickerd", "--icon=dialog-warning", "--", title, body]
        let logger = self.logger
        let thread = Thread {
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                logger.warning("cannot run notify-send", metadata: ["error": "\(error)"])
            }
        }
        thread.name = "pickerd-desktop-notice"
        thread.start()
    }

    /// Shows `reminder`; calls `onOpen` (on another thread) if the person chooses "Open".
    func show(_ reminder: NotificationRecord, onOpen: @escaping @Sendable () -> Void) {
        guard let program = notifySend else {
            logger.info("no desktop notification service; the reminder is in the list only", metadata: ["id": "\(reminder.id)"])
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--app-name=pickerd", "--icon=accessories-text-editor", "--wait", "--action=open=Open",
                             "--", reminder.title, reminder.body]
        let output = Pipe()
        process.standardOutput = output
        let logger = self.logger
        let thread = Thread {
            do {
                try process.run()
            } catch {
                logger.warning("cannot run notify-send", metadata: ["error": "\(error)"])
                return
            }
            let chosen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if chosen.split(whereSeparator: \.isNewline).contains("open") { onOpen() }
        }
        thread.name = "pickerd-desktop-notification"
        thread.start()
    }
}
