// pickerd-test-client: a test helper app. Presents the picker over the raw protocol and prints, one
// JSON object a line, everything it received: each message, and for each descriptor its content's
// hex digest, whether it could be written, and what /proc says it is. Modes drive the cases the
// tests need: a plain presentation, a close, a second present while busy, a disconnect mid-review,
// a latency run, and an app that hands over a pty whose master it keeps (own-pty, OwnPty.swift).

import Foundation
import CTestClientShims
import Glibc
import Synchronization
import PickerdTransport
import PickerdWire
import SystemPackage

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: pickerd-test-client RUNTIME-DIR MODE [TOKEN|COUNT]\n".utf8))
    exit(2)
}
let runtime = arguments[1], mode = arguments[2], extra = arguments.count > 3 ? arguments[3] : ""
let socket = runtime + "/client.sock"

func describe(_ frame: ReceivedFrame) -> [String: Any] {
    var out: [String: Any] = ["request": frame.envelope.requestId]
    switch frame.envelope.body {
    case .presentAccepted(let a)?: out["event"] = "accepted"; out["handle"] = a.sessionHandle
    case .error(let e)?: out["event"] = "error"; out["code"] = e.code.description; out["message"] = e.message
    case .outcome(let o)?:
        out["event"] = "outcome"
        out["handle"] = o.sessionHandle
        switch o.result {
        case .approved(let s)?:
            out["result"] = "approved"
            out["title"] = s.title
            // An item's local time, only when pickerd sent one (only with a kept place): as text, as
            // every field of an item is, so the tests read the items as [[String: String]].
            out["items"] = s.items.map { item -> [String: String] in
                var line = ["id": item.id, "kind": item.asset.map { AssetKind($0).rawValue } ?? ""]
                if let offset = item.localUtcOffsetS { line["utcOffset"] = String(offset) }
                return line
            }
        case .cancelled?: out["result"] = "cancelled"
        case .dismissed(let d)?: out["result"] = "dismissed"; out["reason"] = d.reason.description
        case .error(let e)?: out["result"] = "error"; out["code"] = e.code.description; out["message"] = e.message
        case nil: out["result"] = "none"
        }
    default: out["event"] = "other"
    }
    out["descriptors"] = frame.descriptors.map { owned -> [String: Any] in
        let fd = owned.descriptor!.rawValue
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        lseek(fd, 0, SEEK_SET)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        let writable = write(fd, "x", 1) >= 0
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? ""
        return ["sha256": SHA256.hex(bytes), "bytes": bytes.count, "writable": writable, "link": link,
                "base64": Data(bytes).base64EncodedString()]
    }
    // Every byte of the frame's body exactly as received, for the tests' audits.
    out["raw"] = Data(frame.body).base64EncodedString()
    return out
}

/// The apps to present as at once, one process each (`PICKERD_TEST_APPS`, paths separated by `:`):
/// pickerd serves one picker per app at a time, so concurrent presentations come from several apps.
/// Without it, concurrent presentations come from this one process, and all but one are busy.
let concurrentApps = (ProcessInfo.processInfo.environment["PICKERD_TEST_APPS"] ?? "").split(separator: ":").map(String.init)

/// One whole presentation by `program` (another registered copy of this helper), in its own process:
/// whether it was approved, and whether its outcome named the session it was accepted with.
@Sendable nonisolated func presentInChild(_ program: String) -> (approved: Bool, ownSession: Bool) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: program)
    child.arguments = [runtime, "present"]
    child.environment = ProcessInfo.processInfo.environment.filter { $0.key != "PICKERD_TEST_APPS" }
    let output = Pipe()
    child.standardOutput = output
    guard (try? child.run()) != nil else { return (false, false) }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let accepted = lines.first { $0["event"] as? String == "accepted" }?["handle"] as? String
    let outcome = lines.last { $0["event"] as? String == "outcome" }
    return (outcome?["result"] as? String == "approved", accepted != nil && outcome?["handle"] as? String == accepted)
}

