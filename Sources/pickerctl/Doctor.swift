// pickerctl doctor: what a person runs when something is off. One line per check, ✓ or ✗, and
// under each problem the command that fixes it.

import ArgumentParser
import Foundation
import Glibc
import PickerKit
import PickerdTransport
import PickerdWire
import Synchronization

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check pickerd and what it needs; for each problem, the command that fixes it.",
        discussion: """
            Checks that pickerd answers, where its sockets come from (systemd or pickerd itself), the store \
            (size, SQLite's integrity check, free disk space), the library, sources and their last scans, \
            the display and the pickers, and the apps. Exit status: 0 nothing wrong, 1 a problem was found, \
            3 pickerd cannot be reached.
            """)
    @OptionGroup var connection: Connection

    /// Below this much free space on the store's filesystem, pickerd cannot be trusted to write.
    static let lowDisk: UInt64 = 100 << 20

    func run() throws {
        var report = Report()
        let paths: PickerdPaths
        do {
            paths = try PickerdPaths.resolve(runtimeDirectory: connection.runtimeDir)
        } catch {
            report.problem("cannot tell where pickerd's sockets are: \(error)",
                           fixes: [("give it", "pickerctl doctor --runtime-dir DIR")])
            report.end(unreachable: true)
        }
        let socket = paths.controlSocket
        let fixes = unreachableFixes(paths)
        // A socket systemd holds for a pickerd that will not start accepts and then never answers.
        let watchdog = Watchdog(after: 15) {
            var late = Report()
            late.problem("pickerd accepted the connection at \(socket) but did not answer within 15 s", fixes: fixes)
            late.end(unreachable: true)
        }
        let client: ProtocolClient
        let status: StatusReply
        do {
            client = try ProtocolClient(path: socket, role: .control, software: "pickerctl doctor")
            guard case .statusReply(let reply)? = try client.request(.status(StatusRequest())).envelope.body else {
                throw ProtocolClient.RemoteError(code: .internal, message: "pickerd did not answer the status request with its status")
            }
            status = reply
        } catch let error as TransportError {
            watchdog.cancel()
            report.problem("pickerd does not answer: \(error.message)", fixes: fixes)
            report.end(unreachable: true)
        } catch {
            watchdog.cancel()
            report.problem("pickerd at \(socket) refused: \(error)", fixes: fixes)
            report.end(unreachable: true)
        }
        watchdog.cancel()
        report.ok("pickerd \(status.softwareVersion) answers at \(socket) (pid \(status.pid), up \(Self.duration(status.uptimeMs / 1000)))")
        checkSockets(status, &report)

        // What needs pickerd's answers beyond the status; each request that fails is its own problem.
        func ask<T>(_ what: String, _ body: Envelope.Body, _ extract: (Envelope.Body) -> T?) -> T? {
            do {
                if let reply = try client.request(body).envelope.body, let value = extract(reply) { return value }
                report.problem("pickerd did not answer the request for \(what)", fixes: [])
            } catch {
                report.problem("pickerd could not say \(what): \(error)", fixes: [])
            }
            return nil
        }
        let checked = ask("the store's health", .status(StatusRequest(checkStore: true))) { if case .statusReply(let r) = $0 { r } else { nil } }
        checkStore(checked ?? status, &report)
        let sources = ask("its sources", .sourcesList(SourcesListRequest())) { if case .sourcesListReply(let r) = $0 { r } else { nil } }
        let settings = ask("its settings", .settingsGet(SettingsGetRequest())) { if case .settingsReply(let r) = $0 { r } else { nil } }
        checkLibrary(status, sources, settings, &report)
        checkPickers(status, &report)
        if let apps = ask("the apps", .appsList(AppsListRequest()), { if case .appsListReply(let r) = $0 { r } else { nil } }) {
            checkApps(apps.apps, developerMode: status.developerMode, &report)
        }
        client.close()
        report.end(unreachable: false)
    }

    /// What to do when pickerd does not answer: start it through systemd, see why it stopped, or run it.
    func unreachableFixes(_ paths: PickerdPaths) -> [(String, String)] {
        var fixes = [("start it", "systemctl --user start pickerd.socket"),
                     ("see why", "systemctl --user status pickerd; journalctl --user -u pickerd"),
                     ("by hand", "pickerd" + (connection.runtimeDir.map { " --runtime-dir \($0)" } ?? ""))]
        if Self.unitFile("pickerd.socket") == nil {
            fixes.append(("", "(no pickerd.socket unit is installed yet: Documentation/user-guide.md, 'As a user service', says how to install the units)"))
        }
        return fixes
    }

    /// Where systemd's user manager would find `unit`, if anywhere.
    static func unitFile(_ unit: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let home = NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let directories = [config + "/systemd/user", "/etc/systemd/user", data + "/systemd/user", "/usr/local/lib/systemd/user",
                           "/usr/lib/systemd/user", "/lib/systemd/user"]
        return directories.map { $0 + "/" + unit }.first { FileManager.default.fileExists(atPath: $0) }
    }

    // MARK: Checks

    func checkSockets(_ status: StatusReply, _ report: inout Report) {
        guard !status.sockets.isEmpty else { return }
        func names(_ sockets: [ServedSocket]) -> String {
            let directories = Set(sockets.map { ($0.path as NSString).deletingLastPathComponent })
            if directories.count == 1, let directory = directories.first {
                return sockets.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", ") + " in \(directory)"
            }
            return sockets.map(\.path).joined(separator: ", ")
        }
        let fromSystemd = status.sockets.filter(\.fromSystemd)
        let bound = status.sockets.filter { !$0.fromSystemd }
        if !fromSystemd.isEmpty { report.ok("sockets handed over by systemd (socket activation): \(names(fromSystemd))") }
        if !bound.isEmpty { report.ok("sockets bound by pickerd itself (not socket-activated): \(names(bound))") }
    }

    func checkStore(_ status: StatusReply, _ report: inout Report) {
        let data = status.dataDir
        let size = status.storeChecked ? "\(Self.bytes(status.storeBytes)), " : ""
        let counts = "\(status.itemCount) items, \(status.suggestionCount) suggestions"
        if !status.storeChecked {
            report.ok("store \(data): \(counts)")
        } else if status.storeProblem.isEmpty {
            report.ok("store \(data): \(size)\(counts); SQLite's integrity check finds it sound")
        } else {
            report.problem("store \(data): \(status.storeProblem)", fixes: [
                ("salvage", "systemctl --user restart pickerd (pickerd moves the damaged store aside and keeps what it can read)"),
            ])
        }
        // A salvage is news until the person has seen it and removed the damaged copy.
        for salvage in status.salvages {
            report.problem("store \(data) was damaged (\(salvage.problem)) and salvaged on \(date(salvage.timeMs)): kept \(salvage.kept)",
                           fixes: salvage.lost.map { ("lost", $0) } + [
                               ("damaged copy", salvage.damagedCopy),
                               ("when done", "rm \(salvage.damagedCopy) \(salvage.damagedCopy)-wal \(salvage.damagedCopy).salvage.json"),
                           ])
        }
        if status.dataFreeBytes < Self.lowDisk {
            report.problem("only \(Self.bytes(status.dataFreeBytes)) free on the filesystem of \(data): pickerd cannot index or record releases",
                           fixes: [("see", "df -h \(data); du -xsh \(NSHomeDirectory())/* | sort -h | tail")])
        } else {
            report.ok("disk: \(Self.bytes(status.dataFreeBytes)) free where the store is")
        }
    }

    func checkLibrary(_ status: StatusReply, _ sources: SourcesListReply?, _ settings: SettingsReply?, _ report: inout Report) {
        let scanning = sources?.scanning ?? status.scanning
        if status.suggestionCount == 0 {
            if scanning.isEmpty {
                var fixes = (sources?.offered ?? []).map { ("add", "pickerctl sources add \($0)") }
                fixes.append(("or the demo", "pickerctl library seed-demo"))
                report.problem(PickerWords.emptyLibrary, fixes: fixes)
            } else {
                report.ok("no suggestions yet: pickerd is indexing")
            }
        }
        for progress in scanning { report.ok("indexing " + describe(progress)) }
        if let sources {
            // (With an empty library, the line above already says how to add them.)
            if sources.sources.isEmpty && status.suggestionCount > 0 { report.ok("sources: none (your photos: pickerctl sources add ~/Pictures)") }
            for source in sources.sources {
                let scanned = source.lastScanMs > 0 ? "last scanned \(date(source.lastScanMs))" : "not scanned yet"
                let line = "source \(source.path): \(source.indexed) photos and videos, \(scanned)"
                let beingScanned = scanning.contains { $0.source == source.path }
                if !source.problem.isEmpty {
                    report.problem("\(line): \(source.problem)", fixes: [
                        ("look again", "pickerctl sources rescan \(source.path)"),
                        ("or drop it", "pickerctl sources remove \(source.path)"),
                    ])
                } else if source.lastScanMs == 0 && !beingScanned {
                    report.problem(line, fixes: [("scan it", "pickerctl sources rescan \(source.path)")])
                } else {
                    report.ok(line + (source.watched ? ", watched" : ""))
                }
            }
        }
        if let settings {
            let off = settings.categories.filter { !$0.enabled }.map { $0.category.settingName }
            let consent = settings.consentGiven ? "consent given" : "consent not yet given (the picker asks first)"
            if !settings.categories.isEmpty && off.count == settings.categories.count {
                report.problem("every category is off: the picker shows no suggestion", fixes: [("turn one on", "pickerctl settings set photos on")])
            } else if off.isEmpty {
                report.ok("every category on; \(consent)")
            } else {
                report.ok("categories off: \(off.joined(separator: ", ")) (pickerctl settings set \(off[0]) on); \(consent)")
            }
        }
    }

    func checkPickers(_ status: StatusReply, _ report: inout Report) {
        // The display pickerd reads when it starts: a service has it only once the session gave it
        // to systemd's user manager.
        let displayFixes = [("fix", "systemctl --user import-environment DISPLAY WAYLAND_DISPLAY"),
                            ("then", "systemctl --user restart pickerd")]
        let environment = ProcessInfo.processInfo.environment
        let here = ["WAYLAND_DISPLAY", "DISPLAY"].compactMap { environment[$0].flatMap { $0.isEmpty ? nil : $0 } }.first
        if status.display.isEmpty {
            report.problem("no display known to pickerd (it reads DISPLAY or WAYLAND_DISPLAY when it starts): an app without a terminal cannot show the desktop picker",
                           fixes: displayFixes)
        } else if let here, here != status.display {
            report.problem("pickerd shows the desktop picker on \(status.display) (read when it started), but this session's display is \(here)",
                           fixes: displayFixes)
        } else {
            report.ok("display \(status.display) for the desktop picker")
        }

        let accepted = Set(status.agentExecutables.map(Self.canonical))
        var pickers: [[String]] = []
        func check(_ command: [String], _ what: String, missing: String?) {
            guard let program = command.first else {
                if let missing { report.problem(missing, fixes: [("install it there, or", "pickerd --\(what)-agent-command PATH")]) }
                return
            }
            if !FileManager.default.isExecutableFile(atPath: program) {
                report.problem("the \(what) picker pickerd starts, \(program), is not there", fixes: [
                    ("from a build", "install -m 755 .build/release/\((program as NSString).lastPathComponent) \((program as NSString).deletingLastPathComponent)/"),
                ])
            } else if what != "general", !accepted.contains(Self.canonical(program)) {
                report.problem("pickerd starts \(program) as its \(what) picker but does not accept it as a picker agent",
                               fixes: [("accept it", "pickerd --agent-executable \(program)")])
            } else {
                pickers.append(command + ["(\(what))"])
            }
        }
        let expectedGTK = status.agentExecutables.first { $0.hasSuffix("/picker-gtk") }
        check(status.terminalAgentCommand, "terminal", missing: nil)
        check(status.desktopAgentCommand, "desktop",
              missing: "no desktop picker: picker-gtk is not \(expectedGTK.map { "at \($0)" } ?? "beside pickerd")")
        if !status.agentCommand.isEmpty { check(status.agentCommand, "general", missing: nil) }
        // Said once for all when they share a folder (beside pickerd).
        let folders = Set(pickers.map { ($0[0] as NSString).deletingLastPathComponent })
        if folders.count == 1, let folder = folders.first {
            let named = pickers.map { ([($0[0] as NSString).lastPathComponent] + $0.dropFirst()).joined(separator: " ") }
            report.ok("pickers where pickerd expects them, in \(folder): " + named.joined(separator: ", "))
        } else if !pickers.isEmpty {
            report.ok("pickers where pickerd expects them: " + pickers.map { $0.joined(separator: " ") }.joined(separator: ", "))
        }
    }

    func checkApps(_ apps: [AppManifest], developerMode: Bool, _ report: inout Report) {
        if developerMode {
            report.ok("developer mode: developers' builds present without your Allow (pickerd --developer-mode, or the file developer-mode)")
        }
        if apps.isEmpty {
            report.problem("no app may present: none installed by the system, none registered", fixes: [
                ("register one", "pickerctl apps register --executable PATH --entitlements FILE"),
            ])
        }
        for app in apps {
            let kind = switch app.kind {
            case .system: "installed by the system"
            case .flatpak: "Flatpak"
            case .developer: "developer's build"
            default: "unknown kind"
            }
            let name = "app \(app.displayName) (\(app.bundleId), \(kind))"
            switch app.state {
            case .allowed: report.ok("\(name): allowed")
            case .pending: report.ok("\(name): waits for your Allow, which the picker asks at its first presentation")
            case .revoked: report.ok("\(name): revoked by you; the picker asks again at its next presentation")
            case .refused:
                var fixes = [("see why", "pickerctl apps show \(app.bundleId)")]
                if app.kind != .system { fixes.append(("or drop it", "pickerctl apps remove \(app.bundleId)")) }
                report.problem("\(name): refused: \(app.problem)", fixes: fixes)
            default: report.ok("\(name): \(app.state)")
            }
        }
    }

    // MARK: Words

    /// "3.2 MB": bytes in powers of 1000, as `df -H` counts them.
    static func bytes(_ count: UInt64) -> String {
        let units = ["bytes", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    /// "3 min", "2 h 5 min", "4 s".
    static func duration(_ seconds: UInt64) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) d \(seconds % 86_400 / 3600) h"
    }

    /// The file a path names, its links followed (as pickerd compares agent executables).
    static func canonical(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
}

