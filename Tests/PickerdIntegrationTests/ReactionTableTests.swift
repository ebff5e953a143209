import Foundation
import Glibc
import PickerdTestKit
import PickerdTransport
import PickerdWire
import SystemPackage
import Testing

/// Protocol/README.md section 7, row by row: for each situation, the error pickerd answers and
/// whether the connection stays open. A row here is a row there.
@Suite("The reaction table: each protocol edge gets its documented error, and the connection its documented fate", .serialized)
struct ReactionTableTests {
    /// One row: on `role`'s socket, after the hello when `greeted` (and, on the agent socket, after
    /// registering when `registered`), `act` sends something; pickerd answers `code`; the
    /// connection then stays open or not.
    struct Row: Sendable {
        let situation: String
        var role: Role = .client
        var greeted = true
        var registered = false
        let act: @Sendable (FrameConnection) throws -> Void
        let code: ErrorCode
        let open: Bool
    }

    /// A descriptor to attach where none belongs (kept open for the whole run).
    static let stray = try! SealedMemoryFile.make(name: "stray", contents: [1])

    static func hello(_ role: Role = .client, id: UInt64 = 1, min: UInt32 = 1, max: UInt32 = 1) -> Envelope {
        Envelope(requestId: id, body: .hello(Hello(minVersion: min, maxVersion: max, role: role, software: "reaction-table")))
    }

    /// A frame whose body is `body` as it is.
    static func raw(_ body: [UInt8], descriptors: Int = 0) -> [UInt8] {
        FrameHeader(bodyLength: UInt32(body.count), descriptorCount: UInt16(descriptors)).bytes + body
    }