/// One whole presentation on its own connection; whether it was approved.
@Sendable nonisolated func soakOne(_ socket: String) -> Bool {
    do {
        let c = try ProtocolClient(path: socket, role: .client, software: "soak")
        defer { c.close() }
        let frame = try c.request(.present(PresentRequest(buttonTitle: "Soak")), isFinal: { if case .outcome = $0 { true } else { false } })
        if case .outcome(let o)? = frame.envelope.body, case .approved? = o.result { return true }
        return false
    } catch {
        return false
    }
}

final class FailureCount: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

// The modes of an app that opens a pty of its own (OwnPty.swift) manage their own connections.
switch mode {
case "own-pty": OwnPty.main(variant: extra, socket: socket)
case "read-master": OwnPty.readMaster(Int32(extra) ?? -1, parent: CommandLine.arguments.count > 4 ? Int32(CommandLine.arguments[4]) ?? 1 : 1)
case "present-tty": OwnPty.presentOnTTY(extra, socket: socket)
case "pause":
    // What a borrowed app's process runs until the attacker stops it (borrow, below).
    sleep(120)
    exit(0)
default: break
}

do {
    let client = try ProtocolClient(path: socket, role: .client, software: "pickerd-test-client")
    let connection = client.connection
    func present(_ id: UInt64, token: String = "") throws {
        try connection.send(Envelope(requestId: id, body: .present(PresentRequest(suggestionToken: token, buttonTitle: "Add to Test"))))
    }
    func next() throws -> ReceivedFrame? {
        guard let frame = try connection.receive() else { emit(["event": "closed"]); return nil }
        emit(describe(frame))
        return frame
    }
    switch mode {
    case "borrow", "borrow-keep":
        // An attacker (issue 27): connected as itself, it forks; its parent (the process pickerd
        // saw connect) execs the registered app at EXTRA and is stopped by the child, which holds
        // the connection and presents. "borrow-keep": the parent keeps the connection across the
        // exec too, so both hold it. Prints the child's replies; ends the parent.
        guard let descriptor = connection.descriptor?.rawValue else { exit(1) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([extra, runtime, "pause"] as [String]).map { strdup($0) } + [nil]
        guard testclient_fork_and_exec_parent(descriptor, mode == "borrow-keep" ? 1 : 0, extra, argv) == 0 else {
            emit(["event": "failure", "message": "fork or exec failed: \(errno)"])
            exit(1)
        }
        let parent = getppid()
        let registered = try? FileManager.default.destinationOfSymbolicLink(atPath: extra)
        var running = false
        for _ in 0..<1000 where !running {
            let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(parent)/exe")
            running = exe == extra || (registered != nil && exe == registered)
            if !running { usleep(10_000) }
        }
        kill(parent, SIGSTOP)
        emit(["event": "borrowed", "parent": Int(parent), "running-registered": running])
        try present(1)
        while let frame = try next() {
            if case .outcome? = frame.envelope.body { break }
            if case .error? = frame.envelope.body { break }
        }
        kill(parent, SIGKILL)
    case "share":
        // An app that hands its connection to another program (EXTRA, e.g. /bin/sleep) and then
        // presents: that program holds the app's end too.
        guard let descriptor = connection.descriptor?.rawValue else { exit(1) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([extra, "30"] as [String]).map { strdup($0) } + [nil]
        let child = testclient_spawn_holding(descriptor, extra, argv)
        // Until the child runs that program (before its exec it is still this one).
        for _ in 0..<1000 where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/exe")) != extra {
            usleep(10_000)
        }
        try present(1)
        while let frame = try next() {
            if case .outcome? = frame.envelope.body { break }
            if case .error? = frame.envelope.body { break }
        }
        kill(child, SIGKILL)
    case "present":
        try present(10, token: extra)
        while let frame = try next() { if case .outcome? = frame.envelope.body { break }; if case .error? = frame.envelope.body { break } }
    case "close":
        try present(10)
        guard let accepted = try next(), case .presentAccepted(let a)? = accepted.envelope.body else { exit(1) }
        usleep(300_000)
        try connection.send(Envelope(requestId: 11, body: .close(CloseRequest(sessionHandle: a.sessionHandle))))
        while let frame = try next() { if case .outcome? = frame.envelope.body { break } }
    case "busy":
        try present(10)
        _ = try next()
        try present(12)
        _ = try next()
        exit(0)
    case "vanish":
        try present(10)
        _ = try next()
        usleep(300_000)
        exit(0)  // gone mid-review: the kernel closes the socket
    case "fake-terminal":
        // A pipe handed over as the terminal, then a terminal index with no descriptor: both refused.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { exit(1) }
        try connection.send(Envelope(requestId: 20, body: .present(PresentRequest(buttonTitle: "Add to Test", hasTerminal: true, terminalFdIndex: 0))),
                            descriptors: [FileDescriptor(rawValue: ends[0])])
        _ = try next()
        try connection.send(Envelope(requestId: 21, body: .present(PresentRequest(buttonTitle: "Add to Test", hasTerminal: true, terminalFdIndex: 3))))
        _ = try next()
    case "configuration":
        try connection.send(Envelope(requestId: 3, body: .configuration(ConfigurationRequest())))
        if let frame = try connection.receive(), case .configurationReply(let c)? = frame.envelope.body {
            emit(["event": "configuration", "schedule": c.schedule.description, "causes": c.offCauses.map(\.description),
                  "raw": Data(frame.body).base64EncodedString()])
        }
    case "probe":
        // Every agent and control message kind from a client connection: each must be refused.
        let bodies: [Envelope.Body] = [
            // The agent role's messages, both directions.
            .agentRegister(AgentRegister()), .agentRegistered(AgentRegistered()), .review(ReviewRequest()),
            .consentDecision(ConsentDecision()), .reviewDecision(ReviewDecision()), .dismiss(Dismiss()),
            .fetchMedia(FetchMediaRequest()), .fetchMediaReply(FetchMediaReply()), .cyclePrompt(CyclePromptRequest()),
            .cyclePromptReply(CyclePromptReply()), .suggestionsPage(SuggestionsPageRequest()), .suggestionsPageReply(SuggestionsPageReply()),
            // The control role's messages, both directions.
            .status(StatusRequest()), .statusReply(StatusReply()), .settingsGet(SettingsGetRequest()),
            .settingsSet(SettingsSetRequest()), .consentReset(ConsentResetRequest()), .settingsReply(SettingsReply()),
            .appsList(AppsListRequest()), .appsListReply(AppsListReply()), .appRegister(AppRegisterRequest()),
            .appRegisterReply(AppRegisterReply()), .appRemove(AppRemoveRequest()), .ack(Ack()), .history(HistoryRequest()),
            .historyReply(HistoryReply()), .librarySeedDemo(LibrarySeedDemoRequest()), .seedProgress(SeedProgress()),
            .libraryStats(LibraryStatsRequest()), .libraryStatsReply(LibraryStatsReply()),
            .notificationsGet(NotificationsGetRequest()), .notificationsSet(NotificationsSetRequest()),
            .notificationsReply(NotificationsReply()), .notificationsList(NotificationsListRequest()),
            .notificationsListReply(NotificationsListReply()), .notificationOpen(NotificationOpenRequest()),
            .notificationOpenReply(NotificationOpenReply()),
            // The person's known places: listed, and home and work corrected.
            .places(PlacesRequest()), .placesReply(PlacesReply()), .placesSet(PlacesSetRequest(role: "home", latitude: 41.15, longitude: -8.62)),
            .placesUnset(PlacesUnsetRequest()),
            // What only pickerd sends to a client.
            .helloReply(HelloReply()), .presentAccepted(PresentAccepted()), .outcome(Outcome()),
            .configurationReply(ConfigurationReply()), .donationReply(DonationReply()), .error(ErrorInfo()),
        ]
        for (i, body) in bodies.enumerated() {
            try connection.send(Envelope(requestId: UInt64(100 + i), body: body))
            _ = try next()
        }
    case "probe-hidden":
        // The person's hidden rules, from a client connection: every request and reply of them is
        // refused, so an app can neither read, add nor remove one.
        let rule = HiddenRule(target: .person(HiddenPerson(name: "Maya Okafor")))
        let bodies: [Envelope.Body] = [
            .hiddenList(HiddenListRequest()), .hiddenAdd(HiddenAddRequest(rule: rule)), .hiddenRemove(HiddenRemoveRequest(id: 1)),
            .hiddenReply(HiddenReply(rules: [rule])), .hide(HideRequest(target: .person, person: "Maya Okafor")),
            .hideReply(HideReply(rule: rule)), .unhide(UnhideRequest(ruleId: 1)),
        ]
        for (i, body) in bodies.enumerated() {
            try connection.send(Envelope(requestId: UInt64(200 + i), body: body))
            _ = try next()
        }
    case "probe-name-place":
        // Naming the person's places from a client connection: "Name this place" (an agent's
        // request) and `places name` (the control role's) are both refused; nothing is stored.
        let bodies: [Envelope.Body] = [
            .namePlace(NamePlaceRequest(sessionHandle: "1", suggestionId: UUID().uuidString, placeItemId: UUID().uuidString, name: "Probe Place")),
            .placesSet(PlacesSetRequest(role: "name", latitude: 40.7332, longitude: -73.9907, name: "Probe Place")),
        ]
        for (i, body) in bodies.enumerated() {
            try connection.send(Envelope(requestId: UInt64(300 + i), body: body))
            _ = try next()
        }
    case "soak", "concurrent":
        // Many presentations, one after another or all at once, each on its own connection.
        let count = Int(extra) ?? 100
        let failures = FailureCount()
        if mode == "soak" {
            for _ in 0..<count where !soakOne(socket) { failures.add() }
        } else {
            let group = DispatchGroup()
            for i in 0..<count {
                group.enter()
                Thread {
                    let approved = concurrentApps.isEmpty ? soakOne(socket) : presentInChild(concurrentApps[i % concurrentApps.count]).approved
                    if !approved { failures.add() }
                    group.leave()
                }.start()
            }
            group.wait()
        }
        emit(["event": mode, "sessions": count, "failures": failures.value])
    case "malformed":
        // Each on a fresh connection; each must be answered with its typed error.

        let cases: [(String, (FrameConnection) throws -> Void)] = [
            ("oversized", { try $0.sendRawBytes(FrameHeader(bodyLength: 1 << 30, descriptorCount: 0).bytes) }),
            ("garbage", { try $0.sendRawBytes((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }) }),
            ("undecodable", { try $0.sendRawBytes(FrameHeader(bodyLength: 3, descriptorCount: 0).bytes + [0xFF, 0xFF, 0xFF]) }),
            ("version", { try $0.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 9, maxVersion: 12, role: .client)))) }),
            ("role", { try $0.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .agent)))) }),
            ("no hello", { try $0.send(Envelope(requestId: 1, body: .present(PresentRequest()))) }),
        ]

        for (name, send) in cases {
            let raw = try UnixSocket.connect(path: socket)
            try send(raw)
            var line: [String: Any] = ["case": name]
            if case .error(let e)? = (try? raw.receive())??.envelope.body { line["code"] = e.code.description }
            line["closed"] = ((try? raw.receive()) ?? nil) == nil
            emit(line)
            try? raw.close()
        }
    case "hold":
        // An app that tries to lock others out: IDLE connections that never say hello and STALLED
        // ones that say hello and then stop in the middle of a frame, all held until pickerd closes
        // them or SECONDS pass. Prints "holding" once all are open, then how each one ended: the
        // error pickerd gave (tooManyConnections at once, deadlineExceeded later) and when.
        let parts = extra.split(separator: ",").compactMap { Double($0) }
        let (idle, stalled, seconds) = (Int(parts[0]), Int(parts[1]), parts.count > 2 ? parts[2] : 30)
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let start = Date()
        var held: [FrameConnection] = []
        for _ in 0..<idle { held.append(try UnixSocket.connect(path: socket)) }
        let hello = try Framing.encode(Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .client, software: "hold"))))
        // Stalled: the hello, then a frame announcing 100 bytes of which 10 come.
        let partial = FrameHeader(bodyLength: 100, descriptorCount: 0).bytes + [UInt8](repeating: 0x08, count: 10)
        for _ in 0..<stalled {
            let connection = try UnixSocket.connect(path: socket)
            // pickerd may already have refused and closed it (EPIPE): it is held all the same, and
            // how it ended (the refusal waiting in its buffer) is read below.
            try? connection.sendRawBytes(hello + partial)
            held.append(connection)
        }
        emit(["event": "holding", "idle": idle, "stalled": stalled])
        // How each connection ended: (code of the error it was sent, seconds after the start).
        var ended = [(code: String, seconds: Double)?](repeating: nil, count: held.count)
        while ended.contains(where: { $0 == nil }) && Date().timeIntervalSince(start) < seconds {
            var fds = held.enumerated().filter { ended[$0.offset] == nil }.map { pollfd(fd: $0.element.descriptor!.rawValue, events: Int16(POLLIN), revents: 0) }
            let indices = held.indices.filter { ended[$0] == nil }
            _ = poll(&fds, nfds_t(fds.count), 200)
            for (slot, entry) in fds.enumerated() where entry.revents != 0 {
                let index = indices[slot]
                var code = "closed"
                // A stalled connection first gets its hello reply; read on to the error or the end.
                while let frame = try? held[index].receive() {
                    if case .error(let e)? = frame.envelope.body { code = e.code.description; break }
                }
                if code != "closed" { _ = try? held[index].receive() }
                ended[index] = (code, Date().timeIntervalSince(start))
            }
        }
        var counts: [String: Int] = [:]
        var latest: [String: Double] = [:]
        for (index, end) in ended.enumerated() {
            let kind = index < idle ? "idle" : "stalled"
            let key = "\(kind):\(end?.code ?? "open")"
            counts[key, default: 0] += 1
            latest[key] = max(latest[key] ?? 0, end?.seconds ?? seconds)
        }
        emit(["event": "held", "ended": counts, "latest": latest])
    case "isolation":
        // Concurrent presentations: each must get exactly one outcome, for its own session.
        let count = Int(extra) ?? 8
        let mismatches = FailureCount()
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                if !concurrentApps.isEmpty {
                    let (approved, own) = presentInChild(concurrentApps[i % concurrentApps.count])
                    if !approved || !own { mismatches.add() }
                    return
                }
                guard let c = try? ProtocolClient(path: socket, role: .client, software: "isolation") else { mismatches.add(); return }
                defer { c.close() }
                var handle = ""
                guard let frame = try? c.request(.present(PresentRequest()), isFinal: { if case .outcome = $0 { true } else { false } },
                                                 onEvent: { if case .presentAccepted(let a) = $0 { handle = a.sessionHandle } }),
                      case .outcome(let o)? = frame.envelope.body, o.sessionHandle == handle, !handle.isEmpty else { mismatches.add(); return }
            }.start()
        }
        group.wait()
        emit(["event": "isolation", "sessions": count, "mismatches": mismatches.value])
    case "bench":
        // Present → outcome, repeatedly, on fresh connections; prints the median in ms.
        let count = Int(extra) ?? 100
        var samples: [Double] = []
        for i in 0..<count {
            let start = Date()
            let c = try ProtocolClient(path: socket, role: .client, software: "bench")
            let frame = try c.request(.present(PresentRequest(buttonTitle: "Bench")), isFinal: { if case .outcome = $0 { true } else { false } })
            samples.append(Date().timeIntervalSince(start) * 1000)
            guard case .outcome(let o)? = frame.envelope.body, case .approved? = o.result else {
                FileHandle.standardError.write(Data("run \(i): no approval\n".utf8))
                exit(1)
            }
            c.close()
        }
        samples.sort()
        emit(["event": "bench", "runs": count, "median_ms": samples[count / 2], "p90_ms": samples[count * 9 / 10],
              "min_ms": samples[0], "max_ms": samples[count - 1]])
    default:
        FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        exit(2)
    }
} catch let error as ProtocolClient.RemoteError {
    emit(["event": "error", "code": error.code.description, "message": error.message])
    exit(1)
} catch {
    emit(["event": "failure", "message": "\(error)"])
    exit(1)
}
