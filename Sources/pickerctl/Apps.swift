import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The apps that may present the picker: installed by the system, Flatpaks, developers' builds.",
        discussion: """
            A system app (a root-owned manifest under $XDG_DATA_DIRS/pickerd/apps/) needs no registration. A \
            developer's build or a Flatpak registered here waits for your Allow in the picker at its first \
            presentation (pickerd --developer-mode skips that).
            """,
        subcommands: [List.self, Show.self, Register.self, Revoke.self, Remove.self])

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a developer's build, or a Flatpak by its app id (its entitlements must allow journaling suggestions).")
        @OptionGroup var connection: Connection
        @Option(help: "The app's executable.") var executable: String?
        @Option(help: "A Flatpak app's id (org.example.Journal), instead of an executable.") var flatpakAppId: String?
        @Option(help: "Its entitlements plist (Apple's format).") var entitlements: String
        @Option(help: "Its bundle id (default: local.<executable name>, or the Flatpak app id).") var bundleId: String = ""
        @Option(help: "The name the picker shows (default: the executable's name).") var name: String = ""
        @Option(help: "JSNotificationURLFormat, with {journaling-suggestion-id}.") var notificationUrlFormat: String = ""
        @Option(help: "How to launch it with a URL: argv, {url} replaced (e.g. \"journal-demo open-url {url}\").")
        var launchCommand: String = ""
        @Flag(help: "Record the executable's SHA-256: pickerd refuses the app if the file changes.") var pinHash = false

        func validate() throws {
            guard (executable == nil) != (flatpakAppId == nil) else { throw ValidationError("give --executable PATH or --flatpak-app-id ID (one of them)") }
        }

        func run() throws {
            var hash = ""
            if pinHash, let executable {
                guard let data = FileManager.default.contents(atPath: absolute(executable)) else {
                    fail("cannot read \(executable) to hash it", code: 2)
                }
                hash = SHA256.hex([UInt8](data))
            }
            let app = AppManifest(bundleId: bundleId, displayName: name, executablePath: executable.map(absolute) ?? "",
                                  executableSha256: hash, entitlementsPath: absolute(entitlements),
                                  notificationUrlFormat: notificationUrlFormat,
                                  launchCommand: launchCommand.split(separator: " ").map(String.init), flatpakAppId: flatpakAppId ?? "")
            guard case .appRegisterReply(let reply) = perform(try connection.open(), .appRegister(AppRegisterRequest(app: app))),
                  let stored = reply.app else { fail("unexpected reply", code: 1) }
            print("registered \(stored.bundleId) (\(stored.displayName)): \(stored.flatpakAppId.isEmpty ? stored.executablePath : "Flatpak " + stored.flatpakAppId)")
            if stored.state != .allowed {
                print("it waits for your Allow in the picker at its first presentation")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every app that may present or asks to: how pickerd knows it, its state, its last presentation.")
        @OptionGroup var connection: Connection
        func run() throws {
            guard case .appsListReply(let reply) = perform(try connection.open(), .appsList(AppsListRequest())) else {
                fail("unexpected reply", code: 1)
            }
            if reply.apps.isEmpty { print("no apps: none installed by the system, none registered") }
            for app in reply.apps { printApp(app, detailed: false) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One app, in full.")
        @OptionGroup var connection: Connection
        @Argument(help: "The app's bundle id.") var bundleId: String
        func run() throws {
            guard case .appsListReply(let reply) = perform(try connection.open(), .appShow(AppShowRequest(bundleId: bundleId))) else {
                fail("unexpected reply", code: 1)
            }
            for app in reply.apps { printApp(app, detailed: true) }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take back your Allow: the app is asked about again at its next presentation.")
        @OptionGroup var connection: Connection
        @Argument(help: "The app's bundle id.") var bundleId: String
        func run() throws {
            guard case .appsListReply(let reply) = perform(try connection.open(), .appRevoke(AppRevokeRequest(bundleId: bundleId))) else {
                fail("unexpected reply", code: 1)
            }
            for app in reply.apps { printApp(app, detailed: false) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a developer's or Flatpak registration.")
        @OptionGroup var connection: Connection
        @Argument(help: "The app's bundle id.") var bundleId: String
        func run() throws {
            _ = perform(try connection.open(), .appRemove(AppRemoveRequest(bundleId: bundleId)))
            print("removed \(bundleId)")
        }
    }
}

/// An app as `apps list` and `apps show` print it.
func printApp(_ app: AppManifest, detailed: Bool) {
    let kind = switch app.kind {
    case .system: "installed by the system"
    case .flatpak: "Flatpak \(app.flatpakAppId)"
    case .developer: "developer's build"
    default: "unknown"
    }
    let state = switch app.state {
    case .allowed: app.kind == .system ? "allowed" : app.approvedMs > 0 ? "allowed by you \(date(app.approvedMs))" : "allowed (developer mode)"
    case .pending: "waits for your Allow in the picker"
    case .revoked: "revoked by you: asked again at its next presentation"
    case .refused: "refused: \(app.problem)"
    default: "unknown"
    }
    print("\(app.bundleId)  \(app.displayName)  (\(kind))")
    print("    state:         \(state)")
    print("    presented:     \(app.lastPresentedMs > 0 ? date(app.lastPresentedMs) : "never")")
    if !app.executablePath.isEmpty {
        print("    executable:    \(app.executablePath)\(app.executableSha256.isEmpty ? "" : " (sha256 \(app.executableSha256.prefix(12))…)")")
    }
    if detailed || app.kind == .system { print("    manifest:      \(app.manifestPath)") }
    if detailed { print("    entitlements:  \(app.entitlementsPath)") }
    if !app.notificationUrlFormat.isEmpty { print("    notifications: \(app.notificationUrlFormat)") }
}
