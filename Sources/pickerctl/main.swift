// pickerctl: talks to pickerd over its control socket. Every failure is one line on stderr and a
// non-zero exit: 1 when pickerd refused or failed, 2 for a wrong argument, 3 when pickerd cannot be
// reached.

import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

@main
struct Pickerctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pickerctl",
        abstract: "Control pickerd: status, the library, settings, known places, what is hidden and the release history.",
        discussion: "Exit status: 0 done, 1 pickerd refused or failed, 2 wrong argument, 3 pickerd unreachable.",
        subcommands: [Status.self, Doctor.self, Library.self, Sources.self, Import.self, Settings.self, Apps.self, Donations.self, Notifications.self, History.self, Places.self, Hidden.self])
}

struct Connection: ParsableArguments {
    @Option(help: "pickerd's runtime directory (default: $XDG_RUNTIME_DIR/pickerd).")
    var runtimeDir: String?

    func open() throws -> ProtocolClient {
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDir)
            return try ProtocolClient(path: paths.controlSocket, role: .control, software: "pickerctl")
        } catch let error as TransportError {
            fail(error.message, code: 3)
        } catch {
            fail("\(error)", code: error is ProtocolClient.RemoteError ? 1 : 3)
        }
    }
}

/// Prints one line on stderr and exits.
func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("pickerctl: \(message)\n".utf8))
    Foundation.exit(code)
}