    static let rows: [Row] = [
        // Before the hello: everything but a good hello fails the handshake, and the connection closes.
        Row(situation: "an empty envelope (zero-length frame) before the hello", greeted: false,
            act: { try $0.sendRawBytes(raw([])) }, code: .handshakeRequired, open: false),
        Row(situation: "an unknown message kind before the hello", greeted: false,
            act: { try $0.sendRawBytes(raw([0x08, 0x01, 0xB8, 0x3E, 0x01])) }, code: .handshakeRequired, open: false),
        Row(situation: "a request before the hello", greeted: false,
            act: { try $0.send(Envelope(requestId: 1, body: .present(PresentRequest()))) }, code: .handshakeRequired, open: false),
        Row(situation: "a hello for another role", greeted: false,
            act: { try $0.send(hello(.agent)) }, code: .wrongRole, open: false),
        Row(situation: "a hello with no version in common", greeted: false,
            act: { try $0.send(hello(min: 9, max: 12)) }, code: .unsupportedVersion, open: false),
        Row(situation: "a hello with request id 0", greeted: false,
            act: { try $0.send(hello(id: 0)) }, code: .invalidArgument, open: false),
        Row(situation: "a hello with a descriptor attached", greeted: false,
            act: { try $0.send(hello(), descriptors: [stray.descriptor!]) }, code: .invalidArgument, open: false),
        // Frames that cannot be read: the stream is out of step, so it closes.
        Row(situation: "a length prefix over the limit",
            act: { try $0.sendRawBytes(FrameHeader(bodyLength: 1 << 30, descriptorCount: 0).bytes) }, code: .frameTooLarge, open: false),
        Row(situation: "reserved header bytes not zero",
            act: { try $0.sendRawBytes([0, 0, 0, 1, 0, 0, 0, 1, 0]) }, code: .malformed, open: false),
        Row(situation: "a body that is not an Envelope",
            act: { try $0.sendRawBytes(raw([0xFF, 0xFF, 0xFF])) }, code: .malformed, open: false),
        Row(situation: "descriptors that no header declares",
            act: { try $0.sendRawBytes(try Framing.encode(Envelope(requestId: 2, body: .configuration(ConfigurationRequest()))),
                                       descriptors: [stray.descriptor!]) }, code: .malformed, open: false),
        // After the hello: a request pickerd cannot serve is refused, and the connection stays open.
        Row(situation: "an empty envelope after the hello",
            act: { try $0.sendRawBytes(raw([])) }, code: .unknownRequest, open: true),
        Row(situation: "an unknown message kind (field 999) after the hello",
            act: { try $0.sendRawBytes(raw([0x08, 0x02, 0xBA, 0x3E, 0x00])) }, code: .unknownRequest, open: true),
        Row(situation: "an unknown message kind (field 5000) after the hello",
            act: { try $0.sendRawBytes(raw([0x08, 0x02, 0xC2, 0xB8, 0x02, 0x00])) }, code: .unknownRequest, open: true),
        Row(situation: "request id 0",
            act: { try $0.send(Envelope(requestId: 0, body: .configuration(ConfigurationRequest()))) }, code: .invalidArgument, open: true),
        Row(situation: "a second hello",
            act: { try $0.send(hello(id: 2)) }, code: .invalidArgument, open: true),
        Row(situation: "a reply kind sent by a client (PresentAccepted)",
            act: { try $0.send(Envelope(requestId: 2, body: .presentAccepted(PresentAccepted()))) }, code: .wrongRole, open: true),
        Row(situation: "a reply kind sent by a client (Outcome)",
            act: { try $0.send(Envelope(requestId: 2, body: .outcome(Outcome()))) }, code: .wrongRole, open: true),
        Row(situation: "an agent's message on the client socket",
            act: { try $0.send(Envelope(requestId: 2, body: .agentRegister(AgentRegister()))) }, code: .wrongRole, open: true),
        Row(situation: "an agent's Name this place on the client socket (an app cannot name the person's places)",
            act: { try $0.send(Envelope(requestId: 2, body: .namePlace(NamePlaceRequest(sessionHandle: "h", suggestionId: "s", placeItemId: "i", name: "x")))) },
            code: .wrongRole, open: true),
        Row(situation: "a control message on the client socket",
            act: { try $0.send(Envelope(requestId: 2, body: .status(StatusRequest()))) }, code: .wrongRole, open: true),
        Row(situation: "a descriptor with a request that uses none",
            act: { try $0.send(Envelope(requestId: 2, body: .configuration(ConfigurationRequest())), descriptors: [stray.descriptor!]) },
            code: .invalidArgument, open: true),
        Row(situation: "a terminal declared without its descriptor",
            act: { try $0.send(Envelope(requestId: 2, body: .present(PresentRequest(hasTerminal: true, terminalFdIndex: 0)))) },
            code: .invalidArgument, open: true),
        Row(situation: "a close for a session that is not this app's",
            act: { try $0.send(Envelope(requestId: 2, body: .close(CloseRequest(sessionHandle: UUID().uuidString)))) }, code: .notFound, open: true),
        Row(situation: "a donation from an app without the donations entitlement",
            act: { try $0.send(Envelope(requestId: 2, body: .donation(DonationRequest()))) }, code: .notEntitled, open: true),
        // The agent socket.
        Row(situation: "an agent's request before it registers", role: .agent,
            act: { try $0.send(Envelope(requestId: 2, body: .fetchMedia(FetchMediaRequest()))) }, code: .handshakeRequired, open: false),
        Row(situation: "a second registration", role: .agent, registered: true,
            act: { try $0.send(Envelope(requestId: 3, body: .agentRegister(AgentRegister(name: "again")))) }, code: .invalidArgument, open: true),
        Row(situation: "a client's message on the agent socket", role: .agent, registered: true,
            act: { try $0.send(Envelope(requestId: 3, body: .configuration(ConfigurationRequest()))) }, code: .wrongRole, open: true),
        Row(situation: "an unknown message kind on the agent socket", role: .agent, registered: true,
            act: { try $0.sendRawBytes(raw([0x08, 0x03, 0xBA, 0x3E, 0x00])) }, code: .unknownRequest, open: true),
        // The control socket.
        Row(situation: "a client's message on the control socket", role: .control,
            act: { try $0.send(Envelope(requestId: 2, body: .present(PresentRequest()))) }, code: .wrongRole, open: true),
        Row(situation: "an unknown message kind on the control socket", role: .control,
            act: { try $0.sendRawBytes(raw([0x08, 0x02, 0xBA, 0x3E, 0x00])) }, code: .unknownRequest, open: true),
    ]

    /// pickerd with short deadlines, this test process accepted as a picker agent (so it can
    /// register) and registered as an entitled app (so its requests get past the gate), and the
    /// scripted agent holding every presentation open.
    static func pickerd() throws -> RunningPickerd {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let pickerd = try sessionPickerd(script: #"{"reviews": [{"action": "wait"}, {"action": "wait"}, {"action": "wait"}]}"#,
                                         extra: ["--agent-executable", me, "--agent-executable", BuiltProducts.url("picker-agent").path,
                                                 "--hello-timeout", "2", "--frame-timeout", "2", "--idle-timeout", "3"])
        let registered = try pickerd.ctl(["apps", "register", "--executable", me, "--entitlements", pickerd.root + "/app.entitlements",
                                          "--bundle-id", "org.test.reaction-table", "--name", "Reaction Table"])
        #expect(registered.status == 0, "\(registered.stderr)")
        return pickerd
    }

