import Foundation
import Glibc
import PickerdTestKit
import Testing

/// Apps that are not written in Swift (issue 33): the client-side invariants, what an app can and
/// cannot get, checked through libjournalingsuggestions-1 (Clients/c) as two more caller kinds.
/// `c-library`: a C app on the host (`js-conformance-client`), registered by its executable.
/// `python`: a Python app through GObject introspection (`Clients/c/tests/conformance-client.py`),
/// in a bubblewrap sandbox as the Flatpak it is registered as (a script is known by its sandbox's
/// app id: the interpreter's path would name every script). Each prints, as JSON lines, every
/// text, field and media byte the library handed it, which is what the audits read.
enum LibraryCaller: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case cLibrary = "c-library", python
    var testDescription: String { rawValue }

    /// What the history calls the app.
    var historyName: String {
        switch self {
        case .cLibrary: "Conformance C (org.conformance.c)"
        case .python: "Conformance Python (\(LibraryWorld.pythonAppID))"
        }
    }
}

/// The C library, built once for the run with Tools/build-clients (out of tree, warning-free).
enum ClientLibraryBuild {
    static let directory: Result<String, any Error> = Result {
        // The package root: the test bundle sits in <root>/.build/<triple>/debug.
        var root = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Tools/build-clients").path), root.path != "/" {
            root = root.deletingLastPathComponent()
        }
        let build = root.appendingPathComponent(".build-clients").path
        let result = try runCommand(root.appendingPathComponent("Tools/build-clients"), [build])
        guard result.status == 0 else { throw BuildFailed(message: result.stderr) }
        return build
    }
    static var source: String { URL(fileURLWithPath: (try? directory.get()) ?? "/").deletingLastPathComponent().path + "/Clients/c" }
    struct BuildFailed: Error, CustomStringConvertible { var message: String; var description: String { "Tools/build-clients: \(message)" } }
}

/// A World (the demo library, the scripted agent) with the C app and the Python Flatpak registered.
final class LibraryWorld {
    let world: World
    let build: String
    var pickerd: RunningPickerd { world.pickerd }
    static let pythonAppID = "org.conformance.Python"
    var cClient: String { build + "/js-conformance-client" }
    var unentitledC: String { pickerd.root + "/unentitled-js-client" }
    var pythonClient: String { ClientLibraryBuild.source + "/tests/conformance-client.py" }

    init(script: String) throws {
        build = try ClientLibraryBuild.directory.get()
        world = try World(script: script)
        let plist = pickerd.root + "/allowed.plist"
        for arguments in [["--executable", cClient, "--bundle-id", "org.conformance.c", "--name", "Conformance C"],
                          ["--flatpak-app-id", Self.pythonAppID, "--name", "Conformance Python"]] {
            let registered = try pickerd.ctl(["apps", "register", "--entitlements", plist] + arguments)
            precondition(registered.status == 0, registered.stderr)
        }
        try FileManager.default.copyItem(atPath: cClient, toPath: unentitledC)
    }

    /// Runs `mode` through the library as `caller`; `entitled: false` runs an app pickerd does not
    /// know (an unregistered copy of the C app; the Python app in a Flatpak of another id).
    func run(_ caller: LibraryCaller, _ mode: String, _ extra: String? = nil, entitled: Bool = true) throws -> [[String: Any]] {
        let (executable, arguments, environment) = command(caller, [mode] + (extra.map { [$0] } ?? []), entitled: entitled)
        return jsonLines(try runCommand(executable, arguments, environment: environment).stdout)
    }

    /// How `caller` runs the client with `arguments`.
    func command(_ caller: LibraryCaller, _ arguments: [String], entitled: Bool = true) -> (URL, [String], [String: String]) {
        switch caller {
        case .cLibrary:
            // The library by its path (the build's RUNPATH is relative to the build, not to a copy).
            return (URL(fileURLWithPath: entitled ? cClient : unentitledC), [pickerd.runtime] + arguments, ["LD_LIBRARY_PATH": build])
        case .python:
            let sandbox = clientSandbox(program: pythonClient, socket: pickerd.runtime + "/client.sock",
                                        flatpakAppID: entitled ? Self.pythonAppID : "org.conformance.UnknownPython", in: pickerd.root)
                + ["--ro-bind", build, build, "--setenv", "GI_TYPELIB_PATH", build, "--setenv", "LD_LIBRARY_PATH", build]
            return (URL(fileURLWithPath: "/usr/bin/bwrap"), sandbox + ["/usr/bin/python3", pythonClient, "/run/pickerd"] + arguments, [:])
        }
    }
}

