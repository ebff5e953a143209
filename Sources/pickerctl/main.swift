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
        subcommands: [Status.self, Doctor.self, Library.self, Sources.self, Import.self, Settings.self, Apps.self, Donations.self, Notifications.self, History.self, Places.self, Hidden.self, Backup.self, Restore.self, Export.self])
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

func date(_ ms: Int64) -> String {
    Date(timeIntervalSince1970: Double(ms) / 1000).formatted(date: .abbreviated, time: .shortened)
}