/// Runs one request; a refusal or failure ends the program with one line.
func perform(_ client: ProtocolClient, _ body: Envelope.Body, isFinal: (Envelope.Body) -> Bool = { _ in true },
             onEvent: (Envelope.Body) -> Void = { _ in }) -> Envelope.Body {
    do {
        guard let reply = try client.request(body, isFinal: isFinal, onEvent: onEvent).envelope.body else {
            fail("pickerd sent an empty reply", code: 1)
        }
        return reply
    } catch let error as ProtocolClient.RemoteError {
        fail(error.message, code: 1)
    } catch let error as TransportError {
        fail(error.message, code: 3)
    } catch {
        fail("\(error)", code: 3)
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Whether pickerd answers, and what it holds (exit 0 when it answers).")
    @OptionGroup var connection: Connection

    func run() throws {
        let client = try connection.open()
        guard case .statusReply(let s) = perform(client, .status(StatusRequest())) else { fail("unexpected reply", code: 1) }
        print("""
            pickerd \(s.softwareVersion) (protocol \(s.protocolVersion)), pid \(s.pid), up \(s.uptimeMs / 1000) s
            store: \(s.dataDir)
            library: \(s.itemCount) items, \(s.suggestionCount) suggestions
            consent: \(s.consentGiven ? "given" : "not yet given")
            sessions: \(s.activeSessions) active, \(s.registeredAgents) picker agents
            sources: \(s.sourceCount) folder\(s.sourceCount == 1 ? "" : "s") (pickerctl sources list)
            """)
        for p in s.scanning { print("indexing: " + describe(p)) }
    }
}

/// One line for a scan's progress: "/home/ana/Pictures: reading 1200/5400 files, 850 files/s, about 5 s left".
func describe(_ p: ScanProgress) -> String {
    switch p.stage {
    case "walking": return "\(p.source): listing folders, \(p.seen) files found"
    case "reading":
        let eta = p.etaSeconds >= 0 ? ", about \(Int(p.etaSeconds.rounded(.up))) s left" : ""
        return "\(p.source): reading \(p.read)/\(p.toRead) new or changed files of \(p.seen), \(Int(p.filesPerSecond)) files/s\(eta)"
    case "moments": return "\(p.source): building moments"
    default: return "\(p.source): \(p.stage)"
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import exports: location history, workouts, listening, moods, contacts, calendars (files or folders; the kind is read from each file's content).",
        discussion: """
            Google Takeout (Records.json, Semantic Location History, Timeline.json), OwnTracks .rec files, GPX, \
            TCX, FIT and .fit.gz; Strava and Garmin export folders; ListenBrainz and Last.fm listening \
            history; Daylio moods; vCard contacts; iCalendar (.ics) events. Each file is imported whole or \
            not at all; the same workout, visit or listen from two exports is imported once.
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "Files or folders.") var paths: [String]

    func run() throws {
        let client = try connection.open()
        let reply = perform(client, .importRequest(ImportRequest(paths: paths.map(absolute))),
                            isFinal: { if case .importProgress = $0 { false } else { true } },
                            onEvent: { event in
                                guard case .importProgress(let p) = event else { return }
                                let points = p.points > 0 ? ", \(p.points) points" : ""
                                FileHandle.standardError.write(Data("importing \(p.filesDone + 1)/\(p.filesTotal): \(p.file)\(points)\n".utf8))
                            })
        guard case .importReply(let r) = reply else { fail("unexpected reply", code: 1) }
        // A file the person named must import something: one that was refused, is no export, or
        // held nothing fails the command (a file found in a folder or an archive that is no export
        // is named with what it is and left alone).
        let named = Set(paths.map(absolute))
        var failed = false
        var skipped = 0
        for file in r.files {
            if file.kind.isEmpty {
                if named.contains(file.file) {
                    failed = true
                    print("\(file.file): not imported: \(file.error.isEmpty ? "not an export pickerd reads" : file.error)")
                } else {
                    skipped += 1
                    if !file.error.isEmpty { print("\(file.file): left alone: \(file.error)") }
                }
                continue
            }
            if !file.error.isEmpty {
                failed = true
                print("\(file.file): not imported: \(file.error)")
                continue
            }
            var parts: [String] = []
            if file.workouts > 0 { parts.append("\(file.workouts) workout\(file.workouts == 1 ? "" : "s")") }
            if file.visits > 0 { parts.append("\(file.visits) visit\(file.visits == 1 ? "" : "s")") }
            if file.points > 0 { parts.append("\(file.points) points") }
            for count in file.counts where count.count > 0 { parts.append("\(count.count) \(count.what)") }
            if file.duplicates > 0 { parts.append("\(file.duplicates) already imported") }
            // What was left out of it (`events left out (…)`) is no import.
            let held = parts.filter { !$0.contains("left out") }
            if held.isEmpty, named.contains(file.file) {
                failed = true
                print("\(file.file) (\(file.kind)): not imported: " + (parts.isEmpty ? "the file holds nothing to import" : parts.joined(separator: ", ")))
                continue
            }
            print("\(file.file) (\(file.kind)): \(parts.isEmpty ? "nothing to import" : parts.joined(separator: ", "))")
        }
        if skipped > 0 { print("\(skipped) file\(skipped == 1 ? "" : "s") not recognised as an export, left alone") }
        print("\(r.itemsAdded) items added; the library has \(r.suggestionCount) suggestions")
        if failed { Foundation.exit(1) }
    }
}

struct Sources: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Folders of your own photos and videos, which pickerd indexes where they are and watches.",
        discussion: "pickerd keeps a reference and the metadata (dates, places, cameras); the files stay yours and where they are.",
        subcommands: [List.self, Add.self, Remove.self, Rescan.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The sources, what they hold, and the folders offered.")
        @OptionGroup var connection: Connection

        func run() throws {
            let client = try connection.open()
            guard case .sourcesListReply(let reply) = perform(client, .sourcesList(SourcesListRequest())) else { fail("unexpected reply", code: 1) }
            printSources(reply)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a folder and index it (waits, showing progress, unless --no-wait).")
        @OptionGroup var connection: Connection
        @Argument(help: "The folder.") var path: String
        @Flag(help: "Return at once; the scan goes on in pickerd (pickerctl status shows it).") var noWait = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .sourcesAdd(SourcesAddRequest(path: absolute(path), wait: !noWait)),
                                isFinal: { if case .scanProgress = $0 { false } else { true } }, onEvent: showProgress)
            guard case .sourcesListReply(let list) = reply else { fail("unexpected reply", code: 1) }
            printSources(list)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a source: its items leave the library and every suggestion; the files stay.")
        @OptionGroup var connection: Connection
        @Argument(help: "The folder.") var path: String

        func run() throws {
            let client = try connection.open()
            guard case .sourcesListReply(let list) = perform(client, .sourcesRemove(SourcesRemoveRequest(path: absolute(path)))) else {
                fail("unexpected reply", code: 1)
            }
            printSources(list)
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look at every source (or one) again, showing progress.")
        @OptionGroup var connection: Connection
        @Argument(help: "One source (default: every source).") var path: String?
        @Flag(help: "Return at once; the scan goes on in pickerd.") var noWait = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .sourcesRescan(SourcesRescanRequest(path: path.map(absolute) ?? "", wait: !noWait)),
                                isFinal: { if case .scanProgress = $0 { false } else { true } }, onEvent: showProgress)
            guard case .sourcesListReply(let list) = reply else { fail("unexpected reply", code: 1) }
            printSources(list)
        }
    }
}

/// A path as the person typed it, made absolute against the current directory.
func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    if path == "~" || path.hasPrefix("~/") { return NSHomeDirectory() + path.dropFirst() }
    return FileManager.default.currentDirectoryPath + "/" + path
}

/// Progress on stderr, at most every half second (and each stage's first line).
nonisolated(unsafe) private var lastProgress: (stage: String, at: Date) = ("", .distantPast)
func showProgress(_ event: Envelope.Body) {
    guard case .scanProgress(let p) = event else { return }
    guard p.stage != lastProgress.stage || Date().timeIntervalSince(lastProgress.at) >= 0.5 else { return }
    lastProgress = (p.stage, Date())
    FileHandle.standardError.write(Data((describe(p) + "\n").utf8))
}

func printSources(_ reply: SourcesListReply) {
    for s in reply.summaries {
        if !s.error.isEmpty {
            print("\(s.source): scan stopped: \(s.error)")
            continue
        }
        print(String(format: "%@: %llu files in %.1f s: %llu new, %llu changed, %llu moved, %llu gone, %llu skipped, %llu Live Photos",
                     s.source, s.seen, s.seconds, s.added, s.changed, s.moved, s.removed, s.skipped, s.livePhotos))
        for example in s.skippedExamples { print("  skipped \(example)") }
    }
    if reply.sources.isEmpty { print("no sources yet") }
    for source in reply.sources {
        let scanned = source.lastScanMs > 0
            ? "last scanned \(date(source.lastScanMs))"
            : "not scanned yet"
        print("\(source.path)")
        // The reasons are pickerd's words (a pickerd before them sends none: then the count alone).
        let keptOut = source.notMemories == 0 ? "" : source.notMemoryReasons.isEmpty
            ? " (\(source.notMemories) kept out of suggestions)"
            : " (\(source.notMemories) kept out of suggestions: \(source.notMemoryReasons.joined(separator: ", ")))"
        print("  \(source.indexed) photos and videos indexed\(keptOut), \(source.skipped) files skipped")
        print("  \(scanned); \(source.watched ? "watched for changes" : "not watched")")
        if !source.problem.isEmpty { print("  problem: \(source.problem)") }
    }
    for p in reply.scanning { print("indexing: " + describe(p)) }
    for folder in reply.offered { print("offered: \(folder) (pickerctl sources add \(folder))") }
}

struct Library: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The person's library.", subcommands: [SeedDemo.self, Stats.self])

    struct SeedDemo: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "seed-demo", abstract: "Fill the store with the demo library.",
                                                        discussion: """
            The bundled sixteen days. A scale library (N made-up photos and videos over years, for benchmarks and
            tests) is not pickerd's to make: the benchmarks write one with pickerd-scale-library DATA-DIR N while
            pickerd is stopped (see Tools/bench-scale).
            """)
        @OptionGroup var connection: Connection
        @Flag(help: "Replace a library that is already there.")
        var replace = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .librarySeedDemo(LibrarySeedDemoRequest(replace: replace)),
                                isFinal: { if case .seedProgress = $0 { false } else { true } },
                                onEvent: { event in
                                    if case .seedProgress(let p) = event {
                                        FileHandle.standardError.write(Data("seeding: \(p.stage) (\(p.done)/\(p.total) items)\n".utf8))
                                    }
                                })
            guard case .libraryStatsReply(let stats) = reply else { fail("unexpected reply", code: 1) }
            printStats(stats)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Items per asset type and the suggestions as the picker lists them.")
        @OptionGroup var connection: Connection

        func run() throws {
            let client = try connection.open()
            guard case .libraryStatsReply(let stats) = perform(client, .libraryStats(LibraryStatsRequest())) else {
                fail("unexpected reply", code: 1)
            }
            printStats(stats)
        }
    }
}

func printStats(_ stats: LibraryStatsReply) {
    let width = stats.counts.map(\.kind.count).max() ?? 0
    for count in stats.counts {
        print(count.kind.padding(toLength: width, withPad: " ", startingAt: 0), String(format: "%6d", count.count))
    }
    print("items: \(stats.counts.map(\.count).reduce(0, +))")
    print("suggestions: \(stats.suggestionCount) (recommended \(stats.recommendedCount), recent \(stats.recentCount))")
    print("largest suggestion: \(stats.largestSuggestionSize) items")
}

/// The categories by the names people type.
enum CategoryName {
    static let names: [(String, PickerdWire.Category)] = PickerdWire.Category.settable.map { ($0.settingName, $0) }
    static func name(_ category: PickerdWire.Category) -> String { category.settingName }
    static func parse(_ text: String) -> PickerdWire.Category? {
        let key = text.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: " ", with: "-")
        if key == "locations" { return .significantLocations }
        return names.first { $0.0 == key }?.1
    }
}

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Suggestion categories.", subcommands: [Get.self, Set.self])

    static func show(_ reply: Envelope.Body) {
        guard case .settingsReply(let s) = reply else { fail("unexpected reply", code: 1) }
        for setting in s.categories {
            print(CategoryName.name(setting.category).padding(toLength: 22, withPad: " ", startingAt: 0), setting.enabled ? "on" : "off")
        }
        print("consent".padding(toLength: 22, withPad: " ", startingAt: 0), s.consentGiven ? "given" : "not yet given")
        print("privacy banner".padding(toLength: 22, withPad: " ", startingAt: 0), s.privacyBannerDismissed ? "dismissed" : "shown")
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every category and whether it is on.")
        @OptionGroup var connection: Connection
        func run() throws {
            Settings.show(perform(try connection.open(), .settingsGet(SettingsGetRequest())))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a category on or off.",
            discussion: "CATEGORY: \(CategoryName.names.map(\.0).joined(separator: ", ")).")
        @OptionGroup var connection: Connection
        @Argument(help: "The category.") var category: String
        @Argument(help: "on or off.") var value: String

        func run() throws {
            guard let parsed = CategoryName.parse(category) else {
                fail("unknown category '\(category)' (one of: \(CategoryName.names.map(\.0).joined(separator: ", ")))", code: 2)
            }
            let enabled: Bool
            switch value.lowercased() {
            case "on", "true", "yes", "1": enabled = true
            case "off", "false", "no", "0": enabled = false
            default: fail("'\(value)' is neither on nor off", code: 2)
            }
            Settings.show(perform(try connection.open(),
                                  .settingsSet(SettingsSetRequest(categories: [CategorySetting(category: parsed, enabled: enabled)]))))
        }
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What was released to which app, when (newest first); clear it.",
                                                    subcommands: [List.self, Clear.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What was released to which app, when (newest first).")
        @OptionGroup var connection: Connection
        @Option(help: "Show at most this many releases.") var limit: UInt32 = 0
        @Option(help: "Only this app's releases.") var app: String = ""

        func run() throws {
            guard case .historyReply(let history) = perform(try connection.open(), .history(HistoryRequest(limit: limit, bundleId: app))) else {
                fail("unexpected reply", code: 1)
            }
            if history.entries.isEmpty { print("nothing has been released yet") }
            let formatter = ISO8601DateFormatter()
            for entry in history.entries {
                let when = formatter.string(from: Date(unixMs: entry.time?.unixMs ?? 0))
                print("\(when)  \(entry.appDisplayName) (\(entry.bundleId)): \"\(entry.title)\", \(entry.items.count) items")
                for item in entry.items { print("    \(item.kind): \(item.summary)") }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the history of releases (every app's, or one app's); nothing of it stays in pickerd's files.")
        @OptionGroup var connection: Connection
        @Option(help: "Only this app's releases.") var app: String = ""

        func run() throws {
            guard case .historyReply(let reply) = perform(try connection.open(), .history(HistoryRequest(bundleId: app, clear: true))) else {
                fail("unexpected reply", code: 1)
            }
            print("deleted \(reply.cleared) release\(reply.cleared == 1 ? "" : "s") from the history\(app.isEmpty ? "" : " of \(app)")")
        }
    }
}

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

struct Donations: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What apps donated (media, moods): see it, and remove any of it.",
        discussion: """
            Apps with the org.pickerd.journal.donations entitlement donate media they played and moods the \
            person logged; donations appear in your suggestions unless the app excluded them. Removing one \
            takes it out of every suggestion and every release from now on. Apps never see this list.
            """,
        subcommands: [List.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Donations, newest first: the app, what, when, and whether the app excluded it.")
        @OptionGroup var connection: Connection
        @Option(help: "Only this app's donations.") var app: String = ""
        @Option(help: "Show at most this many.") var limit: UInt32 = 0
        func run() throws {
            guard case .donationsListReply(let reply) = perform(try connection.open(), .donationsList(DonationsListRequest(bundleId: app, limit: limit))) else {
                fail("unexpected reply", code: 1)
            }
            if reply.donations.isEmpty { print(app.isEmpty ? "no app has donated anything" : "\(app) has donated nothing") }
            for d in reply.donations {
                let who = d.appName.isEmpty ? d.bundleId : "\(d.appName) (\(d.bundleId))"
                print("\(d.itemId)  \(date(d.dateMs))  \(who)  \(d.kind): \(d.summary)\(d.excluded ? "  [excluded from suggestions]" : "")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove donations by their ids (from donations list), or every donation of an app.")
        @OptionGroup var connection: Connection
        @Option(help: "Every donation of this app (with no ids), or only ids of this app.") var app: String = ""
        @Argument(help: "Donation ids, as donations list shows them.") var ids: [String] = []
        func validate() throws {
            guard !ids.isEmpty || !app.isEmpty else { throw ValidationError("give donation ids, or --app BUNDLE-ID for all of an app's") }
        }
        func run() throws {
            guard case .donationsRemoveReply(let reply) = perform(try connection.open(), .donationsRemove(DonationsRemoveRequest(itemIds: ids, bundleId: app))) else {
                fail("unexpected reply", code: 1)
            }
            print("removed \(reply.removed) donation\(reply.removed == 1 ? "" : "s")")
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

func date(_ ms: Int64) -> String {
    Date(timeIntervalSince1970: Double(ms) / 1000).formatted(date: .abbreviated, time: .shortened)
}

struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Journaling reminders: on or off, smart or custom, and which app opens them.",
                                                    subcommands: [Get.self, Set.self, List.self, Open.self])

    static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    static func show(_ reply: Envelope.Body) {
        guard case .notificationsReply(let r) = reply, let s = r.settings else { fail("unexpected reply", code: 1) }
        func time(_ minute: UInt32) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
        print("notifications  \(s.enabled ? "on" : "off")")
        print("schedule       \(s.mode == .custom ? "custom" : "smart") (apps see: \(r.effectiveSchedule))")
        if s.mode == .custom {
            print("times          " + s.slots.map { "\(days[Int($0.weekday) - 1]) \(time($0.minuteOfDay))" }.joined(separator: ", "))
        } else {
            print("smart time     \(time(r.smartMinuteOfDay)): \(r.smartExplanation)")
        }
        if let next = r.nextFire {
            print("next reminder  \(ISO8601DateFormatter().string(from: Date(unixMs: next.unixMs)))")
        }
        print("open with      \(s.openWithBundleId.isEmpty ? "(no app chosen)" : s.openWithBundleId)")
        print("can open them  \(r.eligibleBundleIds.isEmpty ? "(no registered app declares JSNotificationURLFormat)" : r.eligibleBundleIds.joined(separator: ", "))")
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the reminder settings and what the smart schedule chose, and why.")
        @OptionGroup var connection: Connection
        func run() throws {
            Notifications.show(perform(try connection.open(), .notificationsGet(NotificationsGetRequest())))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the reminder settings (what is not given stays).")
        @OptionGroup var connection: Connection
        @Option(help: "on or off.") var enabled: String?
        @Option(help: "smart or custom.") var schedule: String?
        @Option(help: "A custom time, \"DAY HH:MM\" (mon … sun); repeat for more. Replaces the custom times.") var time: [String] = []
        @Option(help: "The app that opens reminders (a bundle id; \"none\" for no app).") var openWith: String?

        func run() throws {
            let client = try connection.open()
            guard case .notificationsReply(let current) = perform(client, .notificationsGet(NotificationsGetRequest())),
                  var settings = current.settings else { fail("unexpected reply", code: 1) }
            if let enabled {
                switch enabled.lowercased() {
                case "on": settings.enabled = true
                case "off": settings.enabled = false
                default: fail("'\(enabled)' is neither on nor off", code: 2)
                }
            }
            if let schedule {
                switch schedule.lowercased() {
                case "smart": settings.mode = .smart
                case "custom": settings.mode = .custom
                default: fail("'\(schedule)' is neither smart nor custom", code: 2)
                }
            }
            if !time.isEmpty {
                settings.slots = time.map { text in
                    let parts = text.lowercased().split(separator: " ")
                    let clock = parts.count == 2 ? parts[1].split(separator: ":").compactMap { UInt32($0) } : []
                    guard parts.count == 2, let day = Notifications.days.firstIndex(of: String(parts[0].prefix(3))), clock.count == 2,
                          clock[0] < 24, clock[1] < 60 else { fail("'\(text)' is not a time like \"mon 20:30\"", code: 2) }
                    return ReminderSlot(weekday: UInt32(day + 1), minuteOfDay: clock[0] * 60 + clock[1])
                }
            }
            if let openWith { settings.openWithBundleId = openWith == "none" ? "" : openWith }
            Notifications.show(perform(client, .notificationsSet(NotificationsSetRequest(settings: settings))))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The reminders that fired, newest first.")
        @OptionGroup var connection: Connection
        @Option(help: "Show at most this many (0: all).") var limit: UInt32 = 0
        func run() throws {
            guard case .notificationsListReply(let reply) = perform(try connection.open(), .notificationsList(NotificationsListRequest(limit: limit))) else {
                fail("unexpected reply", code: 1)
            }
            if reply.notifications.isEmpty { print("no reminders yet") }
            for record in reply.notifications {
                let fired = ISO8601DateFormatter().string(from: Date(unixMs: record.firedAt?.unixMs ?? 0))
                print("\(record.id)  \(fired)  \(record.opened ? "opened" : "new   ")  \(record.title): \(record.body)")
                print("    suggestion \(record.suggestionId.isEmpty ? "(general reminder)" : record.suggestionId)\(record.url.isEmpty ? "" : "  url \(record.url)")")
            }
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open a reminder: start the chosen app with its URL.")
        @OptionGroup var connection: Connection
        @Argument(help: "The reminder's id (from `pickerctl notifications list`).") var id: String
        func run() throws {
            guard case .notificationOpenReply(let reply) = perform(try connection.open(), .notificationOpen(NotificationOpenRequest(id: id))) else {
                fail("unexpected reply", code: 1)
            }
            print("opened \(id) with \(reply.bundleId) (pid \(reply.launchedPid)): \(reply.url)")
        }
    }
}