/// Records and asserts one row of the conformance table, as `check` does for the other callers.
func checkLibrary(_ invariant: Int, _ caller: LibraryCaller, _ body: () throws -> (Bool, String)) {
    var passed = false, why = ""
    do {
        (passed, why) = try body()
        #expect(passed, "invariant \(invariant), \(caller.rawValue): \(why)")
    } catch {
        why = "\(error)"
        Issue.record("invariant \(invariant), \(caller.rawValue): \(error)")
    }
    guard let path = ProcessInfo.processInfo.environment["PICKERD_CONFORMANCE_REPORT"], !path.isEmpty else { return }
    let row = "\(invariant)\t\(caller.rawValue)\t\(passed ? "pass" : "FAIL")\t\(why.replacingOccurrences(of: "\n", with: " "))\n"
    if let handle = FileHandle(forWritingAtPath: path) {
        handle.seekToEndOfFile()
        handle.write(Data(row.utf8))
        try? handle.close()
    } else {
        _ = FileManager.default.createFile(atPath: path, contents: Data(row.utf8))
    }
}

@Suite("Privacy conformance through the C library and Python (issue 33)", .serialized)
struct ClientLibraryConformance {
    /// The invariants these callers are checked on (Tools/conformance counts their rows).
    static let invariants = [1, 2, 3, 5, 6, 8, 10, 12, 20]

