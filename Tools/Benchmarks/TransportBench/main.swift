// pickerd-transport-bench: the transport's round trip against a raw write/read ping-pong of the
// same bytes on a Unix socket pair, measured in the same run and interleaved (the machines are
// shared and noisy, so only the ratio means anything), and the encode/decode throughput of a full
// 13-item suggestion. Run it through Tools/bench-transport (release build).

import Foundation
import Glibc
import PickerdTransport
import PickerdWire

let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 20_000
let blocks = Int(ProcessInfo.processInfo.environment["BENCH_BLOCKS"] ?? "") ?? 100

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func median(_ samples: [UInt64]) -> Double {
    let sorted = samples.sorted()
    return Double(sorted[sorted.count / 2])
}

// The request/response pair: what a client and pickerd exchange for a status or configuration query.
let request = Envelope(requestId: 1, body: .configuration(ConfigurationRequest()))
let response = Envelope(requestId: 1, body: .configurationReply(ConfigurationReply(schedule: .smart)))
let requestBytes = try Framing.encode(request).count
let responseBytes = try Framing.encode(response).count

// MARK: Raw baseline: write and read the same byte counts on a socketpair.

func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let n = read(fd, buffer + done, count - done)
        precondition(n > 0, "raw read failed")
        done += n
    }
}

func writeFully(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let n = write(fd, buffer + done, count - done)
        precondition(n > 0, "raw write failed")
        done += n
    }
}

func rawBlock(_ count: Int) -> [UInt64] {
    var fds: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    let server = fds[1], client = fds[0]
    let echo = Thread {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        for _ in 0..<count {
            readFully(server, buffer, requestBytes)
            writeFully(server, buffer, responseBytes)
        }
    }
    echo.start()
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
    defer { buffer.deallocate() }
    var samples: [UInt64] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = now()
        writeFully(client, buffer, requestBytes)
        readFully(client, buffer, responseBytes)
        samples.append(now() - start)
    }
    close(client)
    close(server)
    return samples
}

// MARK: The transport: encode, frame, sendmsg; recvmsg, unframe, decode; both ways.

func transportBlock(_ count: Int) throws -> [UInt64] {
    let (client, server) = try UnixSocket.pair()
    let echo = Thread {
        do {
            for _ in 0..<count {
                guard let frame = try server.receive() else { return }
                var reply = response
                reply.requestId = frame.envelope.requestId
                try server.send(reply)
            }
        } catch {
            fatalError("echo failed: \(error)")
        }
    }
    echo.start()
    var samples: [UInt64] = []
    samples.reserveCapacity(count)
    for i in 0..<count {
        var message = request
        message.requestId = UInt64(i + 1)
        let start = now()
        try client.send(message)
        let reply = try client.receive()
        samples.append(now() - start)
        precondition(reply?.envelope.requestId == UInt64(i + 1))
    }
    try client.close()
    try server.close()
    return samples
}

// MARK: The CPU path alone: both ends on one thread, so no wake-up is measured.

func cpuPath(_ count: Int) throws -> (raw: Double, transport: Double) {
    var fds: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
    defer { buffer.deallocate() }
    var start = now()
    for _ in 0..<count {
        writeFully(fds[0], buffer, requestBytes)
        readFully(fds[1], buffer, requestBytes)
        writeFully(fds[1], buffer, responseBytes)
        readFully(fds[0], buffer, responseBytes)
    }
    let raw = Double(now() - start) / Double(count)
    let (client, server) = try UnixSocket.pair()
    start = now()
    for i in 0..<count {
        var message = request
        message.requestId = UInt64(i + 1)
        try client.send(message)
        let received = try server.receive()!
        var reply = response
        reply.requestId = received.envelope.requestId
        try server.send(reply)
        _ = try client.receive()
    }
    return (raw, Double(now() - start) / Double(count))
}

// MARK: Codec throughput: a full 13-item approved suggestion.

