import Foundation
import Glibc
import PickerdTestKit
import PickerdWire
import Testing

/// Runs the test client app; returns its JSON lines.
func testClient(_ pickerd: RunningPickerd, _ mode: String, _ extra: String = "") throws -> [[String: Any]] {
    let result = try runProduct("pickerd-test-client", [pickerd.runtime, mode] + (extra.isEmpty ? [] : [extra]))
    return jsonLines(result.stdout)
}

/// The approved suggestion in a test client's output, decoded from the bytes it received.
func approvedSuggestion(_ lines: [[String: Any]]) -> Suggestion? {
    for line in lines.reversed() {
        guard let raw = line["raw"] as? String, let data = Data(base64Encoded: raw),
              case .outcome(let outcome)? = try? Framing.decodeEnvelope([UInt8](data)).body,
              case .approved(let suggestion)? = outcome.result else { continue }
        return suggestion
    }
    return nil
}

/// A pickerd with the demo library, the scripted agent on `script`, and the test client registered;
/// on `root` when given (a restart on the same store), else on a new temporary root. In developer
/// mode (the default) registered apps present without the person's allowance; `developerMode:
/// false` makes the picker ask first.
func sessionPickerd(script: String, entitlements: String? = nil, register: Bool = true, extra: [String] = [],
                    environment: [String: String] = [:], root existing: String? = nil, developerMode: Bool = true) throws -> RunningPickerd {
    let root = try existing ?? TemporaryDirectory.forThisRun(prefix: "pkd-s")
    try script.write(toFile: root + "/script.json", atomically: true, encoding: .utf8)
    let agent = BuiltProducts.url("picker-agent").path
    let pickerd = try RunningPickerd(seed: true, root: root, extra: ["--agent-command", "\(agent) --script \(root)/script.json"] + extra,
                                     environment: environment, developerMode: developerMode)
    if register {
        let file = root + "/app.entitlements"
        try (entitlements ?? Entitlements.allowed).write(toFile: file, atomically: true, encoding: .utf8)
        let r = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path,
                                 "--entitlements", file, "--bundle-id", "com.example.test", "--name", "Test App"])
        #expect(r.status == 0, "register: \(r.stderr)")
    }
    return pickerd
}

/// The bwrap arguments of a Flatpak-like sandbox for `program` that sees only pickerd's client
/// socket, its app id (`appID`) registered with pickerd as a Flatpak allowed to present: a sandboxed
/// app is known to pickerd only by its Flatpak app id, never by its executable.
func registeredSandbox(_ pickerd: RunningPickerd, program: String, appID: String = "com.example.Sandboxed") throws -> [String] {
    let file = pickerd.root + "/sandboxed.entitlements"
    try Entitlements.allowed.write(toFile: file, atomically: true, encoding: .utf8)
    let r = try pickerd.ctl(["apps", "register", "--flatpak-app-id", appID, "--entitlements", file])
    #expect(r.status == 0, "register \(appID): \(r.stderr)")
    return clientSandbox(program: program, socket: pickerd.runtime + "/client.sock", flatpakAppID: appID, in: pickerd.root)
}

