// pickerd-protocol-tour: what crosses a pickerd socket, shown for real. A broker stand-in and a
// client talk over a Unix socket in a temporary directory: hello and version negotiation, a present
// request, the session handle, and an approved suggestion whose photo arrives as a sealed,
// read-only memfd. Each frame is printed as Google's protoc reads it. Until pickerd itself exists
// (the sessions issue), this is what Tools/demo runs.

import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import SystemPackage

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The frame body as Google's protoc reads it, indented; or a note when protoc is not installed.
func protocText(_ envelope: Envelope, protocolDirectory: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["protoc", "-I", protocolDirectory, "--decode=pickerd.v1.Envelope", "pickerd/v1/envelope.proto"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return "    (protoc not installed: run Tools/setup)" }
    input.fileHandleForWriting.write(Data(envelope.serializedBytes()))
    try? input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
}

let protocolDirectory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Protocol"
var template = Array("/tmp/pickerd-tour.XXXXXX".utf8CString)
guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
let directory = String(cString: made)
defer { try? FileManager.default.removeItem(atPath: directory) }
let socketPath = directory + "/client.sock"

let listener = try UnixListener(path: socketPath)
let photoBytes = Array("stand-in bytes for IMG_0042.jpg (the demo library brings real photos)".utf8)

// The broker stand-in: answers like pickerd will, from its own data.
let broker = Thread {
    do {
        let connection = try listener.accept()
        let peer = try connection.peerCredentials()
        say("broker: a client connected: uid \(peer.uid), pid \(peer.pid), pidfd \(peer.pidfd.map { "\($0)" } ?? "none") (from the kernel, not from a message)")
        while let frame = try connection.receive() {
            switch frame.envelope.body {
            case .hello(let hello)?:
                let version = try ProtocolVersion.negotiate(peerMinimum: hello.minVersion, peerMaximum: hello.maxVersion)
                try connection.send(Envelope(requestId: frame.envelope.requestId, body: .helloReply(HelloReply(
                    version: version, software: "protocol tour", maxFrameBytes: UInt64(connection.limits.maxBodyBytes),
                    maxFdsPerFrame: UInt32(connection.limits.maxDescriptors)))))
            case .present?:
                try connection.send(Envelope(requestId: frame.envelope.requestId,
                                             body: .presentAccepted(PresentAccepted(sessionHandle: "session-1"))))
                let memfd = try SealedMemoryFile.make(name: "IMG_0042.jpg", contents: photoBytes)
                let outcome = Envelope(requestId: frame.envelope.requestId, body: .outcome(Outcome(
                    sessionHandle: "session-1",
                    result: .approved(Suggestion(
                        title: "Morning run in Riverside Park",
                        date: DateInterval(startUnixMs: 1_763_794_800_000, endUnixMs: 1_763_798_400_000),
                        items: [
                            Item(id: "8B0E4C1A-5C1D-4F57-9E0B-6A1F0C2D3E4F", asset: .photo(Photo(
                                photo: Media(hasFd: true, fdIndex: 0, contentType: "image/jpeg", filename: "IMG_0042.jpg",
                                             byteCount: UInt64(photoBytes.count)),
                                date: Timestamp(unixMs: 1_763_795_100_000)))),
                            Item(id: "1D7B2E90-3A44-4C8F-8D21-5F6E7A8B9C0D", asset: .stateOfMind(StateOfMind(
                                state: StateOfMindSample(kind: .momentaryEmotion, valence: 0.6, valenceClassification: .pleasant,
                                                         labels: [.happy, .proud], associations: [.fitness])))),
                        ])))))
                try connection.send(outcome, descriptors: [memfd.descriptor!])
            default:
                try connection.send(Envelope(requestId: frame.envelope.requestId, body: .error(ErrorInfo(
                    code: .unknownRequest, message: "not part of the tour"))))
            }
        }
    } catch {
        say("broker: \(error)")
    }
}
broker.start()

say("pickerd protocol tour: a client and a broker stand-in on \(socketPath)\n")
let client = try UnixSocket.connect(path: socketPath)

func exchange(_ envelope: Envelope, expecting replies: Int) throws -> [ReceivedFrame] {
    say("client → broker (\(try Framing.encode(envelope).count) bytes):")
    say(protocText(envelope, protocolDirectory: protocolDirectory))
    try client.send(envelope)
    var frames: [ReceivedFrame] = []
    for _ in 0..<replies {
        guard let frame = try client.receive() else { break }
        let size = try Framing.encode(frame.envelope, descriptorCount: frame.descriptors.count).count
        say("broker → client (\(size) bytes, \(frame.descriptors.count) descriptor(s)):")
        say(protocText(frame.envelope, protocolDirectory: protocolDirectory))
        frames.append(frame)
    }
    return frames
}

_ = try exchange(Envelope(requestId: 1, body: .hello(Hello(minVersion: 1, maxVersion: 1, role: .client,
                                                            software: "protocol tour client"))), expecting: 1)
let frames = try exchange(Envelope(requestId: 2, body: .present(PresentRequest(buttonTitle: "Add to Journal"))),
                          expecting: 2)

guard let outcome = frames.last, let fd = outcome.descriptors.first?.descriptor else {
    say("no outcome arrived")
    exit(1)
}
let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd.rawValue)")) ?? "?"
var buffer = [UInt8](repeating: 0, count: 256)
let count = buffer.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
let writeRefused = Glibc.write(fd.rawValue, "x", 1) == -1
say("""
the photo's descriptor, as the client sees it:
    /proc/self/fd/\(fd.rawValue) -> \(link)   (no path into the library)
    reads \(count) bytes: \(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).debugDescription)
    write: \(writeRefused ? "refused (\(String(cString: strerror(errno))))" : "ALLOWED")
    seals: \((try? SealedMemoryFile.seals(of: fd)) == .all ? "write, grow, shrink, seal" : "missing")
""")
try client.close()
broker.cancel()
