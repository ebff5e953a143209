import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import PickerdTestKit
import Testing

@Suite("pickerd and pickerctl, as separate processes", .serialized)
struct PickerctlTests {
    @Test("pickerd --seed-demo, then pickerctl status and library stats show every asset type and 30+ suggestions")
    func seededLibrary() throws {
        let pickerd = try RunningPickerd()
        let status = try pickerd.ctl(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("library: 196 items"))
        let stats = try pickerd.ctl(["library", "stats"])
        #expect(stats.status == 0)
        let counts = Dictionary(uniqueKeysWithValues: stats.stdout.split(separator: "\n").compactMap { line -> (String, Int)? in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let n = Int(parts[1]) else { return nil }
            return (String(parts[0]), n)
        })
        for kind in ["photo", "livePhoto", "video", "workout", "workoutGroup", "contact", "location", "locationGroup", "song",
                     "podcast", "motionActivity", "genericMedia", "reflection", "stateOfMind"] {
            #expect((counts[kind] ?? 0) > 0, "\(kind) missing from: \(stats.stdout)")
        }
        let suggestions = stats.stdout.split(separator: "\n").first { $0.hasPrefix("suggestions: ") }
            .flatMap { Int($0.dropFirst("suggestions: ".count).prefix { $0.isNumber }) } ?? 0
        #expect(suggestions >= 30)
        #expect(stats.stdout.contains("largest suggestion: 13 items"))
        #expect(pickerd.logText.contains("seeding: day 16 of 16"))
        #expect(pickerd.stop() == 0)
    }

    @Test("settings set turns a category off, pickerd keeps it across a restart, and stats follow it")
    func settingsPersist() throws {
        let pickerd = try RunningPickerd()
        let before = try pickerd.ctl(["library", "stats"])
        #expect(before.stdout.contains("largest suggestion: 13 items"), "\(before.stdout)")
        for category in ["significant-locations", "photos"] {
            let set = try pickerd.ctl(["settings", "set", category, "off"])
            #expect(set.status == 0)
            let line = set.stdout.split(separator: "\n").first { $0.hasPrefix(category + " ") }
            #expect(line?.hasSuffix(" off") == true, "\(set.stdout)")
        }
        #expect(pickerd.stop() == 0)
        let again = try RunningPickerd(seed: true, root: pickerd.root)
        let get = try again.ctl(["settings", "get"])
        #expect(get.stdout.contains("significant-locations  off"))
        #expect(get.stdout.contains("photos                 off"))
        #expect(get.stdout.contains("activity               on"))
        #expect(again.logText.contains("already holds a library"))
        let stats = try again.ctl(["library", "stats"])
        // The trip and the weeks lose their places and photos: no suggestion has 13 items left.
        #expect(!stats.stdout.contains("largest suggestion: 13 items"), "\(stats.stdout)")
        again.stop()
    }