enum Entitlements {
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """
    }
    static let allowed = plist("<key>com.apple.developer.journal.allow</key><true/>")
    static let refused = plist("<key>com.apple.developer.journal.allow</key><false/>")
    static let absent = plist("<key>com.apple.developer.healthkit</key><true/>")
}

@Suite("Sessions: present, review, approve, across real processes", .serialized)
struct SessionTests {
    @Test("an entitled app gets exactly the kept items, the edited title, media readable, read-only and pathless")
    func approved() throws {
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{"title": "Morning run in Riverside Park", "deselect": ["song"], "set-title": "A good day"}]}"#)
        let lines = try testClient(pickerd, "present")
        #expect(lines.first?["event"] as? String == "accepted")
        let outcome = try #require(lines.last)
        #expect(outcome["result"] as? String == "approved")
        #expect(outcome["title"] as? String == "A good day")
        let kinds = (outcome["items"] as? [[String: String]] ?? []).map { $0["kind"] ?? "" }
        #expect(!kinds.contains("song"))
        // Exactly what the agent kept, in its order.
        let agentLine = try #require(pickerd.logText.split(separator: "\n").first { $0.contains("keeping") })
        let agentKinds = agentLine.split(separator: "[").last!.split(separator: "]").first!.split(separator: ", ").map(String.init)
        #expect(kinds == agentKinds)
        // Media: read-only sealed copies of the store's own files.
        let descriptors = outcome["descriptors"] as? [[String: Any]] ?? []
        #expect(!descriptors.isEmpty)
        var storeHashes = Set<String>()
        let mediaRoot = pickerd.data + "/media"
        for path in FileManager.default.enumerator(atPath: mediaRoot)?.compactMap({ $0 as? String }) ?? [] {
            if let data = FileManager.default.contents(atPath: mediaRoot + "/" + path) { storeHashes.insert(sha256([UInt8](data))) }
        }
        for d in descriptors {
            #expect(d["writable"] as? Bool == false)
            #expect((d["link"] as? String)?.hasPrefix("/memfd:") == true, "\(d["link"] ?? "")")
            #expect(storeHashes.contains(d["sha256"] as? String ?? ""))
        }
        // Recorded in the history the person can read.
        let history = try pickerd.ctl(["history"])
        #expect(history.stdout.contains("Test App (com.example.test): \"A good day\", \(kinds.count) items"))
        pickerd.stop()
    }

    @Test("an unedited title never names what the person left out")
    func titleFollowsKeptItems() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "with Maya", "deselect": ["contact", "location"]}, {"title": "with Maya"}]}"#)
        let trimmed = try #require(try testClient(pickerd, "present").last)
        #expect(trimmed["result"] as? String == "approved")
        let title = trimmed["title"] as? String ?? ""
        #expect(!title.isEmpty)
        #expect(!title.contains("Maya") && !title.contains("Strand"), "\(title)")
        let whole = try #require(try testClient(pickerd, "present").last)
        #expect((whole["title"] as? String)?.contains("with Maya at") == true, "kept whole, the title stays: \(whole["title"] ?? "")")
        pickerd.stop()
    }

    @Test("a photo whose place was not approved arrives without GPS; with the place, GPS stays",
          arguments: [false, true])
    func gpsRedaction(placeKept: Bool) throws {
        let keep = placeKept ? #"["photo", "location"]"# : #"["photo"]"#
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Morning run", "keep": \#(keep)}]}"#)
        let outcome = try #require(try testClient(pickerd, "present").last)
        #expect(outcome["result"] as? String == "approved")
        let photo = try #require((outcome["descriptors"] as? [[String: Any]])?.first)
        let bytes = Data(base64Encoded: photo["base64"] as? String ?? "")!
        let directory = try TemporaryDirectory(prefix: "pkd-gps")
        try bytes.write(to: URL(fileURLWithPath: directory.path + "/photo.png"))
        let tags = try runCommand(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-n", "-s", "-a", directory.path + "/photo.png"]).stdout
        #expect(tags.contains("DateTimeOriginal"))
        #expect(tags.contains("GPSLatitude") == placeKept, "\(tags)")
        pickerd.stop()
    }

    @Test("a workout whose place was not approved arrives without its route; with the place, the route stays",
          arguments: [false, true])
    func routeRedaction(placeKept: Bool) throws {
        let keep = placeKept ? #"["workout", "location"]"# : #"["workout"]"#
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Morning run", "keep": \#(keep)}]}"#)
        let lines = try testClient(pickerd, "present")
        let suggestion = try #require(approvedSuggestion(lines))
        let workouts = suggestion.items.compactMap { item -> Workout? in
            if case .workout(let w)? = item.asset { return w }
            return nil
        }
        #expect(workouts.count == 1)
        #expect(workouts.allSatisfy { $0.details?.localizedName == "Outdoor Run" }, "the rest of the workout arrives")
        #expect(workouts.allSatisfy { $0.route.isEmpty != placeKept }, "route points: \(workouts.map(\.route.count))")
        pickerd.stop()
    }

    @Test("a script that keeps none of a suggestion's items cancels: the app hears cancelled, never waits for ever")
    func keepingNothingCancels() throws {
        // The Morning run holds no reflection: the rule leaves nothing to add.
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Morning run", "keep": ["reflection"]}]}"#)
        let outcome = try #require(try testClient(pickerd, "present").last)
        #expect(outcome["result"] as? String == "cancelled", "\(outcome)")
        #expect(pickerd.logText.contains("keeps none of its"), "\(pickerd.logText)")
        pickerd.stop()
    }

    @Test("a sandboxed app (a Flatpak-like bwrap sandbox) that sees only the client socket presents and gets its items; the store is out of its view")
    func sandboxed() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"title": "Morning run", "keep": ["photo", "workout"]}]}"#)
        let client = BuiltProducts.url("pickerd-test-client").path
        let sandbox = try registeredSandbox(pickerd, program: client)
        let bwrap = URL(fileURLWithPath: "/usr/bin/bwrap")
        let result = try runCommand(bwrap, sandbox + [client, "/run/pickerd", "present"])
        let lines = jsonLines(result.stdout)
        #expect(lines.last?["result"] as? String == "approved", "\(result.stdout)\(result.stderr)")
        let kinds = Set((lines.last?["items"] as? [[String: String]] ?? []).compactMap { $0["kind"] })
        #expect(kinds == ["photo", "workout"])
        // What the sandbox cannot see: pickerd's data and configuration, the other sockets.
        for path in [pickerd.data, pickerd.data + "/pickerd.sqlite", pickerd.config, pickerd.runtime + "/agent.sock",
                     pickerd.runtime + "/control.sock", "/run/pickerd/agent.sock", "/run/pickerd/control.sock"] {
            let probe = try runCommand(bwrap, sandbox + ["/usr/bin/test", "-e", path])
            #expect(probe.status == 1, "\(path) is visible in the sandbox")
        }
        pickerd.stop()
    }

    @Test("each notEntitled cause is its own message, no UI appears and nothing else is sent",
          arguments: ["unregistered", "missing", "false", "absent", "hash"])
    func notEntitled(cause: String) throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#, register: cause != "unregistered")
        // Registration refuses entitlements that do not allow presenting (see below); a file changed
        // after registering is refused when the app presents.
        if cause == "missing" { try FileManager.default.removeItem(atPath: pickerd.root + "/app.entitlements") }
        if cause == "false" { try Entitlements.refused.write(toFile: pickerd.root + "/app.entitlements", atomically: true, encoding: .utf8) }
        if cause == "absent" { try Entitlements.absent.write(toFile: pickerd.root + "/app.entitlements", atomically: true, encoding: .utf8) }
        if cause == "hash" {
            let manifest = pickerd.config + "/apps/com.example.test.json"
            var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [String: Any]
            json["executableSHA256"] = String(repeating: "0", count: 64)
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: manifest))
        }
        let lines = try testClient(pickerd, "present")
        #expect(lines.count == 1)
        #expect(lines.first?["code"] as? String == "notEntitled")
        let message = lines.first?["message"] as? String ?? ""
        let expected = ["unregistered": "is not a registered app", "missing": "does not exist", "false": "is not true",
                        "absent": "is absent", "hash": "SHA-256"][cause]!
        #expect(message.contains(expected), "\(message)")
        #expect((lines.first?["descriptors"] as? [Any])?.isEmpty ?? true)
        #expect(!pickerd.logText.contains("review for"), "no picker was shown")
        #expect(!pickerd.logText.contains("started a picker agent"))
        pickerd.stop()
    }

    @Test("registering with entitlements that do not allow presenting is refused at once, saying why")
    func registrationRefused() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#, register: false)
        for (plist, why) in [(Entitlements.refused, "is not true"), (Entitlements.absent, "is absent")] {
            let file = pickerd.root + "/refused.entitlements"
            try plist.write(toFile: file, atomically: true, encoding: .utf8)
            let r = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path, "--entitlements", file])
            #expect(r.status == 1)
            #expect(r.stderr.contains("not registered") && r.stderr.contains(why), "\(r.stderr)")
        }
        #expect(try pickerd.ctl(["apps", "list"]).stdout.contains("no apps"))
        pickerd.stop()
    }

    @Test("cancel gives cancelled and releases nothing")
    func cancelled() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#)
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["result"] as? String == "cancelled")
        #expect((lines.last?["descriptors"] as? [Any])?.isEmpty ?? false)
        #expect(try pickerd.ctl(["history"]).stdout.contains("nothing has been released yet"))
        pickerd.stop()
    }

    @Test("the app closing its request dismisses the picker and gives dismissed (clientClosed)")
    func closed() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "wait"}]}"#)
        let lines = try testClient(pickerd, "close")
        #expect(lines.last?["result"] as? String == "dismissed")
        #expect(lines.last?["reason"] as? String == "clientClosed")
        #expect(eventually { pickerd.logText.contains("clientClosed") }, "the agent was told")
        pickerd.stop()
    }

    @Test("an app that vanishes mid-review ends its session; the agent is told; nothing is kept for it")
    func vanished() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "wait"}]}"#)
        _ = try testClient(pickerd, "vanish")
        #expect(eventually { pickerd.logText.contains("clientGone") })
        #expect(try eventually { try pickerd.ctl(["status"]).stdout.contains("sessions: 0 active") })
        #expect(try pickerd.ctl(["history"]).stdout.contains("nothing has been released yet"))
        pickerd.stop()
    }

    @Test("the picker agent vanishing mid-review gives the app dismissed (agentGone)")
    func agentGone() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "exit"}]}"#)
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["result"] as? String == "dismissed")
        #expect(lines.last?["reason"] as? String == "agentGone")
        pickerd.stop()
    }

    @Test("a second present while one is open gets busy")
    func busy() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "wait"}]}"#)
        let lines = try testClient(pickerd, "busy")
        #expect(lines.first?["event"] as? String == "accepted")
        #expect(lines.last?["code"] as? String == "busy")
        pickerd.stop()
    }

    @Test("no agent and no agent command: noPickerAvailable")
    func noPicker() throws {
        let pickerd = try RunningPickerd(seed: true)
        try Entitlements.allowed.write(toFile: pickerd.root + "/e.plist", atomically: true, encoding: .utf8)
        _ = try pickerd.ctl(["apps", "register", "--executable", BuiltProducts.url("pickerd-test-client").path, "--entitlements", pickerd.root + "/e.plist"])
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["code"] as? String == "noPickerAvailable")
        pickerd.stop()
    }

    @Test("only a terminal is accepted as the app's terminal: a pipe, or no descriptor, is refused and no picker starts")
    func fakeTerminal() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "cancel"}]}"#)
        let lines = try testClient(pickerd, "fake-terminal")
        let errors = lines.filter { $0["event"] as? String == "error" }
        #expect(errors.count == 2, "\(lines)")
        #expect(errors.allSatisfy { $0["code"] as? String == "invalidArgument" })
        #expect(errors.first?["message"] as? String == "the descriptor handed over as a terminal is not one")
        #expect(!pickerd.logText.contains("started a terminal picker"))
        pickerd.stop()
    }

    @Test("from a client connection every agent and control message is refused")
    func probing() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        let lines = try testClient(pickerd, "probe")
        #expect(lines.count == 47)  // the probe list: every agent and control message (the places corrections are the last four)
        #expect(lines.allSatisfy { $0["code"] as? String == "wrongRole" })
        pickerd.stop()
    }

    @Test("a token preloads its suggestion for review; a valid and an unknown token look the same to the app")
    func tokens() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"list": "recent", "index": 3}, {"preloaded": true, "list": "recent", "index": 0}]}"#)
        // The id a notification would carry: the suggestion the first review chose.
        _ = try testClient(pickerd, "present")
        func decisions() -> [Substring] { pickerd.logText.split(separator: "\n").filter { $0.contains("keeping") } }
        let first = try #require(decisions().first)
        let id = String(first.split(separator: "(")[1].prefix(36))
        #expect(UUID(uuidString: id) != nil)
        let valid = try testClient(pickerd, "present", id)
        let unknown = try testClient(pickerd, "present", UUID().uuidString)
        #expect(decisions().count == 3)
        #expect(decisions()[1].contains("(\(id)) preloaded"), "the picker opened on the token's suggestion")
        #expect(!decisions()[2].contains("preloaded"), "an unknown token opens the normal picker")
        // What the app receives has the same shape either way: accepted, then one outcome.
        #expect(valid.map { $0["event"] as? String ?? "" } == ["accepted", "outcome"])
        #expect(unknown.map { $0["event"] as? String ?? "" } == ["accepted", "outcome"])
        #expect((valid[0]["handle"] as? String)?.count == (unknown[0]["handle"] as? String)?.count)
        pickerd.stop()
    }

    @Test("another uid cannot connect; with the directory opened up, pickerd refuses it by uid")
    func otherUID() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        // A copy of the client that user nobody can execute.
        let binary = pickerd.root + "/client-copy"
        try FileManager.default.copyItem(atPath: BuiltProducts.url("pickerd-test-client").path, toPath: binary)
        chmod(pickerd.root, 0o755)
        chmod(binary, 0o755)
        func asNobody() throws -> CommandResult {
            try runCommand(URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", binary, pickerd.runtime, "present"])
        }
        let blocked = try asNobody()
        #expect(blocked.status != 0)
        #expect(blocked.stdout.lowercased().contains("permission denied"), "\(blocked.stdout)")
        chmod(pickerd.runtime, 0o755)
        chmod(pickerd.runtime + "/client.sock", 0o666)
        let refused = try asNobody()
        #expect(refused.stdout.contains("permissionDenied"), "\(refused.stdout)")
        #expect(refused.stdout.contains("serves only uid"))
        pickerd.stop()
    }

    @Test("pickerd restarted keeps the library, consent and history")
    func restart() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        #expect(try testClient(pickerd, "present").last?["result"] as? String == "approved")
        #expect(pickerd.stop() == 0)
        let again = try RunningPickerd(seed: true, root: pickerd.root, extra: pickerd.extra)
        let status = try again.ctl(["status"]).stdout
        #expect(status.contains("library: 196 items"))
        #expect(status.contains("consent: given"))
        #expect(try again.ctl(["history"]).stdout.contains("Test App (com.example.test)"))
        again.stop()
    }

    @Test("SIGTERM during a review: the app gets dismissed (shutdown) and pickerd exits 0")
    func sigterm() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "wait"}]}"#)
        let client = Process()
        client.executableURL = BuiltProducts.url("pickerd-test-client")
        client.arguments = [pickerd.runtime, "present"]
        let out = Pipe()
        client.standardOutput = out
        try client.run()
        eventually { pickerd.logText.contains("waiting") }
        #expect(pickerd.stop() == 0)
        client.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("\"reason\":\"shutdown\""), "\(text)")
    }

    @Test("the configuration reports off, with every cause")
    func configuration() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        let lines = try testClient(pickerd, "configuration")
        #expect(lines.first?["schedule"] as? String == "off")
        #expect((lines.first?["causes"] as? [String]) == ["suggestionsOff", "notChosenApp", "noUrlFormat"])
        pickerd.stop()
    }
}

func sha256(_ bytes: [UInt8]) -> String {
    // The same digest the test client prints, computed by a second implementation: sha256sum.
    let path = NSTemporaryDirectory() + "/pkd-hash-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try? runCommand(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path])
    return String(result?.stdout.prefix(64) ?? "")
}
