import Foundation
import Glibc
import PickerdTestKit
import PickerdTransport
import PickerdWire
import SystemPackage
import Testing

@Suite("Robustness: bad peers get typed errors; pickerd keeps serving everyone else", .serialized)
struct RobustnessTests {
    /// A well-behaved app still completes a whole session.
    func stillServes(_ pickerd: RunningPickerd) throws {
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["result"] as? String == "approved", "after the bad peer: \(lines)")
    }

    func firstError(_ connection: FrameConnection) -> ErrorCode? {
        if case .error(let e)? = (try? connection.receive())??.envelope.body { return e.code }
        return nil
    }

    @Test("a corpus of malformed frames and misbehaving peers, each followed by a good session")
    func corpus() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        let socket = pickerd.runtime + "/client.sock"
        let hello = Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .client)))

        // Truncated: half a frame, then gone.
        let truncated = try UnixSocket.connect(path: socket)
        try truncated.sendRawBytes(Array(try Framing.encode(hello).prefix(6)))
        try truncated.close()
        try stillServes(pickerd)

        // Oversized: a length prefix of 1 GiB.
        let oversized = try UnixSocket.connect(path: socket)
        try oversized.sendRawBytes(FrameHeader(bodyLength: 1 << 30, descriptorCount: 0).bytes)
        #expect(firstError(oversized) == .frameTooLarge)
        try stillServes(pickerd)

        // Garbage.
        let garbage = try UnixSocket.connect(path: socket)
        try garbage.sendRawBytes((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        #expect(firstError(garbage) == .malformed)
        try stillServes(pickerd)

        // A body that is not protobuf.
        let undecodable = try UnixSocket.connect(path: socket)
        try undecodable.sendRawBytes(FrameHeader(bodyLength: 3, descriptorCount: 0).bytes + [0xFF, 0xFF, 0xFF])
        #expect(firstError(undecodable) == .malformed)
        try stillServes(pickerd)

        // Wrong version, wrong role, no hello.
        let future = try UnixSocket.connect(path: socket)
        try future.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 9, maxVersion: 12, role: .client))))
        #expect(firstError(future) == .unsupportedVersion)
        let wrongRole = try UnixSocket.connect(path: socket)
        try wrongRole.send(Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .agent))))
        #expect(firstError(wrongRole) == .wrongRole)
        let rude = try UnixSocket.connect(path: socket)
        try rude.send(Envelope(requestId: 1, body: .present(PresentRequest())))
        #expect(firstError(rude) == .handshakeRequired)
        try stillServes(pickerd)

        // Descriptors where none belong: pickerd refuses and closes them.
        let stray = try UnixSocket.connect(path: socket)
        let memfd = try SealedMemoryFile.make(name: "stray", contents: [1, 2, 3])
        try stray.sendRawBytes(try Framing.encode(hello), descriptors: [memfd.descriptor!, memfd.descriptor!])
        #expect(firstError(stray) == .malformed)
        try stillServes(pickerd)

        // An unknown message kind (a field number no version defines).
        let unknown = try UnixSocket.connect(path: socket)
        try unknown.send(hello)
        _ = try unknown.receive()
        try unknown.sendRawBytes(FrameHeader(bodyLength: 5, descriptorCount: 0).bytes + [0x08, 0x05, 0xB8, 0x3E, 0x01])
        #expect(firstError(unknown) == .unknownRequest)
        try stillServes(pickerd)

        // A flood from one program: past its share of connections, each extra one is told so.
        var flood: [FrameConnection] = []
        for _ in 0..<40 { flood.append(try UnixSocket.connect(path: socket)) }
        // The last one is past the share of 16 whatever the order of accepts.
        var poller = pollfd(fd: flood.last!.descriptor!.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 10_000) > 0)
        #expect(firstError(flood.last!) == .tooManyConnections, "connections past the caller's share are refused")
        for connection in flood { try connection.close() }
        try stillServes(pickerd)

        // Through all of it, pickerd kept no descriptor of the bad peers.
        #expect(pickerd.stop() == 0)
    }

    @Test("soak: sequential and concurrent sessions all complete, and pickerd's descriptors return to where they started")
    func soak() throws {
        let pickerd = try sessionPickerd(script: #"{"reviews": [{}]}"#)
        guard let pid = pickerd.pid else { Issue.record("no pid"); return }
        _ = try testClient(pickerd, "present")  // consent, agent start-up
        // One picker per app at a time: concurrent presentations come from eight apps.
        let apps = try pickerd.registerAppCopies(of: BuiltProducts.url("pickerd-test-client").path, count: 8,
                                                 entitlements: pickerd.root + "/app.entitlements")
        let concurrently = { (count: Int) throws -> [[String: Any]] in
            let result = try runCommand(BuiltProducts.url("pickerd-test-client"), [pickerd.runtime, "concurrent", "\(count)"],
                                        environment: ["PICKERD_TEST_APPS": apps.joined(separator: ":")])
            return jsonLines(result.stdout)
        }
        // Warm up: under concurrency the store's connection pool opens its readers (at most five,
        // a database and a WAL descriptor each) and keeps them. The soak starts from that steady state.
        _ = try concurrently(8)
        let before = openDescriptors(pid)
        let targetsBefore = descriptorTargets(pid)
        let sequential = try testClient(pickerd, "soak", "100")
        #expect(sequential.last?["failures"] as? Int == 0)
        let concurrent = try concurrently(8)
        #expect(concurrent.last?["failures"] as? Int == 0)
        // What a connection, a session or a release could leak (sockets, pidfds, sealed memfds) is
        // back where it was; the store's reader pool may have opened more of its (at most five)
        // readers under load, a database and a WAL descriptor each.
        let extra = { descriptorTargets(pid).subtracting(targetsBefore).sorted() }
        let leakable = { (targets: Set<String>) in targets.filter { !$0.hasSuffix(".sqlite") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.count }
        #expect(eventually { leakable(descriptorTargets(pid)) <= leakable(targetsBefore) && openDescriptors(pid) <= before + 10 },
                "pickerd holds descriptors it had not before the soak: \(extra())")
        pickerd.stop()
    }
}

/// What each of a process's descriptors refers to (`/proc/PID/fd/N` links), with the number.
func descriptorTargets(_ pid: Int32) -> Set<String> {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return Set(fds.map { fd in "\(fd) → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?") })
}

func openDescriptors(_ pid: Int32) -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
}