/// What doctor found: each check's line, and the problems counted for the exit status.
struct Report {
    private var problems = 0

    /// A check that passed.
    mutating func ok(_ line: String) { print("✓ " + line) }

    /// A problem, and under it each command that fixes it, labelled.
    /// - Parameters:
    ///   - line: what is wrong.
    ///   - fixes: (what it does, the command).
    mutating func problem(_ line: String, fixes: [(String, String)]) {
        problems += 1
        print("✗ " + line)
        let width = fixes.map(\.0.count).max() ?? 0
        for (label, command) in fixes {
            // An empty label: a note under the commands.
            print("    " + (label.isEmpty ? "" : (label + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0) + " ") + command)
        }
    }

    /// Ends the program: 3 when pickerd cannot be reached, 1 when a problem was found, else 0.
    func end(unreachable: Bool) -> Never {
        if unreachable { Foundation.exit(3) }
        print(problems == 0 ? "nothing wrong found" : "\(problems) problem\(problems == 1 ? "" : "s") found (the lines marked ✗)")
        Foundation.exit(problems == 0 ? 0 : 1)
    }
}

/// Runs `body` on another thread after `seconds` unless cancelled first.
final class Watchdog: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init(after seconds: Double, _ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            if !cancelled.load(ordering: .acquiring) { body() }
        }
    }

    func cancel() { cancelled.store(true, ordering: .releasing) }
}
