// pickerd: the per-user Journaling Suggestions daemon. Runs in the foreground, logs to stderr.

import ArgumentParser
import CPickerdShims
import Foundation
import Glibc
import Logging
import PickerdBroker
import PickerdStore
import PickerdTransport

@main
struct PickerdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pickerd",
        abstract: "Holds a person's life data, shows journaling suggestions, and releases only what the person approves.",
        // The second line credits the data place names come from, as its licence (CC BY 4.0) asks.
        version: "\(Broker.version)\nPlace names: GeoNames (https://www.geonames.org/), CC BY 4.0")

    @Option(help: "Sockets and the instance lock (default: $XDG_RUNTIME_DIR/pickerd).")
    var runtimeDir: String?

    @Option(help: "The store (default: $XDG_DATA_HOME/pickerd).")
    var dataDir: String?

    @Option(help: "The app registry and settings (default: $XDG_CONFIG_HOME/pickerd).")
    var configDir: String?

    @Option(help: "A program accepted as a picker agent (repeatable; default: picker-agent beside pickerd).")
    var agentExecutable: [String] = []

    @Option(help: "What to start when an app presents and no picker agent is registered, e.g. \"picker-agent --script FILE\".")
    var agentCommand: String?

    @Option(help: "What to start when an app hands over its terminal (default: picker-agent --tui beside pickerd; \"\" for none).")
    var terminalAgentCommand: String?

    @Option(help: "What to start for a presentation without a terminal when the session has a display ($WAYLAND_DISPLAY or $DISPLAY) (default: picker-gtk beside pickerd; \"\" for none).")
    var desktopAgentCommand: String?

    @Flag(help: "Developers' builds and registered Flatpaks present without asking the person first, as Apple's development profiles allow (also: the file <config-dir>/developer-mode).")
    var developerMode = false

    @Flag(help: "Fill an empty store with the bundled demo library before serving.")
    var seedDemo = false

    @Flag(help: "Do not follow media players (MPRIS) on the session bus: no live record of what you listen to.")
    var noListening = false

    @Option(help: "The D-Bus session bus whose media players pickerd follows (default: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).")
    var sessionBus: String?

    @Option(help: ArgumentHelp("Seconds below which a track is never recorded as listened to (default 30). For tests.", visibility: .hidden))
    var listeningMinimumTrack: Double?

    @Option(help: ArgumentHelp("Start reminders' clock at this moment (ISO 8601, e.g. 2026-11-23T19:59:55-05:00); it runs on from there. For tests and demos.",
                               visibility: .hidden))
    var clockStart: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(help: ArgumentHelp("Seconds a new connection has to say hello (default 5).", visibility: .hidden))
    var helloTimeout: Double?

    @Option(help: ArgumentHelp("Seconds the rest of a frame may take once it has begun (default 10).", visibility: .hidden))
    var frameTimeout: Double?

    @Option(help: ArgumentHelp("Seconds an app connection may sit idle with nothing in progress (default 60).", visibility: .hidden))
    var idleTimeout: Double?

    @Option(help: ArgumentHelp("The most app connections at once, all apps together (default 1024).", visibility: .hidden))
    var maxAppConnections: Int?

    @Option(help: ArgumentHelp("The most connections one app (executable) may hold (default 16).", visibility: .hidden))
    var connectionsPerApp: Int?

    @Option(help: ArgumentHelp("The program that reads the person's files, confined (default: pickerd-reader beside pickerd, else /usr/libexec/pickerd/pickerd-reader).",
                               visibility: .hidden))
    var readerExecutable: String?

    @Option(help: ArgumentHelp("CPU seconds a file's reader may take, plus one per MiB of the file (default 30). For tests.", visibility: .hidden))
    var readerCpuSeconds: Double?

    @Option(help: ArgumentHelp("Resident memory past which a file's reader is killed, MiB (default 768). For tests.", visibility: .hidden))
    var readerMemoryMib: Int?

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        // Every file pickerd writes (store, settings, app manifests, previews, media copies) is the
        // person's alone whatever umask it was started with, as the user unit's UMask=0077 says.
        umask(0o077)
        // Two malloc arenas, not glibc's eight a core: memory one thread frees is then mostly reused
        // by the others (an import reads its next file on one thread while it writes on another,
        // a rebuild reads its next weeks while it builds). 1,000,000 Spotify plays: a peak of 92 MB
        // instead of 100, as fast. The person's own MALLOC_ARENA_MAX wins.
        _ = pickerd_limit_malloc_arenas(2)
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "pickerd")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info

        let broker: Broker
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDir, dataDirectory: dataDir, configDirectory: configDir)
            let command = agentCommand.map { $0.split(separator: " ").map(String.init) } ?? []
            var clock = PickerdClock()
            if let clockStart {
                guard let start = ISO8601DateFormatter().date(from: clockStart) else {
                    throw ValidationError("--clock-start '\(clockStart)' is not an ISO 8601 time like 2026-11-23T19:59:55-05:00")
                }
                clock = PickerdClock(startingAt: start)
            }
            var limits = ConnectionLimits()
            if let helloTimeout { limits.helloTimeout = .milliseconds(Int(helloTimeout * 1000)) }
            if let frameTimeout { limits.frameTimeout = .milliseconds(Int(frameTimeout * 1000)) }
            if let idleTimeout { limits.idleTimeout = .milliseconds(Int(idleTimeout * 1000)) }
            if let maxAppConnections { limits.clientConnections = maxAppConnections }
            if let connectionsPerApp { limits.connectionsPerCaller = connectionsPerApp }
            var configuration = Broker.Configuration(paths: paths, limits: limits, agentExecutables: agentExecutable.isEmpty ? nil : agentExecutable,
                                                     agentCommand: command, clock: clock,
                                                     terminalAgentCommand: terminalAgentCommand.map { $0.split(separator: " ").map(String.init) },
                                                     developerMode: developerMode,
                                                     desktopAgentCommand: desktopAgentCommand.map { $0.split(separator: " ").map(String.init) },
                                                     sessionBus: noListening ? nil : sessionBus ?? Broker.Configuration.sessionBus(in: ProcessInfo.processInfo.environment),
                                                     listeningMinimumTrack: listeningMinimumTrack ?? 30)
            configuration.readers.executable = readerExecutable
            if let readerCpuSeconds { configuration.readers.cpuSeconds = readerCpuSeconds }
            if let readerMemoryMib {
                configuration.readers.maxResidentMiB = readerMemoryMib
                configuration.readers.maxDataMiB = UInt64(max(readerMemoryMib, 64)) * 2
            }
            broker = try Broker(configuration: configuration, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("pickerd: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if seedDemo {
            let start = Date()
            var lastStage = ""
            do {
                let summary = try broker.seedDemoIfEmpty { progress in
                    if progress.stage != lastStage {
                        lastStage = progress.stage
                        FileHandle.standardError.write(Data("seeding: \(progress.stage) (\(progress.done)/\(progress.total) items)\n".utf8))
                    }
                }
                if let summary {
                    logger.info("seeded the demo library", metadata: [
                        "items": "\(summary.items)", "suggestions": "\(summary.suggestions)", "mediaFiles": "\(summary.mediaFiles)",
                        "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(start)))",
                        "bytes": "\(broker.store.diskUsage())"])
                } else {
                    logger.info("the store already holds a library; not seeding")
                }
            } catch {
                FileHandle.standardError.write(Data("pickerd: seeding failed: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
        let signals = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { broker.shutdown() }
            source.resume()
            return source
        }
        // The sources must outlive run(): an optimised build would otherwise release them at once.
        withExtendedLifetime(signals) { broker.run() }
        if broker.stoppedForDamagedStore { try restartSalvaged(broker, logger: logger) }
    }

    /// The background check found the store damaged and pickerd stopped serving: the store is moved
    /// aside and salvaged now, and pickerd starts again on the new one (the same process, `exec`ed
    /// with the same arguments; when systemd holds the sockets, it exits and the next connection
    /// starts it). The next start finds a sound store, or a salvage to finish: never a loop.
    func restartSalvaged(_ broker: Broker, logger: Logger) throws {
        do {
            // The next process tells the person (log, notification), once it serves again.
            if let report = try Store.salvage(dataDirectory: broker.store.dataDirectory, problem: broker.damage) {
                setenv(Broker.salvagedVariable, report.damagedCopy, 1)
            }
        } catch {
            FileHandle.standardError.write(Data("pickerd: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if broker.socketActivated {
            logger.notice("the store was salvaged; systemd starts pickerd again at the next connection")
            throw ExitCode(0)
        }
        logger.notice("the store was salvaged; pickerd starts again")
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        FileHandle.standardError.write(Data("pickerd: cannot start again (\(String(cString: strerror(errno)))): start it again by hand\n".utf8))
        throw ExitCode(1)
    }
}