    @Test("1. no entitlement: notEntitled, no UI, zero data", arguments: LibraryCaller.allCases)
    func noEntitlement(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{}]}"#)
        checkLibrary(1, caller) {
            let lines = try world.run(caller, "present", entitled: false)
            let onlyError = lines.count == 1 && lines[0]["event"] as? String == "error" && lines[0]["code"] as? String == "notEntitled"
            let noUI = !world.pickerd.logText.contains("review for") && !world.pickerd.logText.contains("started a picker agent")
            return (onlyError && noUI, "the library gave \(lines.map { $0["code"] ?? $0["result"] ?? "?" }), ui shown: \(!noUI)")
        }
    }

    @Test("2. only approved items reach the app (canary audit of all the library gives)", arguments: LibraryCaller.allCases)
    func onlyApproved(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"title": "Canary day", "keep": ["reflection"], "set-title": "Audit"}]}"#)
        let planted = try runProduct("pickerd-store-writer", [world.pickerd.data, "canaries"])
        let canaries = try JSONSerialization.jsonObject(with: Data(planted.stdout.utf8)) as? [String: [String]] ?? [:]
        checkLibrary(2, caller) {
            let lines = try world.run(caller, "present")
            guard lines.last?["result"] as? String == "approved", let kept = (lines.last?["items"] as? [[String: String]])?.first?["id"] else {
                return (false, "no approval: \(lines.last ?? [:])")
            }
            let bytes = receivedBytes(lines)
            let leaked = canaries.filter { $0.key != kept }.values.flatMap { $0 }.filter { anyContains(bytes, $0) }
            let seen = (canaries[kept] ?? []).allSatisfy { anyContains(bytes, $0) }
            return (leaked.isEmpty && seen && !canaries.isEmpty,
                    leaked.isEmpty ? "no canary of \(canaries.count - 1) unkept entries; the kept one's arrived: \(seen)" : "leaked \(leaked)")
        }
    }

    @Test("3. cancel, close, a cancelled GCancellable and dismissal each end apart and release nothing", arguments: LibraryCaller.allCases)
    func endings(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"action": "cancel"}, {"action": "wait"}, {"action": "wait"}, {"action": "exit"}]}"#)
        checkLibrary(3, caller) {
            let runs = try ["present", "close", "cancel", "present"].map { try world.run(caller, $0) }
            let endings = runs.map { lines in
                let last = lines.last ?? [:]
                return (last["reason"] ?? last["result"] ?? last["code"]).map { "\($0)" } ?? "?"
            }
            let released = runs.joined().contains { !(($0["descriptors"] as? [Any])?.isEmpty ?? true) || $0["items"] != nil }
            let history = try world.pickerd.ctl(["history"]).stdout.contains("nothing has been released yet")
            return (endings == ["cancelled", "closedByApp", "cancelled", "pickerGone"] && !released && history,
                    "endings \(endings) (cancel, js_picker_close, GCancellable, the picker gone), released: \(released)")
        }
    }

    @Test("5. a token preloads the picker but needs review; a valid and an unknown token look the same", arguments: LibraryCaller.allCases)
    func tokens(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"list": "recent", "index": 2}, {"preloaded": true, "list": "recent", "index": 0}]}"#)
        checkLibrary(5, caller) {
            _ = try world.run(caller, "present")
            let decisions = { world.pickerd.logText.split(separator: "\n").filter { $0.contains("keeping") } }
            guard let first = decisions().first else { return (false, "no review") }
            let id = String(first.split(separator: "(")[1].prefix(36))
            let valid = try world.run(caller, "present", id)
            let unknown = try world.run(caller, "present", UUID().uuidString)
            let shapes = [valid, unknown].map { $0.map { "\($0["event"] ?? "") \($0["result"] ?? "")" } }
            let preloaded = decisions().count == 3 && decisions()[1].contains("preloaded") && !decisions()[2].contains("preloaded")
            return (preloaded && shapes[0] == ["outcome approved"] && shapes[0] == shapes[1],
                    "preloaded then reviewed: \(preloaded); the library gave \(shapes[0]) vs \(shapes[1])")
        }
    }

    @Test("6. a disabled category never reaches the app; before consent nothing is shown", arguments: LibraryCaller.allCases)
    func categoriesAndConsent(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"consent": ["decline", "accept"], "reviews": [{"title": "Morning run"}]}"#)
        checkLibrary(6, caller) {
            let declined = try world.run(caller, "present")
            let noShow = !world.pickerd.logText.contains("review for")
            _ = try world.pickerd.ctl(["settings", "set", "photos", "off"])
            let approved = try world.run(caller, "present")
            let kinds = (approved.last?["items"] as? [[String: String]] ?? []).compactMap { $0["kind"] }
            // The run's route starts at 40.8013, -73.9719: its doubles, as the fields carry them.
            func holdsStart(_ lines: [[String: Any]]) -> Bool {
                let needles = [40.8013, -73.9719].map { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Data($0) } }
                return receivedBytes(lines).contains { bytes in needles.contains { bytes.range(of: $0) != nil } }
            }
            let located = holdsStart(approved) && anyContains(receivedBytes(approved), "Riverside Park")
            _ = try world.pickerd.ctl(["settings", "set", "significant-locations", "off"])
            let placeless = try world.run(caller, "present")
            let placelessKinds = (placeless.last?["items"] as? [[String: String]] ?? []).compactMap { $0["kind"] }
            let whereabouts = ["Riverside Park", "New York", "Home", "home", "away"].filter { anyContains(receivedBytes(placeless), $0) }
                + (holdsStart(placeless) ? ["route coordinates"] : [])
            let ok = declined.last?["reason"] as? String == "consentDeclined" && noShow
                && approved.last?["result"] as? String == "approved" && !kinds.isEmpty && !kinds.contains("photo") && !kinds.contains("livePhoto")
                && located && placeless.last?["result"] as? String == "approved" && placelessKinds.contains("workout")
                && !placelessKinds.contains("location") && whereabouts.isEmpty
            return (ok, "declined: \(declined.last?["reason"] ?? "?"), nothing shown: \(noShow); with photos off: \(kinds), the place and route "
                        + "arrive: \(located); with locations off too: \(placelessKinds), where the person was: \(whereabouts)")
        }
    }

    @Test("8. an app killed mid-review gets nothing later; its session is released", arguments: LibraryCaller.allCases)
    func vanish(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"action": "wait"}]}"#)
        checkLibrary(8, caller) {
            let (executable, arguments, environment) = world.command(caller, ["present"])
            let app = Process()
            app.executableURL = executable
            app.arguments = arguments
            app.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            app.standardOutput = FileHandle.nullDevice
            try app.run()
            // Killed once the picker holds the review open (bwrap takes its sandbox with it).
            let shown = eventually { world.pickerd.logText.contains("waiting (holding the picker open)") }
            kill(app.processIdentifier, SIGKILL)
            app.waitUntilExit()
            let told = eventually { world.pickerd.logText.contains("clientGone") }
            let released = try eventually { try world.pickerd.ctl(["status"]).stdout.contains("sessions: 0 active") }
            let nothing = try world.pickerd.ctl(["history"]).stdout.contains("nothing has been released yet")
            return (shown && told && released && nothing,
                    "review shown: \(shown), agent told: \(told), session released: \(released), nothing released: \(nothing)")
        }
    }

    @Test("10. approved media reach the app read-only, pathless, without GPS unless the place was approved", arguments: LibraryCaller.allCases)
    func media(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"title": "Morning run", "keep": ["photo", "workout"]}]}"#)
        checkLibrary(10, caller) {
            let lines = try world.run(caller, "present")
            let descriptors = lines.last?["descriptors"] as? [[String: Any]] ?? []
            let roles = descriptors.compactMap { $0["role"] as? String }
            let readOnly = !descriptors.isEmpty && descriptors.allSatisfy { $0["writable"] as? Bool == false }
            let pathless = descriptors.allSatisfy { ($0["link"] as? String)?.hasPrefix("/memfd:") == true }
            let gps = descriptors.contains { d in
                guard let data = Data(base64Encoded: d["base64"] as? String ?? "") else { return false }
                return data.range(of: Data([0x88, 0x25, 0x00, 0x04])) != nil || data.range(of: Data([0, 0, 0, 0x28, 0, 0, 0, 1])) != nil
            }
            return (readOnly && pathless && !gps && roles.contains("photo"),
                    "\(descriptors.count) media (\(roles.joined(separator: ", "))): read-only \(readOnly), pathless \(pathless), GPS \(gps)")
        }
    }

    @Test("12. every release through the library is in the history the person reads", arguments: LibraryCaller.allCases)
    func history(caller: LibraryCaller) throws {
        let world = try LibraryWorld(script: #"{"reviews": [{"title": "Morning run", "set-title": "Recorded"}]}"#)
        checkLibrary(12, caller) {
            let lines = try world.run(caller, "present")
            let count = (lines.last?["items"] as? [Any])?.count ?? 0
            let history = try world.pickerd.ctl(["history"]).stdout
            let recorded = history.contains("\(caller.historyName): \"Recorded\", \(count) items")
            return (count > 0 && recorded, "released \(count) items; history: \(history.split(separator: "\n").first ?? "")")
        }
    }
}