func fullSuggestion() -> Envelope {
    func media(_ i: Int, _ type: String) -> Media {
        Media(hasFd: true, fdIndex: UInt32(i), contentType: type, filename: "asset-\(i)", byteCount: 245_000,
              pixelWidth: 1024, pixelHeight: 768)
    }
    let date = DateInterval(startUnixMs: 1_700_000_000_000, endUnixMs: 1_700_007_200_000)
    let assets: [Item.Asset] = [
        .photo(Photo(photo: media(0, "image/jpeg"), date: Timestamp(unixMs: 1_700_000_100_000))),
        .livePhoto(LivePhoto(image: media(1, "image/jpeg"), video: media(2, "video/mp4"), date: Timestamp(unixMs: 1))),
        .video(Video(url: media(3, "video/mp4"), date: Timestamp(unixMs: 2))),
        .workout(Workout(details: WorkoutDetails(activityType: 37, activeEnergyBurned: Quantity(value: 412, unit: "kcal"),
                                                 distance: Quantity(value: 8012, unit: "m"),
                                                 averageHeartRate: Quantity(value: 151, unit: "count/min"),
                                                 date: date, localizedName: "Outdoor Run"),
                         icon: media(4, "image/png"),
                         route: (0..<60).map { GeoLocation(latitude: 40.78 + Double($0) * 1e-4, longitude: -73.97,
                                                           altitudeM: 12, horizontalAccuracyM: 5,
                                                           timestamp: Timestamp(unixMs: Int64($0))) })),
        .contact(Contact(name: "Maya Okafor", photo: media(5, "image/png"))),
        .location(Location(place: "Riverside Park", city: "New York",
                           location: GeoLocation(latitude: 40.8, longitude: -73.97), date: Timestamp(unixMs: 3),
                           isWorkLocation: false)),
        .song(Song(song: "Harbor Lights", artist: "The Tideline", album: "Low Water", artwork: media(6, "image/jpeg"),
                   date: Timestamp(unixMs: 4))),
        .podcast(Podcast(episode: "Ep. 112: Slow mornings", show: "Quiet Hours", artwork: media(7, "image/jpeg"),
                         date: Timestamp(unixMs: 5))),
        .motionActivity(MotionActivity(icon: media(8, "image/png"), steps: 9120, date: date, movementType: .runningWalking)),
        .genericMedia(GenericMedia(title: "Chapter 7", artist: "A. Writer", album: "The Long Book", date: Timestamp(unixMs: 6),
                                   appIcon: media(9, "image/png"))),
        .reflection(Reflection(prompt: "What made you smile today?", color: Color(red: 0.9, green: 0.6, blue: 0.2, alpha: 1))),
        .stateOfMind(StateOfMind(state: StateOfMindSample(kind: .dailyMood, valence: 0.4, valenceClassification: .slightlyPleasant,
                                                          labels: [.calm, .grateful, .content], associations: [.family, .fitness],
                                                          date: Timestamp(unixMs: 7)),
                                 icon: media(10, "image/png"),
                                 lightBackground: Gradient(stops: [GradientStop(color: Color(red: 1, green: 0.8, blue: 0.4, alpha: 1), location: 0),
                                                                   GradientStop(color: Color(red: 1, green: 0.6, blue: 0.2, alpha: 1), location: 1)]),
                                 darkBackground: Gradient(stops: [GradientStop(color: Color(red: 0.4, green: 0.2, blue: 0.1, alpha: 1), location: 0)]))),
        .locationGroup(LocationGroup(locations: (0..<4).map { Location(place: "Stop \($0)", city: "New York",
                                                                      location: GeoLocation(latitude: 40.7, longitude: -74)) })),
    ]
    let items = assets.enumerated().map { Item(id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0.offset))!.uuidString, asset: $0.element) }
    return Envelope(requestId: 77, body: .outcome(Outcome(sessionHandle: "session-1", result: .approved(
        Suggestion(title: "Saturday in the park", date: date, items: items)))))
}

func codec() throws -> (encodePerSecond: Double, decodePerSecond: Double, bytes: Int) {
    let message = fullSuggestion()
    guard case .outcome(let outcome)? = message.body, case .approved(let suggestion)? = outcome.result else { fatalError() }
    precondition(suggestion.items.count == 13)
    let iterations = max(rounds / 4, 1000)
    var bytes: [UInt8] = []
    let encodeStart = now()
    for _ in 0..<iterations { bytes = message.serializedBytes() }
    let encodeTime = Double(now() - encodeStart) / 1e9
    var decoded: Envelope?
    let decodeStart = now()
    for _ in 0..<iterations { decoded = try Envelope(serializedBytes: bytes) }
    let decodeTime = Double(now() - decodeStart) / 1e9
    precondition(decoded == message, "the 13-item suggestion did not survive encode and decode")
    return (Double(iterations) / encodeTime, Double(iterations) / decodeTime, bytes.count)
}

// MARK: Run

print("pickerd transport benchmark: \(rounds) round trips each, \(blocks) interleaved blocks")
print("frame pair: request \(requestBytes) bytes, response \(responseBytes) bytes (raw ping-pong moves the same counts)")
_ = rawBlock(500)
_ = try transportBlock(500)
var raw: [UInt64] = []
var framed: [UInt64] = []
var blockRatios: [Double] = []
for _ in 0..<blocks {
    let r = rawBlock(rounds / blocks)
    let f = try transportBlock(rounds / blocks)
    raw += r
    framed += f
    blockRatios.append(median(f) / median(r))
}
let rawMedian = median(raw)
let framedMedian = median(framed)
let ratio = framedMedian / rawMedian
print(String(format: "raw write/read ping-pong   median %8.2f µs", rawMedian / 1000))
print(String(format: "transport frame round trip median %8.2f µs", framedMedian / 1000))
print(String(format: "ratio transport/raw: %.2f (target <= 1.50: %@); median of per-block ratios %.2f",
             ratio, ratio <= 1.5 ? "met" : "MISSED", blockRatios.sorted()[blockRatios.count / 2]))
let cpu = try cpuPath(rounds)
print(String(format: "CPU path on one thread (no wake-ups): raw %.2f µs, transport %.2f µs per round trip, ratio %.2f",
             cpu.raw / 1000, cpu.transport / 1000, cpu.transport / cpu.raw))
let (encodeRate, decodeRate, size) = try codec()
print(String(format: "13-item suggestion (%d bytes): encode %.0f msg/s (%.1f MB/s), decode %.0f msg/s (%.1f MB/s)",
             size, encodeRate, encodeRate * Double(size) / 1e6, decodeRate, decodeRate * Double(size) / 1e6))