    /// A raw connection whose reads give up after 15 s: a pickerd that never answers fails the
    /// test instead of hanging it.
    func connect(_ path: String) throws -> FrameConnection {
        let connection = try UnixSocket.connect(path: path)
        var limit = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(connection.descriptor!.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return connection
    }

    func socket(_ pickerd: RunningPickerd, _ role: Role) -> String {
        pickerd.runtime + (role == .client ? "/client.sock" : role == .agent ? "/agent.sock" : "/control.sock")
    }

    /// The next error pickerd sends on `connection` (skipping other replies), or nil at the end of the stream.
    func nextError(_ connection: FrameConnection) -> ErrorInfo? {
        while let frame = try? connection.receive() {
            if case .error(let e)? = frame.envelope.body { return e }
        }
        return nil
    }

    /// Whether the connection still serves: a request of its role is answered.
    func stillServes(_ connection: FrameConnection, _ role: Role) -> Bool {
        let probe: Envelope.Body = switch role {
        case .client: .configuration(ConfigurationRequest())
        case .agent: .fetchMedia(FetchMediaRequest(sessionHandle: "none", itemId: "none"))  // answered NOT_FOUND
        default: .status(StatusRequest())
        }
        guard (try? connection.send(Envelope(requestId: 77, body: probe))) != nil else { return false }
        while let frame = try? connection.receive() {
            if frame.envelope.requestId == 77 { return true }
        }
        return false
    }

    @Test("every row, on one pickerd (a refused or closed connection leaves the others be)")
    func everyRow() throws {
        let pickerd = try Self.pickerd()
        defer { pickerd.stop() }
        for row in Self.rows {
            let connection = try connect(socket(pickerd, row.role))
            if row.greeted {
                try connection.send(Self.hello(row.role))
                guard case .helloReply? = try connection.receive()?.envelope.body else { Issue.record("\(row.situation): no hello reply"); continue }
                if row.registered {
                    try connection.send(Envelope(requestId: 2, body: .agentRegister(AgentRegister(name: "reaction-table"))))
                    guard case .agentRegistered? = try connection.receive()?.envelope.body else { Issue.record("\(row.situation): not registered"); continue }
                }
            }
            try row.act(connection)
            let error = nextError(connection)
            #expect(error?.code == row.code, "\(row.situation): \(error.map { "\($0.code): \($0.message)" } ?? "no error")")
            if row.open {
                #expect(stillServes(connection, row.role), "\(row.situation): the connection should stay open")
            } else {
                #expect(try connection.receive() == nil, "\(row.situation): the connection should be closed")
            }
        }
        #expect(try pickerd.ctl(["status"]).status == 0, "pickerd serves on after every row")
    }

    @Test("deadlines: no hello, a stalled frame and an idle app connection are closed with DEADLINE_EXCEEDED; a presentation under review is not")
    func deadlines() throws {
        let pickerd = try Self.pickerd()
        defer { pickerd.stop() }
        let path = socket(pickerd, .client)
        let silent = try connect(path)
        let stalled = try connect(path)
        try stalled.send(Self.hello())
        _ = try stalled.receive()
        try stalled.sendRawBytes(FrameHeader(bodyLength: 50, descriptorCount: 0).bytes + [0x08, 0x02])
        let idle = try connect(path)
        try idle.send(Self.hello())
        _ = try idle.receive()
        // An app whose presentation the agent holds open: it waits, idle, as long as the person takes.
        let reviewing = try ProtocolClient(path: path, role: .client, software: "reviewing")
        try reviewing.connection.send(Envelope(requestId: 5, body: .present(PresentRequest())))
        guard case .presentAccepted? = try reviewing.connection.receive()?.envelope.body else { Issue.record("not accepted"); return }
        for (name, connection) in [("no hello", silent), ("stalled frame", stalled), ("idle", idle)] {
            let error = nextError(connection)
            #expect(error?.code == .deadlineExceeded, "\(name): \(error?.message ?? "no error")")
            #expect(try connection.receive() == nil, "\(name): closed")
        }
        // Past the idle deadline (the idle connection above is closed): the reviewing app is still served.
        #expect(stillServes(reviewing.connection, .client), "a presentation under review keeps its connection")
    }

    @Test("one picker per app: a second presentation of the same app is BUSY on any connection, another app's is not")
    func busyPerApp() throws {
        let pickerd = try Self.pickerd()
        defer { pickerd.stop() }
        let other = try pickerd.registerAppCopies(of: BuiltProducts.url("pickerd-test-client").path, count: 1,
                                                  entitlements: pickerd.root + "/app.entitlements")[0]
        // The agent holds each presentation open; each app presents from a process of its own.
        var holders: [Process] = []
        defer { for p in holders { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        func hold(_ program: URL) throws {
            let process = Process()
            process.executableURL = program
            process.arguments = [pickerd.runtime, "present"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            holders.append(process)
        }
        // This test process is the app org.test.reaction-table: a presentation on one connection…
        let path = socket(pickerd, .client)
        func present(_ id: UInt64) throws -> FrameConnection {
            let connection = try connect(path)
            try connection.send(Self.hello(id: 1))
            _ = try connection.receive()
            try connection.send(Envelope(requestId: id, body: .present(PresentRequest())))
            return connection
        }
        let first = try present(5)
        guard case .presentAccepted? = try first.receive()?.envelope.body else { Issue.record("not accepted"); return }
        // …makes a second one on another connection BUSY.
        let second = try present(6)
        let error = nextError(second)
        #expect(error?.code == .busy, "the same app on another connection: \(error?.message ?? "no error")")
        #expect(error?.message.contains("one picker per app") == true)
        try hold(URL(fileURLWithPath: other))
        #expect(eventually { (try? pickerd.ctl(["status"]).stdout.contains("sessions: 2 active")) == true }, "another app presents meanwhile")
        _ = first
    }

    @Test("too many connections from one app: TOO_MANY_CONNECTIONS at once, and the connection closes")
    func perCaller() throws {
        let pickerd = try Self.pickerd()
        defer { pickerd.stop() }
        var held: [FrameConnection] = []
        for _ in 0..<16 { held.append(try connect(socket(pickerd, .client))) }
        let extra = try connect(socket(pickerd, .client))
        let error = nextError(extra)
        #expect(error?.code == .tooManyConnections, "\(error?.message ?? "no error")")
        #expect(try extra.receive() == nil)
        // The control socket's room is its own.
        #expect(try pickerd.ctl(["status"]).status == 0)
        _ = held
    }

    @Test("apps that fill client.sock take none of the room kept for picker agents and pickerctl")
    func reservedCapacity() throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let pickerd = try sessionPickerd(script: #"{"reviews": []}"#,
                                         extra: ["--agent-executable", me, "--max-app-connections", "8", "--connections-per-app", "4",
                                                 "--hello-timeout", "120"])
        defer { pickerd.stop() }
        // Two programs (copies: two callers) hold their share of four each (their own first
        // connection among them): the socket's 8 are taken.
        var attackers: [Process] = []
        defer { for p in attackers { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        for index in 0..<2 {
            let copy = pickerd.root + "/attacker-\(index)"
            try FileManager.default.copyItem(atPath: BuiltProducts.url("pickerd-test-client").path, toPath: copy)
            let attacker = Process()
            attacker.executableURL = URL(fileURLWithPath: copy)
            attacker.arguments = [pickerd.runtime, "hold", "4,0,60"]
            let output = Pipe()
            attacker.standardOutput = output
            try attacker.run()
            attackers.append(attacker)
            // Holding: every one of its connections is queued (accepted or not yet).
            var said = ""
            while !said.contains("holding") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                said += String(decoding: data, as: UTF8.self)
            }
            #expect(said.contains("holding"), "attacker \(index) did not hold its connections")
        }
        // Accepted after every attacker's connection (a listen queue is first come, first served).
        let full = nextError(try connect(socket(pickerd, .client)))
        #expect(full?.code == .tooManyConnections)
        #expect(full?.message.contains("maximum of 8 app connections") == true, "\(full?.message ?? "no error")")
        // The control and agent sockets still serve.
        #expect(try pickerd.ctl(["status"]).status == 0)
        let agent = try connect(socket(pickerd, .agent))
        try agent.send(Self.hello(.agent))
        _ = try agent.receive()
        try agent.send(Envelope(requestId: 2, body: .agentRegister(AgentRegister(name: "while apps fill their socket"))))
        guard case .agentRegistered? = try agent.receive()?.envelope.body else { Issue.record("the agent could not register"); return }
    }
}