    @Test("seed-demo through pickerctl refuses to overwrite, and --replace reseeds with progress")
    func seedThroughControl() throws {
        let pickerd = try RunningPickerd()
        let refused = try pickerd.ctl(["library", "seed-demo"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("pickerctl: the library already holds 196 items"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let replaced = try pickerd.ctl(["library", "seed-demo", "--replace"])
        #expect(replaced.status == 0)
        #expect(replaced.stderr.contains("seeding: suggestions (196/196 items)"))
        #expect(replaced.stdout.contains("largest suggestion: 13 items"))
        // A scale library is no longer pickerd's to make: a typed error naming the tool that writes one.
        let control = try ProtocolClient(path: pickerd.runtime + "/control.sock", role: .control, software: "pickerctl test")
        let scale = #expect(throws: ProtocolClient.RemoteError.self) {
            try control.request(.librarySeedDemo(LibrarySeedDemoRequest(replace: true, scalePhotos: 1500)))
        }
        #expect(scale?.code == .invalidArgument, "\(String(describing: scale))")
        #expect(scale?.message.contains("pickerd-scale-library") == true, "\(String(describing: scale))")
        #expect(try !pickerd.ctl(["library", "seed-demo", "--help"]).stdout.contains("--scale"))
        pickerd.stop()
    }

    @Test("errors are one line and a non-zero exit: bad argument 2, pickerd unreachable 3")
    func errors() throws {
        let pickerd = try RunningPickerd(seed: false)
        let bad = try pickerd.ctl(["settings", "set", "bogus", "on"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "pickerctl: unknown category 'bogus' (one of: activity, media, contacts, photos, significant-locations, reflection-prompts, state-of-mind)\n")
        let notOnOff = try pickerd.ctl(["settings", "set", "photos", "maybe"])
        #expect(notOnOff.status == 2)
        #expect(notOnOff.stderr == "pickerctl: 'maybe' is neither on nor off\n")
        #expect(pickerd.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: pickerd.runtime + "/control.sock"), "the socket is removed on exit")
        let down = try pickerd.ctl(["status"])
        #expect(down.status == 3)
        #expect(down.stderr == "pickerctl: cannot connect to \(pickerd.runtime)/control.sock: no socket at that path (is pickerd running?)\n")
    }

    @Test("a second pickerd on the same runtime directory refuses to start, saying why")
    func secondInstance() throws {
        let pickerd = try RunningPickerd(seed: false)
        let second = try runProduct("pickerd", pickerd.arguments)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another pickerd is already running on \(pickerd.runtime)"))
        #expect(try pickerd.ctl(["status"]).status == 0, "the first one still serves")
        pickerd.stop()
    }

    @Test("a corrupt store no longer stops pickerd: it is moved aside (kept), pickerd serves, and one log line names the file and the copy")
    func corruptStore() throws {
        var template = Array("/tmp/pkd-it.XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: root + "/data/pickerd.sqlite"))
        let pickerd = try RunningPickerd(seed: false, root: root)
        let said = pickerd.logText.split(separator: "\n").filter { $0.contains("the store was damaged and has been salvaged") }
        #expect(said.count == 1, "\(pickerd.logText)")
        #expect(said.first?.contains("the store \(root)/data/pickerd.sqlite is not a readable SQLite database") == true, "\(said)")
        #expect(said.first?.contains("copy=\(root)/data/pickerd.sqlite.damaged-20") == true, "\(said)")
        #expect(pickerd.stop() == 0)
    }

    @Test("on the control socket: a request before hello, a wrong role, garbage; pickerd keeps serving")
    func badPeers() throws {
        let pickerd = try RunningPickerd(seed: false)
        let socket = pickerd.runtime + "/control.sock"

        let early = try UnixSocket.connect(path: socket)
        try early.send(Envelope(requestId: 5, body: .status(StatusRequest())))
        guard case .error(let e1)? = try early.receive()?.envelope.body else { Issue.record("no error"); return }
        #expect(e1.code == .handshakeRequired)
        #expect(try early.receive() == nil, "closed after")

        let wrong = try UnixSocket.connect(path: socket)
        try wrong.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .client))))
        guard case .error(let e2)? = try wrong.receive()?.envelope.body else { Issue.record("no error"); return }
        #expect(e2.code == .wrongRole)

        let future = try UnixSocket.connect(path: socket)
        try future.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 7, maxVersion: 9, role: .control))))
        guard case .error(let e3)? = try future.receive()?.envelope.body else { Issue.record("no error"); return }
        #expect(e3.code == .unsupportedVersion)

        let garbage = try UnixSocket.connect(path: socket)
        try garbage.sendRawBytes(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .error(let e4)? = try garbage.receive()?.envelope.body else { Issue.record("no error"); return }
        #expect(e4.code == .malformed)

        let client = try ProtocolClient(path: socket, role: .control, software: "test")
        let error = #expect(throws: ProtocolClient.RemoteError.self) { try client.request(.present(PresentRequest())) }
        #expect(error?.code == .wrongRole)
        // Still serving, on the same connection and on new ones.
        guard case .statusReply? = try client.request(.status(StatusRequest())).envelope.body else { Issue.record("no status"); return }
        #expect(try pickerd.ctl(["status"]).status == 0)
        pickerd.stop()
    }

    @Test("systemd socket activation: pickerd serves the sockets it is given, and leaves them to systemd on exit")
    func socketActivation() throws {
        var template = Array("/tmp/pkd-it.XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // What systemd does: bind and listen, pass the sockets from descriptor 3, exec the service.
        let process = socketActivatedPickerd(root: root)
        let log = Pipe()
        process.standardError = log
        try process.run()
        var up = false
        for _ in 0..<100 {
            if (try? runProduct("pickerctl", ["status", "--runtime-dir", root + "/run"]))?.status == 0 { up = true; break }
            usleep(50_000)
        }
        #expect(up)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.components(separatedBy: "socket from systemd").count - 1 == 3, "\(text)")
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: root + "/run/control.sock"), "systemd's socket stays")
    }

    // In this serialized suite, not DoctorTests: two socket-activated pickerds started by tests running
    // in parallel left the test runner waiting on an exited pickerctl (not reaped) under load.
    @Test("a socket-activated pickerd: doctor says systemd handed its sockets over")
    func socketActivated() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-dr")
        // What systemd does (the test kit's stand-in for it, as PickerctlTests' socket activation test uses).
        let process = socketActivatedPickerd(root: root)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var result: CommandResult?
        #expect(eventually(timeout: 20) {
            result = try? doctor(runtime: root + "/run")
            return result.map { $0.status != 3 } ?? false
        }, "pickerd came up: \(result?.stdout ?? "")")
        let output = result?.stdout ?? ""
        #expect(marked(output, "✓").contains(
            "✓ sockets handed over by systemd (socket activation): client.sock, agent.sock, control.sock in \(root)/run"), "\(output)")
        #expect(!output.contains("bound by pickerd itself"), "\(output)")
    }

    @Test("the runtime directory is private and the socket is 0600")
    func permissions() throws {
        let pickerd = try RunningPickerd(seed: false)
        let dir = try FileManager.default.attributesOfItem(atPath: pickerd.runtime)[.posixPermissions] as? Int
        let sock = try FileManager.default.attributesOfItem(atPath: pickerd.runtime + "/control.sock")[.posixPermissions] as? Int
        #expect(dir == 0o700)
        #expect(sock == 0o600)
        pickerd.stop()
    }
}
