import CPickerdShims
import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import SystemPackage
import Testing

@Suite("Unix-socket transport with SCM_RIGHTS", .serialized)
struct TransportTests {
    static let hello = Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .client, software: "test")))

    @Test("a frame sent on one end arrives whole on the other, and a clean close reads as the end")
    func sendAndReceive() throws {
        let (a, b) = try UnixSocket.pair()
        try a.send(Self.hello)
        let frame = try #require(try b.receive())
        #expect(frame.envelope == Self.hello)
        #expect(frame.descriptors.isEmpty)
        try a.close()
        #expect(try b.receive() == nil)
    }

    @Test("several descriptors in one frame arrive in order, readable, not writable, closed exactly once")
    func descriptorsInOneFrame() throws {
        let directory = try TemporaryDirectory()
        let contents = ["first file", "second file", "third, longer file"]
        var sent: [FileDescriptor] = []
        for (i, text) in contents.enumerated() {
            let path = directory.path + "/f\(i)"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            sent.append(try FileDescriptor.open(path, .readOnly, options: .closeOnExec))
        }
        defer { for fd in sent { try? fd.close() } }

        let (a, b) = try UnixSocket.pair()
        let watched = OpenDescriptors(sent)
        #expect(watched.count() == 3)
        try a.send(Self.hello, descriptors: sent)
        var frame = try #require(try b.receive())
        #expect(frame.descriptors.count == 3)
        #expect(watched.count() == 6)
        for (received, text) in zip(frame.descriptors, contents) {
            let fd = try #require(received.descriptor)
            #expect(try readAll(fd) == text)
            // Sent read-only, received read-only: writing fails with EBADF.
            #expect(Glibc.write(fd.rawValue, "x", 1) == -1)
            #expect(errno == EBADF)
            #expect(fcntl(fd.rawValue, F_GETFD) & FD_CLOEXEC != 0, "MSG_CMSG_CLOEXEC must mark received descriptors")
        }
        // Close one explicitly (twice: the second is a no-op), drop the rest with the frame.
        try frame.descriptors[0].close()
        try frame.descriptors[0].close()
        #expect(watched.count() == 5)
        frame.descriptors = []
        #expect(watched.count() == 3)
    }

    @Test("frames sent back to back are read ahead, and each gets exactly its own descriptors")
    func backToBackFrames() throws {
        let (a, b) = try UnixSocket.pair()
        let first = try SealedMemoryFile.make(name: "first", contents: Array("one".utf8))
        let second = try SealedMemoryFile.make(name: "second", contents: Array("two".utf8))
        let third = try SealedMemoryFile.make(name: "third", contents: Array("three".utf8))
        try a.send(Envelope(requestId: 1, body: .ack(Ack())))
        try a.send(Envelope(requestId: 2, body: .ack(Ack())), descriptors: [first.descriptor!, second.descriptor!])
        try a.send(Envelope(requestId: 3, body: .ack(Ack())))
        try a.send(Envelope(requestId: 4, body: .ack(Ack())), descriptors: [third.descriptor!])
        var seen: [(UInt64, [String])] = []
        for _ in 0..<4 {
            let frame = try #require(try b.receive())
            seen.append((frame.envelope.requestId, try frame.descriptors.map { try readAll($0.descriptor!) }))
        }
        #expect(seen.map(\.0) == [1, 2, 3, 4])
        #expect(seen.map(\.1) == [[], ["one", "two"], [], ["three"]])
        #expect(!b.hasBufferedFrame)
    }

    @Test("a poll loop learns from hasBufferedFrame that a frame waits though the socket is drained")
    func bufferedFrameIsVisible() throws {
        let (a, b) = try UnixSocket.pair()
        // One write holding two whole frames: the first receive reads both.
        try a.sendRawBytes(try Framing.encode(Self.hello) + Framing.encode(Envelope(requestId: 2, body: .ack(Ack()))))
        #expect(try b.receive()?.envelope == Self.hello)
        #expect(b.hasBufferedFrame)
        var poller = pollfd(fd: b.descriptor!.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 0) == 0, "the socket itself is drained")
        #expect(try b.receive()?.envelope.requestId == 2)
        #expect(!b.hasBufferedFrame)
    }

    @Test("a sealed memfd cannot be written, grown or shrunk by the receiver, and names no path")
    func sealedMemoryFile() throws {
        let payload = Array("canary-bytes-\(UUID())".utf8)
        let memfd = try SealedMemoryFile.make(name: "photo.jpg", contents: payload)
        let (a, b) = try UnixSocket.pair()
        try a.send(Self.hello, descriptors: [memfd.descriptor!])
        let frame = try #require(try b.receive())
        let fd = try #require(frame.descriptors.first?.descriptor)
        #expect(try readAll(fd) == String(decoding: payload, as: UTF8.self))
        #expect(try SealedMemoryFile.seals(of: fd) == .all)
        #expect(Glibc.write(fd.rawValue, "x", 1) == -1)
        #expect(errno == EBADF)
        // Even a fresh read-write open of the same file is stopped by the seals.
        let reopened = open("/proc/self/fd/\(fd.rawValue)", O_RDWR)
        if reopened >= 0 {
            defer { Glibc.close(reopened) }
            #expect(Glibc.write(reopened, "x", 1) == -1)
            #expect(errno == EPERM)
            #expect(ftruncate(reopened, 0) == -1)
            #expect(errno == EPERM)
            #expect(ftruncate(reopened, 1 << 20) == -1)
            #expect(errno == EPERM)
        }
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd.rawValue)")
        #expect(link.hasPrefix("/memfd:photo.jpg"))
    }

    @Test("a copy of a file becomes a sealed memfd with the same bytes")
    func sealedCopy() throws {
        let directory = try TemporaryDirectory()
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path + "/media"))
        let source = try FileDescriptor.open(directory.path + "/media", .readOnly)
        defer { try? source.close() }
        let copy = try SealedMemoryFile.copy(from: source, name: "media")
        let fd = try #require(copy.descriptor)
        var back = [UInt8](repeating: 0, count: bytes.count + 1)
        let count = back.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
        #expect(count == bytes.count)
        #expect(Array(back.prefix(count)) == bytes)
        #expect(try SealedMemoryFile.seals(of: fd) == .all)
    }

    @Test("descriptors attached to a frame that declares none are refused and closed")
    func undeclaredDescriptors() throws {
        let (a, b) = try UnixSocket.pair()
        let memfd = try SealedMemoryFile.make(name: "stray", contents: [1, 2, 3])
        let watched = OpenDescriptors([memfd.descriptor!])
        #expect(watched.count() == 1)
        let frame = try Framing.encode(Self.hello, descriptorCount: 0)
        try a.sendRawBytes(frame, descriptors: [memfd.descriptor!, memfd.descriptor!])
        let error = try #require(throws: TransportError.self) { try b.receive() }
        #expect(error.code == .wire)
        #expect(error.wireError?.code == .descriptorMismatch)
        #expect(watched.count() == 1, "the stray descriptors must be closed")
    }

    @Test("more descriptors than the receiver's limit: MSG_CTRUNC is detected, nothing leaks")
    func controlDataTruncated() throws {
        let (a, b) = try UnixSocket.pair(limits: FrameLimits(maxDescriptors: 2))
        let memfd = try SealedMemoryFile.make(name: "many", contents: [1])
        let watched = OpenDescriptors([memfd.descriptor!])
        let frame = FrameHeader(bodyLength: 0, descriptorCount: 2).bytes
        try a.sendRawBytes(frame, descriptors: Array(repeating: memfd.descriptor!, count: 6))
        let error = try #require(throws: TransportError.self) { try b.receive() }
        #expect(error.code == .controlDataTruncated)
        #expect(watched.count() == 1, "the descriptors that did arrive must be closed")
    }

    @Test("an oversized length prefix is refused before the body is read")
    func oversizedOverSocket() throws {
        let (a, b) = try UnixSocket.pair(limits: FrameLimits(maxBodyBytes: 1024))
        try a.sendRawBytes(FrameHeader(bodyLength: 1 << 30, descriptorCount: 0).bytes)
        let error = try #require(throws: TransportError.self) { try b.receive() }
        #expect(error.wireError?.code == .oversized)
        #expect(error.wireError?.protocolCode == .frameTooLarge)
    }

    @Test("a peer that closes mid-frame gives connectionClosed, not a hang or a crash")
    func truncatedOverSocket() throws {
        let (a, b) = try UnixSocket.pair()
        let frame = try Framing.encode(Self.hello)
        try a.sendRawBytes(Array(frame.prefix(frame.count - 3)))
        try a.close()
        let error = try #require(throws: TransportError.self) { try b.receive() }
        #expect(error.code == .connectionClosed)
        #expect(error.wireError?.code == .truncated)
    }

    @Test("garbage bytes give a typed wire error; an unknown message kind arrives bodiless and the stream stays in step")
    func garbageOverSocket() throws {
        let (a, b) = try UnixSocket.pair()
        try a.sendRawBytes(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let garbage = try #require(throws: TransportError.self) { try b.receive() }
        #expect(garbage.wireError?.code == .reservedBitsSet)

        let (c, d) = try UnixSocket.pair()
        let unknown: [UInt8] = [0x08, 0x05, 0xB8, 0x3E, 0x01]
        try c.sendRawBytes(FrameHeader(bodyLength: UInt32(unknown.count), descriptorCount: 0).bytes + unknown)
        try c.send(Envelope(requestId: 6, body: .close(CloseRequest(sessionHandle: "next"))))
        let first = try #require(try d.receive())
        #expect(first.envelope.requestId == 5)
        #expect(first.envelope.body == nil)
        #expect(try d.receive()?.envelope == Envelope(requestId: 6, body: .close(CloseRequest(sessionHandle: "next"))))
    }

    @Test("a non-blocking connection says wouldBlock until a whole frame is there, and knows it is inside one")
    func nonBlocking() throws {
        let (a, b) = try UnixSocket.pair()
        try b.makeNonBlocking(sendTimeout: .milliseconds(200))
        guard case .wouldBlock = try b.receiveAvailable() else { Issue.record("a frame from nothing"); return }
        let frame = try Framing.encode(Envelope(requestId: 3, body: .close(CloseRequest(sessionHandle: "h"))))
        try a.sendRawBytes(Array(frame.prefix(5)))
        guard case .wouldBlock = try b.receiveAvailable() else { Issue.record("a frame from half a header"); return }
        #expect(b.isInsideFrame)
        try a.sendRawBytes(Array(frame.dropFirst(5)))
        guard case .frame(let received) = try b.receiveAvailable() else { Issue.record("the frame did not arrive"); return }
        #expect(received.envelope.requestId == 3)
        #expect(!b.isInsideFrame)
        try a.close()
        // The end of the stream comes once every copy of `a` is closed: another test's child, between
        // its fork and its exec, may hold one for a moment (close-on-exec closes it then).
        var ended = false
        for _ in 0..<500 where !ended {
            switch try b.receiveAvailable() {
            case .closed: ended = true
            case .wouldBlock: usleep(10_000)
            default: Issue.record("something after the last frame"); return
            }
        }
        #expect(ended, "the end of stream was not seen")
    }

    @Test("a send to a peer that never reads gives up after the send timeout instead of blocking")
    func sendTimeout() throws {
        let (a, b) = try UnixSocket.pair()
        try b.makeNonBlocking(sendTimeout: .milliseconds(100))
        let big = Envelope(requestId: 9, body: .error(ErrorInfo(code: .internal, message: String(repeating: "x", count: 1 << 20))))
        let error = try #require(throws: TransportError.self) { for _ in 0..<64 { try b.send(big) } }
        #expect(error.errno == .timedOut)
        _ = a
    }

    @Test("a frame larger than the socket buffer crosses in pieces with its descriptors")
    func largeFrame() async throws {
        let (a, b) = try UnixSocket.pair()
        let big = Envelope(requestId: 9, body: .error(ErrorInfo(code: .internal, message: String(repeating: "ü", count: 1 << 20))))
        let memfd = try SealedMemoryFile.make(name: "big", contents: [7])
        let receiver = Task.detached { () throws -> ReceivedFrame? in try b.receive() }
        try a.send(big, descriptors: [memfd.descriptor!])
        let frame = try #require(try await receiver.value)
        #expect(frame.envelope == big)
        #expect(frame.descriptors.count == 1)
    }

    @Test("peer credentials report this process's uid, gid and pid, with a live pidfd")
    func peerCredentials() throws {
        let (a, _) = try UnixSocket.pair()
        let credentials = try a.peerCredentials()
        #expect(credentials.uid == getuid())
        #expect(credentials.gid == getgid())
        #expect(credentials.pid == getpid())
        let pidfd = try #require(credentials.pidfd?.descriptor)
        #expect(pickerd_pidfd_alive(pidfd.rawValue) == 0)
    }

    @Test("listen, connect and accept on a path; the socket file is 0600")
    func listenAndConnect() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/client.sock"
        let listener = try UnixListener(path: path)
        defer { try? listener.close() }
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let client = try UnixSocket.connect(path: path)
        let server = try listener.accept()
        try client.send(Self.hello)
        #expect(try server.receive()?.envelope == Self.hello)
        let credentials = try server.peerCredentials()
        #expect(credentials.pid == getpid())
        // A second listener on the same path is refused with a clear message.
        let error = try #require(throws: TransportError.self) { try UnixListener(path: path) }
        #expect(error.errno == .addressInUse)
        #expect(error.message.contains(path))
    }

    @Test("a socket path over the sun_path limit is a clear error; connecting to nothing says so")
    func pathErrors() throws {
        let long = "/tmp/" + String(repeating: "d", count: 120) + "/client.sock"
        let error = try #require(throws: TransportError.self) { try UnixSocket.connect(path: long) }
        #expect(error.code == .pathTooLong)
        #expect(error.message.contains("107-byte limit"))
        let directory = try TemporaryDirectory()
        let missing = try #require(throws: TransportError.self) { try UnixSocket.connect(path: directory.path + "/none.sock") }
        #expect(missing.errno == .noSuchFileOrDirectory)
        #expect(missing.message.contains("is pickerd running?"))
    }

    @Test("sending to a vanished peer is an EPIPE error, not a SIGPIPE death")
    func vanishedPeer() throws {
        let (a, b) = try UnixSocket.pair()
        try b.close()
        let error = try #require(throws: TransportError.self) { try a.send(Self.hello) }
        #expect(error.errno == .brokenPipe)
    }

    @Test("shutdown wakes a blocked receive")
    func shutdownWakesReceive() async throws {
        let (a, _) = try UnixSocket.pair()
        let receiver = Task.detached { () throws -> Bool in try a.receive() == nil }
        try await Task.sleep(for: .milliseconds(50))
        a.shutdown()
        #expect(try await receiver.value)
    }
}

func readAll(_ fd: FileDescriptor) throws -> String {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    _ = lseek(fd.rawValue, 0, SEEK_SET)
    while true {
        let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
        if n == 0 { break }
        out += buffer[..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

/// Counts this process's open descriptors on given files, from /proc/self/fd. Other tests run in
/// parallel in this process and open descriptors of their own, so counting all would be flaky;
/// counting those that refer to files only this test knows is exact.
struct OpenDescriptors {
    private let files: Set<FileIdentity>

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Watches the files the given descriptors refer to.
    init(_ descriptors: [FileDescriptor]) {
        files = Set(descriptors.compactMap { FileIdentity(path: "/proc/self/fd/\($0.rawValue)") })
    }

    /// How many open descriptors of this process refer to the watched files.
    func count() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            FileIdentity(path: "/proc/self/fd/" + entry).map(files.contains) ?? false
        }.count
    }
}

/// A short temporary directory (Unix socket paths must stay under 108 bytes), removed at the end.
final class TemporaryDirectory {
    let path: String
    init() throws {
        var template = Array("/tmp/pkd.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno(rawValue: errno) }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
