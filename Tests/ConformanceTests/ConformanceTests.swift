import Foundation
import Glibc
import PickerdTestKit
import Synchronization
import Testing

/// Who is calling: an app on the host, an app in a bubblewrap sandbox that sees only the client
/// socket, or an app of another user (which must be refused, whatever it asks).
enum Caller: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case host, sandboxed, otherUID = "other-uid"
    var testDescription: String { rawValue }
}

/// One pickerd for one check: the demo library, the scripted agent on `script`, the test client
/// registered as an entitled app and a copy of it registered without the entitlement.
final class World {
    let pickerd: RunningPickerd
    let client = BuiltProducts.url("pickerd-test-client").path
    var unentitled: String { pickerd.root + "/unentitled-client" }

    init(script: String, extra: [String] = [], developerMode: Bool = true) throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-c")
        try script.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
        let agent = BuiltProducts.url("picker-agent").path
        pickerd = try RunningPickerd(seed: true, root: root, extra: ["--agent-command", "\(agent) --script \(root)/script.json",
                                                                      "--agent-executable", agent] + extra, developerMode: developerMode)
        try FileManager.default.copyItem(atPath: client, toPath: unentitled)
        for (path, allow) in [(client, true), (unentitled, false)] {
            let plist = root + "/\(allow ? "allowed" : "refused").plist"
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>com.apple.developer.journal.allow</key><\(allow)/></dict></plist>
                """.write(toFile: plist, atomically: true, encoding: .utf8)
            let result = try pickerd.ctl(["apps", "register", "--executable", path, "--entitlements", plist,
                                          "--bundle-id", allow ? "org.conformance.app" : "org.conformance.unentitled", "--name", "Conformance"])
            // An entitlements file that does not allow presenting is refused at registration (the
            // unentitled copy stays unknown to pickerd, and is refused as such).
            precondition(allow ? result.status == 0 : result.stderr.contains("not registered"), result.stderr)
        }
        // The same app in a sandbox: pickerd knows a sandboxed app by its Flatpak app id alone.
        let registered = try pickerd.ctl(["apps", "register", "--flatpak-app-id", Self.sandboxedAppID,
                                          "--entitlements", root + "/allowed.plist", "--name", "Conformance Sandboxed"])
        precondition(registered.status == 0, registered.stderr)
        // Let user nobody traverse to the programs (not to pickerd's sockets: those stay 0700).
        chmod(root, 0o755)
        chmod(unentitled, 0o755)
    }

    deinit { pickerd.stop() }

    /// The Flatpak app id the entitled test client has in its sandbox.
    static let sandboxedAppID = "org.conformance.Sandboxed"

    /// The app id a program's sandbox names: the registered one for the test client, and for any
    /// other program (an unentitled copy, an attacker) an id of its own that pickerd does not know.
    func flatpakAppID(of program: String) -> String {
        program == client ? Self.sandboxedAppID
            : "org.conformance." + URL(fileURLWithPath: program).lastPathComponent.filter { $0.isLetter || $0.isNumber || $0 == "-" }
    }

    /// Runs the test client as `caller`; returns its JSON lines (and its raw output for messages).
    /// `apps`: other registered apps the client runs at once (`PICKERD_TEST_APPS`), each visible
    /// in the sandbox too.
    func run(_ caller: Caller, _ mode: String, _ extra: String = "", program: String? = nil,
             apps: [String] = []) throws -> (lines: [[String: Any]], text: String) {
        let program = program ?? client
        let arguments = [mode] + (extra.isEmpty ? [] : [extra])
        let environment = apps.isEmpty ? [:] : ["PICKERD_TEST_APPS": apps.joined(separator: ":")]
        let (executable, argv) = command(caller, program: program, arguments: arguments, apps: apps)
        let result = try runCommand(executable, argv, environment: environment)
        let lines = jsonLines(result.stdout)
        return (lines, result.stdout + result.stderr)
    }

    /// How `caller` runs `program` with `arguments` (after the runtime directory it sees).
    func command(_ caller: Caller, program: String, arguments: [String], apps: [String] = []) -> (URL, [String]) {
        switch caller {
        case .host:
            return (URL(fileURLWithPath: program), [pickerd.runtime] + arguments)
        case .sandboxed:
            return (URL(fileURLWithPath: "/usr/bin/bwrap"), clientSandbox(program: program, socket: pickerd.runtime + "/client.sock",
                                                                          flatpakAppID: flatpakAppID(of: program), in: pickerd.root)
                    + apps.flatMap { ["--ro-bind", $0, $0] } + [program, "/run/pickerd"] + arguments)
        case .otherUID:
            // The copy under the 0755 root: user nobody can run it (but not reach pickerd's 0700 sockets).
            return (URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", unentitled,
                                                               pickerd.runtime] + arguments)
        }
    }
}

/// Records one row of the conformance table when `PICKERD_CONFORMANCE_REPORT` names a file.
func report(_ invariant: Int, _ caller: Caller, _ passed: Bool, _ why: String) {
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

/// Checks one invariant for one caller: `body` returns (passed, why), which is both asserted and reported.
func check(_ invariant: Int, _ caller: Caller, _ body: () throws -> (Bool, String)) {
    do {
        let (passed, why) = try body()
        report(invariant, caller, passed, why)
        #expect(passed, "invariant \(invariant), \(caller.rawValue): \(why)")
    } catch {
        report(invariant, caller, false, "\(error)")
        Issue.record("invariant \(invariant), \(caller.rawValue): \(error)")
    }
}

/// What another uid must see, whatever it asks: no connection.
func refusedOtherUID(_ world: World, _ mode: String = "present") throws -> (Bool, String) {
    _ = mode  // whatever it would ask, it asks by connecting first
    let (lines, text) = try world.run(.otherUID, "present")
    // Refused either way: the kernel keeps it from the 0700 socket directory, or pickerd refuses its uid.
    let unreachable = text.lowercased().contains("permission denied")
    let byUID = lines.contains { $0["code"] as? String == "permissionDenied" }
    let noData = lines.allSatisfy { ($0["result"] as? String) == nil && (($0["descriptors"] as? [Any])?.isEmpty ?? true) }
    let refused = (unreachable || byUID) && noData
    return (refused, refused ? (unreachable ? "refused: cannot reach the socket" : "refused by uid") : "another uid got through: \(text)")
}

@Suite("Privacy conformance: the invariants of Documentation/design.md, per caller kind", .serialized)
struct ConformanceTests {
    @Test("1. no entitlement: notEntitled, no UI, zero data bytes", arguments: Caller.allCases)
    func noEntitlement(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(1, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let (lines, _) = try world.run(caller, "present", program: world.unentitled)
            let onlyError = lines.count == 1 && lines[0]["code"] as? String == "notEntitled"
            let noData = (lines.first?["descriptors"] as? [Any])?.isEmpty ?? true
            let noUI = !world.pickerd.logText.contains("review for") && !world.pickerd.logText.contains("started a picker agent")
            return (onlyError && noData && noUI, "reply \(lines.map { $0["code"] ?? $0["event"] ?? "?" }), ui shown: \(!noUI)")
        }
    }

    @Test("2. only approved items reach the client (canary byte audit)", arguments: Caller.allCases)
    func onlyApproved(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Canary day", "keep": ["reflection"], "set-title": "Audit"}]}"#)
        let planted = try runProduct("pickerd-store-writer", [world.pickerd.data, "canaries"])
        let canaries = try JSONSerialization.jsonObject(with: Data(planted.stdout.utf8)) as? [String: [String]] ?? [:]
        check(2, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let (lines, _) = try world.run(caller, "present")
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

    @Test("3. cancel, close and dismissal each give their own outcome and release nothing", arguments: Caller.allCases)
    func endings(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"action": "cancel"}, {"action": "wait"}, {"action": "exit"}]}"#)
        check(3, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let cancelled = try world.run(caller, "present").lines
            let closed = try world.run(caller, "close").lines
            let dismissed = try world.run(caller, "present").lines
            let outcomes = [cancelled.last?["result"], closed.last?["reason"], dismissed.last?["reason"]].map { $0 as? String ?? "?" }
            let released = (cancelled + closed + dismissed).contains { !(($0["descriptors"] as? [Any])?.isEmpty ?? true) || $0["items"] != nil }
            let history = try world.pickerd.ctl(["history"]).stdout.contains("nothing has been released yet")
            return (outcomes == ["cancelled", "clientClosed", "agentGone"] && !released && history, "outcomes \(outcomes), released: \(released)")
        }
    }

    @Test("4. no request lets a client list, search, count or probe; unknown requests are refused", arguments: Caller.allCases)
    func noProbing(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(4, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "probe") }
            let (lines, _) = try world.run(caller, "probe")
            let codes = lines.map { $0["code"] as? String ?? "answered" }
            return (codes.count == 47 && codes.allSatisfy { $0 == "wrongRole" },
                    "\(codes.count) agent, control and server-side message kinds from a client: \(Set(codes))")
        }
    }

    @Test("5. a token preloads the picker but needs review; a valid and an unknown token look the same", arguments: Caller.allCases)
    func tokens(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"list": "recent", "index": 2}, {"preloaded": true, "list": "recent", "index": 0}]}"#)
        check(5, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            _ = try world.run(caller, "present")
            let decisions = { world.pickerd.logText.split(separator: "\n").filter { $0.contains("keeping") } }
            guard let first = decisions().first else { return (false, "no review") }
            let id = String(first.split(separator: "(")[1].prefix(36))
            let valid = try world.run(caller, "present", id).lines
            let unknown = try world.run(caller, "present", UUID().uuidString).lines
            let shapes = [valid, unknown].map { $0.map { $0["event"] as? String ?? "" } }
            let preloaded = decisions().count == 3 && decisions()[1].contains("preloaded") && !decisions()[2].contains("preloaded")
            let sameSize = (valid.first?["raw"] as? String)?.count == (unknown.first?["raw"] as? String)?.count
            return (preloaded && shapes[0] == ["accepted", "outcome"] && shapes[0] == shapes[1] && sameSize,
                    "preloaded then reviewed: \(preloaded); replies \(shapes[0]) vs \(shapes[1]); same accept size: \(sameSize)")
        }
    }

    @Test("6. a disabled category never reaches the picker or the client; before consent nothing is shown", arguments: Caller.allCases)
    func categoriesAndConsent(caller: Caller) throws {
        let world = try World(script: #"{"consent": ["decline", "accept"], "reviews": [{"title": "Morning run"}]}"#)
        check(6, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            // Consent declined: dismissed, and the agent was shown no suggestion.
            let declined = try world.run(caller, "present").lines
            let noShow = !world.pickerd.logText.contains("review for")
            // With photos off, a suggestion that holds photos arrives without them.
            _ = try world.pickerd.ctl(["settings", "set", "photos", "off"])
            let approved = try world.run(caller, "present").lines
            let kinds = (approved.last?["items"] as? [[String: String]] ?? []).compactMap { $0["kind"] }
            // With Significant Locations off too, the run arrives without its place, its route (which
            // starts at the place: 40.8013, -73.9719) or a title that says where it was.
            func holdsStart(_ lines: [[String: Any]]) -> Bool {
                let needles = [40.8013, -73.9719].map { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Data($0) } }
                return receivedBytes(lines).contains { bytes in needles.contains { bytes.range(of: $0) != nil } }
            }
            let located = holdsStart(approved) && anyContains(receivedBytes(approved), "Riverside Park")
            _ = try world.pickerd.ctl(["settings", "set", "significant-locations", "off"])
            let placeless = try world.run(caller, "present").lines
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

    @Test("7. concurrent clients never receive each other's results", arguments: Caller.allCases)
    func isolation(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(7, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "isolation") }
            if caller == .sandboxed {
                // Eight Flatpaks at once, each in a sandbox of its own (one sandbox is one app).
                let ids = (0..<8).map { "org.conformance.Isolated\($0)" }
                for id in ids {
                    let r = try world.pickerd.ctl(["apps", "register", "--flatpak-app-id", id, "--entitlements", world.pickerd.root + "/allowed.plist"])
                    guard r.status == 0 else { return (false, "register \(id): \(r.stderr)") }
                }
                let outcomes = Mutex<[Int: (approved: Bool, own: Bool)]>([:])
                let client = world.client, runtime = world.pickerd.runtime, root = world.pickerd.root
                DispatchQueue.concurrentPerform(iterations: ids.count) { index in
                    let argv = clientSandbox(program: client, socket: runtime + "/client.sock",
                                             flatpakAppID: ids[index], in: root) + [client, "/run/pickerd", "present"]
                    let lines = jsonLines((try? runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"), argv))?.stdout ?? "")
                    let accepted = lines.first { $0["event"] as? String == "accepted" }?["handle"] as? String
                    let outcome = lines.last { $0["event"] as? String == "outcome" }
                    outcomes.withLock { $0[index] = (outcome?["result"] as? String == "approved",
                                                     accepted != nil && outcome?["handle"] as? String == accepted) }
                }
                let mismatches = outcomes.withLock { all in (0..<ids.count).filter { !(all[$0]?.approved ?? false) || !(all[$0]?.own ?? false) }.count }
                return (mismatches == 0, "8 concurrent sandboxed apps, mismatched outcomes: \(mismatches)")
            }
            // Eight apps at once (one picker per app), each in its own process.
            let apps = try world.pickerd.registerAppCopies(of: world.client, count: 8, entitlements: world.pickerd.root + "/allowed.plist")
            let result = try world.run(caller, "isolation", "8", apps: apps).lines.last
            return (result?["mismatches"] as? Int == 0, "8 concurrent sessions, mismatched outcomes: \(result?["mismatches"] ?? "?")")
        }
    }

    @Test("8. a client that disconnects mid-review gets nothing later; its session is released", arguments: Caller.allCases)
    func disconnect(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"action": "wait"}]}"#)
        check(8, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "vanish") }
            _ = try world.run(caller, "vanish")
            let told = eventually { world.pickerd.logText.contains("clientGone") }
            let released = try eventually { try world.pickerd.ctl(["status"]).stdout.contains("sessions: 0 active") }
            let nothing = try world.pickerd.ctl(["history"]).stdout.contains("nothing has been released yet")
            return (told && released && nothing, "agent told: \(told), session released: \(released), nothing released: \(nothing)")
        }
    }

    @Test("9. another uid cannot connect; a sandboxed client works and cannot read the store", arguments: Caller.allCases)
    func identity(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(9, caller) {
            switch caller {
            case .otherUID:
                return try refusedOtherUID(world)
            case .host:
                let (lines, _) = try world.run(.host, "present")
                return (lines.last?["result"] as? String == "approved", "the host app is served")
            case .sandboxed:
                let (lines, _) = try world.run(.sandboxed, "present")
                var visible: [String] = []
                for path in [world.pickerd.data, world.pickerd.config, world.pickerd.runtime + "/agent.sock", world.pickerd.runtime + "/control.sock"] {
                    let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"),
                                               clientSandbox(program: world.client, socket: world.pickerd.runtime + "/client.sock") + ["/usr/bin/test", "-e", path])
                    if probe.status == 0 { visible.append(path) }
                }
                return (lines.last?["result"] as? String == "approved" && visible.isEmpty, "served; store visible: \(visible)")
            }
        }
    }

    @Test("10. approved media arrive read-only, pathless, without GPS unless the place was approved", arguments: Caller.allCases)
    func media(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Morning run", "keep": ["photo", "workout"]}]}"#)
        check(10, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let (lines, _) = try world.run(caller, "present")
            let descriptors = lines.last?["descriptors"] as? [[String: Any]] ?? []
            let readOnly = !descriptors.isEmpty && descriptors.allSatisfy { $0["writable"] as? Bool == false }
            let pathless = descriptors.allSatisfy { ($0["link"] as? String)?.hasPrefix("/memfd:") == true }
            let gps = descriptors.contains { d in
                guard let data = Data(base64Encoded: d["base64"] as? String ?? "") else { return false }
                // "GPS" IFD tag 0x8825 as big-endian bytes in the EXIF, or the latitude's 40° rational.
                return data.range(of: Data([0x88, 0x25, 0x00, 0x04])) != nil || data.range(of: Data([0, 0, 0, 0x28, 0, 0, 0, 1])) != nil
            }
            return (readOnly && pathless && !gps, "\(descriptors.count) descriptors: read-only \(readOnly), pathless \(pathless), GPS \(gps)")
        }
    }

    @Test("11. malformed frames get a typed error and a closed connection; pickerd keeps serving", arguments: Caller.allCases)
    func malformed(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(11, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "malformed") }
            let (lines, _) = try world.run(caller, "malformed")
            let codes = lines.compactMap { $0["code"] as? String }
            let closed = lines.allSatisfy { $0["closed"] as? Bool == true }
            let after = try world.run(caller, "present").lines.last?["result"] as? String
            let expected = ["frameTooLarge", "malformed", "malformed", "unsupportedVersion", "wrongRole", "handshakeRequired"]
            return (codes == expected && closed && after == "approved", "errors \(codes), each closed: \(closed); a session after: \(after ?? "none")")
        }
    }

    @Test("12. every release is recorded in a history the person can read", arguments: Caller.allCases)
    func history(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{"title": "Morning run", "set-title": "Recorded"}]}"#)
        check(12, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            let (lines, _) = try world.run(caller, "present")
            let count = (lines.last?["items"] as? [Any])?.count ?? 0
            let history = try world.pickerd.ctl(["history"]).stdout
            let app = caller == .sandboxed ? "Conformance Sandboxed (\(World.sandboxedAppID))" : "Conformance (org.conformance.app)"
            let recorded = history.contains("\(app): \"Recorded\", \(count) items")
            return (count > 0 && recorded, "released \(count) items; history: \(history.split(separator: "\n").first ?? "")")
        }
    }

    @Test("13. the picker is drawn only where the app can neither read nor type: a pty whose master the app, its child or its sandbox holds is refused",
          arguments: Caller.allCases)
    func terminal(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}]}"#)
        check(13, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            // The app opens a pty, takes the slave as its controlling terminal, hands it over and reads
            // the master (typing the keys that approve). On the host the master stays in the app or a
            // child; in the sandbox in the app or its parent there (a terminal emulator's shape).
            let variants = caller == .host ? ["self-ctty", "child-ctty"] : ["self-ctty", "parent-ctty"]
            var seen: [String] = []
            var refused = true
            for variant in variants {
                let (lines, _) = try world.run(caller, "own-pty", variant)
                let error = lines.first { $0["event"] as? String == "error" }?["code"] as? String
                let drawn = lines.first { $0["event"] as? String == "master" }?["drawn"] as? Int
                let result = lines.first { $0["event"] as? String == "outcome" }.map { "\($0["result"] ?? "?") \($0["title"] ?? "")" }
                refused = refused && error == "permissionDenied" && drawn == 0 && result == nil
                seen.append("\(variant): \(result ?? error ?? "no answer"), \(drawn.map(String.init) ?? "?") bytes drawn")
            }
            let started = world.pickerd.logText.contains("started a terminal picker")
            let children = try runCommand(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-P", "\(world.pickerd.pid ?? 0)"]).stdout
            return (refused && !started && children.isEmpty,
                    seen.joined(separator: "; ") + (started || !children.isEmpty ? "; a terminal picker started" : "; no picker started"))
        }
    }

    @Test("14. no client can lock others out: idle and stalled connections cost no thread and meet their deadlines", arguments: Caller.allCases)
    func lockOut(caller: Caller) throws {
        // Deadlines of 5 s: whatever the legitimate callers get done before then, they did not wait
        // for the attackers' connections to be closed.
        let world = try World(script: #"{"reviews": [{}, {}]}"#, extra: ["--hello-timeout", "5", "--frame-timeout", "5", "--idle-timeout", "6"])
        check(14, caller) {
            if caller == .otherUID { return try refusedOtherUID(world, "hold") }
            guard let pid = world.pickerd.pid else { return (false, "pickerd is not running") }
            _ = try world.run(caller, "present")  // consent and the agent's start-up, before the attack
            let threadsBefore = threads(pid)
            // Two attacking programs (copies: two callers): 1,000 idle connections and 200 stalled
            // in the middle of a frame, held for up to 30 s.
            let second = world.pickerd.root + "/attacker"
            try? FileManager.default.copyItem(atPath: world.client, toPath: second)
            let attackers = try [(world.unentitled, "1000,0,30"), (second, "0,200,30")].map { program, shape in
                try Attacker(world.command(caller, program: program, arguments: ["hold", shape]))
            }
            guard attackers.allSatisfy({ $0.holding() }) else { return (false, "the attackers never held their connections") }
            let threadsDuring = threads(pid)
            var took: [String: Double] = [:]
            let presented = try timed(&took, "present") { try world.run(caller, "present").lines.last?["result"] as? String == "approved" }
            let agentScript = world.pickerd.root + "/agent2.json"
            try #"{"reviews": []}"#.write(toFile: agentScript, atomically: true, encoding: .utf8)
            let agent = Process()
            agent.executableURL = BuiltProducts.url("picker-agent")
            agent.arguments = ["--script", agentScript, "--runtime-dir", world.pickerd.runtime]
            let registered = try timed(&took, "agent") {
                try agent.run()
                return eventually(timeout: 20) { (try? world.pickerd.ctl(["status"]).stdout.contains("2 picker agents")) == true }
            }
            let status = try timed(&took, "status") { try world.pickerd.ctl(["status"]).status == 0 }
            let ends = attackers.map { $0.finish() }
            kill(agent.processIdentifier, SIGKILL)
            agent.waitUntilExit()
            // Each attacker got its share of 16 (one slot is its own first connection for the idle
            // one), closed at the deadline; every other connection was refused at once.
            let idle = ends[0]["ended"] as? [String: Int] ?? [:], stalled = ends[1]["ended"] as? [String: Int] ?? [:]
            let latest = (ends[0]["latest"] as? [String: Double] ?? [:]).merging(ends[1]["latest"] as? [String: Double] ?? [:]) { max($0, $1) }
            let shares = idle["idle:deadlineExceeded"] == 15 && idle["idle:tooManyConnections"] == 985
                && stalled["stalled:deadlineExceeded"] == 15 && stalled["stalled:tooManyConnections"] == 185
            let atDeadline = (latest["idle:deadlineExceeded"] ?? 0) >= 5 && (latest["stalled:deadlineExceeded"] ?? 0) >= 5
                && !idle.keys.contains { $0.hasSuffix(":open") } && !stalled.keys.contains { $0.hasSuffix(":open") }
            let inTime = took.values.allSatisfy { $0 < 5 }
            let boundedThreads = threadsDuring <= threadsBefore + 2
            let figures = took.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.2f", $0.value)) s" }.joined(separator: ", ")
            return (presented && registered && status && shares && atDeadline && inTime && boundedThreads,
                    "while 1,000 idle + 200 stalled were held: \(figures); pickerd's threads \(threadsBefore) → \(threadsDuring); "
                    + "attackers' connections: \(describe(idle.merging(stalled) { $0 + $1 })); the last closed at its deadline after "
                    + String(format: "%.1f s", max(latest["idle:deadlineExceeded"] ?? 0, latest["stalled:deadlineExceeded"] ?? 0)))
        }
    }

    @Test("15. becoming a presenting app takes the person's or the system's word: not control.sock, not a path", arguments: Caller.allCases)
    func becomingAnApp(caller: Caller) throws {
        switch caller {
        case .host:
            // A same-uid process registers itself through control.sock (World did, for the test
            // client): without the person's Allow in the picker (this script gives none) it gets
            // nothing. With it, it may present.
            let world = try World(script: #"{"consent": "accept", "reviews": [{}]}"#, developerMode: false)
            let allowed = try World(script: #"{"app": "allow", "consent": "accept", "reviews": [{}]}"#, developerMode: false)
            check(15, caller) {
                let (lines, text) = try world.run(.host, "present")
                let refused = lines.last?["code"] as? String == "notEntitled" && text.contains("did not allow")
                    && lines.allSatisfy { ($0["descriptors"] as? [Any])?.isEmpty ?? true }
                let afterAllow = try allowed.run(.host, "present").lines.last?["result"] as? String == "approved"
                return (refused && afterAllow, refused && afterAllow
                        ? "registered through control.sock: refused until the person allowed it in the picker, then approved"
                        : "refused \(refused), approved after Allow \(afterAllow): \(text)")
            }
        case .sandboxed:
            // In a sandbox a file identifies nothing: the sandbox can put another binary (a copy,
            // even) at the registered path, or run the registered file itself under its own
            // control. Only the Flatpak app id the person registered presents.
            let world = try World(script: #"{"reviews": [{}]}"#)
            check(15, caller) {
                let impostor = world.pickerd.root + "/impostor"
                try FileManager.default.copyItem(atPath: world.client, toPath: impostor)
                chmod(impostor, 0o755)
                func plainSandbox(binding file: String) throws -> (refused: Bool, text: String) {
                    var sandbox = clientSandbox(program: world.client, socket: world.pickerd.runtime + "/client.sock")
                    sandbox[sandbox.firstIndex(of: world.client)!] = file  // --ro-bind FILE REGISTERED-PATH
                    let result = try runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"), sandbox + [world.client, "/run/pickerd", "present"])
                    let lines = jsonLines(result.stdout)
                    return (lines.last?["code"] as? String == "notEntitled" && result.stdout.contains("not a Flatpak's")
                            && lines.allSatisfy { $0["result"] == nil }, result.stdout + result.stderr)
                }
                let copy = try plainSandbox(binding: impostor), itself = try plainSandbox(binding: world.client)
                let flatpak = try world.run(.sandboxed, "present").lines.last?["result"] as? String == "approved"
                return (copy.refused && itself.refused && flatpak, copy.refused && itself.refused && flatpak
                        ? "outside a Flatpak a copy at the registered path and the registered file itself are refused; the registered Flatpak id is approved"
                        : "copy refused \(copy.refused), registered file refused \(itself.refused), Flatpak approved \(flatpak): \(copy.text) \(itself.text)")
            }
        case .otherUID:
            let world = try World(script: #"{"reviews": [{}]}"#)
            check(15, caller) { try refusedOtherUID(world) }
        }
    }
}

extension ConformanceTests {
    @Test("16. an app's identity is its connection's: an exec after connecting, or a connection shared with another program, is refused",
          arguments: Caller.allCases)
    func identityAtConnection(caller: Caller) throws {
        let world = try World(script: #"{"reviews": [{}, {}, {}, {}]}"#)
        check(16, caller) {
            if caller == .otherUID { return try refusedOtherUID(world) }
            /// Whether a run got nothing: no approved outcome, no descriptor, and a refusal.
            func refused(_ lines: [[String: Any]]) -> Bool {
                lines.allSatisfy { $0["result"] == nil && (($0["descriptors"] as? [Any])?.isEmpty ?? true) }
                    && lines.contains { ["permissionDenied", "notEntitled"].contains($0["code"] as? String ?? "") }
            }
            func codes(_ lines: [[String: Any]]) -> String { "\(lines.compactMap { $0["code"] ?? $0["result"] })" }
            var seen: [String] = []
            var ok = true
            // An unregistered program connects, forks, its parent execs the registered app and is
            // stopped; the child presents. "keep": the parent's copy of the connection survives the
            // exec, so the registered app holds it too.
            for variant in ["borrow", "borrow-keep"] {
                let lines: [[String: Any]]
                if caller == .host {
                    lines = try world.run(.host, variant, world.client, program: world.unentitled).lines
                } else {
                    // A sandbox that sees the client socket, the attacker and the registered file.
                    let sandbox = clientSandbox(program: world.unentitled, socket: world.pickerd.runtime + "/client.sock")
                        + ["--ro-bind", world.client, world.client]
                    let result = try runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"),
                                                sandbox + [world.unentitled, "/run/pickerd", variant, world.client])
                    lines = jsonLines(result.stdout)
                }
                let borrowed = lines.first { $0["event"] as? String == "borrowed" }?["running-registered"] as? Bool == true
                ok = ok && borrowed && refused(lines)
                seen.append("\(variant): parent ran the app \(borrowed), \(codes(lines))")
            }
            // On the host, the registered app hands its connection to another program, then
            // presents. (A sandbox is one app: a Flatpak's app id names every program in it.)
            if caller == .host {
                let shared = try world.run(caller, "share", "/usr/bin/sleep").lines
                ok = ok && refused(shared)
                seen.append("shared with sleep: \(codes(shared))")
            }
            // And the app itself, on a connection of its own, is served.
            let own = try world.run(caller, "present").lines.last?["result"] as? String == "approved"
            ok = ok && own
            seen.append("the app itself approved: \(own)")
            return (ok, seen.joined(separator: "; "))
        }
    }
}

/// "idle:deadlineExceeded 15, …" in key order.
func describe(_ counts: [String: Int]) -> String {
    counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
}

/// pickerd's thread count (`Threads:` in /proc/PID/status).
func threads(_ pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }.flatMap { Int($0.dropFirst(8).trimmingCharacters(in: .whitespaces)) } ?? -1
}

/// Runs `body`, recording how long it took under `name`.
func timed(_ took: inout [String: Double], _ name: String, _ body: () throws -> Bool) rethrows -> Bool {
    let start = Date()
    let result = try body()
    took[name] = Date().timeIntervalSince(start)
    return result
}

/// `pickerd-test-client hold` in the background: says when it holds its connections, then how
/// each ended.
final class Attacker {
    private let process = Process()
    private let output = Pipe()
    private var text = ""

    init(_ command: (URL, [String])) throws {
        process.executableURL = command.0
        process.arguments = command.1
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Waits for the "holding" line; false if the attacker ended first.
    func holding() -> Bool {
        while !text.contains("\"holding\"") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return false }
            text += String(decoding: data, as: UTF8.self)
        }
        return true
    }

    /// Waits for the attacker to end; its last JSON line.
    func finish() -> [String: Any] {
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let last = text.split(separator: "\n").last.map(String.init) ?? "{}"
        return (try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]) ?? [:]
    }
}
