// pickerd-bench-scale: the engine at a real person's scale, measured from outside a real pickerd
// (release build, real sockets, real processes), at several library sizes in one run so the growth
// is visible. Tools/bench-scale builds it and runs it.
//
//   pickerd-bench-scale BIN-DIR WORK-DIR SCALE...      SCALE: a number of photos, or "demo"
//   pickerd-bench-scale present-once RUNTIME-DIR       (a child: waits for a line on stdin, then one
//                                                       presentation; prints its milliseconds)
//
// For each library: seeding throughput (the demo through pickerctl; a scale library written into the
// data directory before pickerd starts, as pickerd-scale-library does); cold start to the first status; pickerd's RSS at rest and
// after 100 presentations (and its peak); present → the agent has its first page and present →
// outcome, with this process as the agent (nothing else in the loop) and with the scripted agent;
// status and configuration requests against a raw Unix-socket round trip measured in the same run;
// 64 concurrent presentations from 64 apps; one new day of data folded into the moments.

import BenchSupport
import Foundation
import Glibc
import PickerdMoments
import PickerdScaleLibrary
import PickerdStore
import PickerdTransport
import PickerdWire

let arguments = CommandLine.arguments
let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]

func fail(_ message: String) -> Never { benchFail("bench-scale", message) }

// MARK: A child: one presentation on a signal

if arguments.count == 3 && arguments[1] == "present-once" {
    let socket = arguments[2] + "/client.sock"
    do {
        let client = try ProtocolClient(path: socket, role: .client, software: "bench child")
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = readLine()
        let start = now()
        let frame = try client.request(.present(PresentRequest(buttonTitle: "Bench")), isFinal: { if case .outcome = $0 { true } else { false } })
        guard case .outcome(let o)? = frame.envelope.body, case .approved? = o.result else { fail("no approval: \(String(describing: frame.envelope.body))") }
        FileHandle.standardOutput.write(Data(String(format: "%.3f\n", now() - start).utf8))
    } catch {
        fail("\(error)")
    }
    exit(0)
}

guard arguments.count >= 4 else { fail("usage: pickerd-bench-scale BIN-DIR WORK-DIR SCALE...") }
let bin = arguments[1], work = arguments[2]
let scales = Array(arguments.dropFirst(3))

// MARK: Processes

@discardableResult
func run(_ program: String, _ args: [String]) -> (status: Int32, out: String, err: String) { runProgram(program, args) }

/// A pickerd with the scripted agent and this program accepted as agents, and room for 64 apps.
func scalePickerd(root: String) -> BenchPickerd {
    let script = root + "/script.json"
    try? #"{"consent": "accept", "reviews": [{"list": "recommended", "index": 0}]}"#.write(toFile: script, atomically: true, encoding: .utf8)
    return BenchPickerd(root: root, bin: bin, extra: [
        "--agent-executable", bin + "/picker-agent", "--agent-executable", me, "--developer-mode",
        "--agent-command", "\(bin)/picker-agent --script \(script)",
        "--max-app-connections", "4096", "--connections-per-app", "128",
    ])
}

// MARK: Measurements

/// Present → the agent has its first page, and present → outcome, with this process as both the
/// app and the agent: nothing but pickerd in the loop.
func presentWithOwnAgent(_ pickerd: BenchPickerd, runs: Int) -> (firstPage: [Double], outcome: [Double], frameBytes: Int) {
    do {
        let agent = try ProtocolClient(path: pickerd.runtime + "/agent.sock", role: .agent, software: "bench agent")
        _ = try agent.request(.agentRegister(AgentRegister(name: "bench agent")))
        var firstPage: [Double] = [], outcome: [Double] = []
        var bytes = 0
        for _ in 0..<runs {
            let client = try ProtocolClient(path: pickerd.runtime + "/client.sock", role: .client, software: "bench")
            let start = now()
            try client.connection.send(Envelope(requestId: 7, body: .present(PresentRequest(buttonTitle: "Bench"))))
            var review: ReviewRequest?
            while review == nil {
                guard let frame = try agent.connection.receive() else { fail("the agent connection closed") }
                guard case .review(let r)? = frame.envelope.body else { continue }
                if r.consentNeeded {
                    try agent.connection.send(Envelope(requestId: frame.envelope.requestId, body: .consentDecision(
                        ConsentDecision(sessionHandle: r.sessionHandle, answer: .accept))))
                    continue
                }
                firstPage.append(now() - start)
                bytes = frame.body.count
                review = r
                guard let chosen = r.recommended.first ?? r.recent.first else { fail("an empty review") }
                try agent.connection.send(Envelope(requestId: frame.envelope.requestId, body: .reviewDecision(ReviewDecision(
                    sessionHandle: r.sessionHandle, decision: .approve(Approval(suggestionId: chosen.id, keptItemIds: chosen.items.map(\.id)))))))
            }
            while true {
                guard let frame = try client.connection.receive() else { fail("the client connection closed") }
                if case .outcome(let o)? = frame.envelope.body {
                    guard case .approved? = o.result else { fail("not approved: \(o)") }
                    break
                }
            }
            outcome.append(now() - start)
            client.close()
        }
        agent.close()
        // Wait until pickerd has seen this agent go, so the next presentation is not offered to it.
        while true {
            let control = try ProtocolClient(path: pickerd.runtime + "/control.sock", role: .control, software: "bench")
            let reply = try control.request(.status(StatusRequest()))
            control.close()
            if case .statusReply(let status)? = reply.envelope.body, status.registeredAgents == 0 { break }
            usleep(1_000)
        }
        return (firstPage, outcome, bytes)
    } catch {
        fail("presenting: \(error)")
    }
}

/// Present → outcome through the scripted agent (picker-agent --script), started by pickerd.
func presentWithScriptedAgent(_ pickerd: BenchPickerd, runs: Int) -> [Double] {
    var samples: [Double] = []
    for _ in 0..<runs {
        do {
            let client = try ProtocolClient(path: pickerd.runtime + "/client.sock", role: .client, software: "bench")
            let start = now()
            let frame = try client.request(.present(PresentRequest(buttonTitle: "Bench")), isFinal: { if case .outcome = $0 { true } else { false } })
            guard case .outcome(let o)? = frame.envelope.body, case .approved? = o.result else {
                fail("no approval from the scripted agent: \(String(describing: frame.envelope.body))")
            }
            samples.append(now() - start)
            client.close()
        } catch {
            fail("presenting: \(error)")
        }
    }
    return samples
}

/// Small requests through pickerd against a raw Unix-socket round trip of the same size, interleaved.
func smallRequests(_ pickerd: BenchPickerd, rounds: Int) -> (configuration: Double, status: Double, raw: Double) {
    do {
        let client = try ProtocolClient(path: pickerd.runtime + "/client.sock", role: .client, software: "bench")
        let control = try ProtocolClient(path: pickerd.runtime + "/control.sock", role: .control, software: "bench")
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fail("socketpair") }
        let echo = fds[1]
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(echo, &buffer, buffer.count)
                if n <= 0 { return }
                _ = write(echo, buffer, n)
            }
        }
        let payload = [UInt8](repeating: 0x42, count: 48)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var configuration: [Double] = [], status: [Double] = [], raw: [Double] = []
        for round in 0..<rounds {
            var t = now()
            _ = try client.request(.configuration(ConfigurationRequest()))
            if round >= 50 { configuration.append(now() - t) }
            t = now()
            _ = try control.request(.status(StatusRequest()))
            if round >= 50 { status.append(now() - t) }
            t = now()
            _ = write(fds[0], payload, payload.count)
            var got = 0
            while got < payload.count { got += max(0, read(fds[0], &buffer, buffer.count)) }
            if round >= 50 { raw.append(now() - t) }
        }
        close(fds[0])
        return (percentile(configuration, 0.5), percentile(status, 0.5), percentile(raw, 0.5))
    } catch {
        fail("small requests: \(error)")
    }
}

/// 64 apps present at once: each a copy of this program registered as an app of its own (one
/// picker per app at a time), started first and released together.
func concurrent(_ pickerd: BenchPickerd, apps: Int) -> [Double] {
    let directory = pickerd.root + "/apps"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var children: [(Process, Pipe, Pipe)] = []
    for i in 0..<apps {
        let path = "\(directory)/app-\(i)"
        if !FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.copyItem(atPath: me, toPath: path)
            let registered = pickerd.ctl(["apps", "register", "--executable", path, "--entitlements", pickerd.root + "/e.plist",
                                          "--bundle-id", "org.bench.app-\(i)", "--name", "Bench \(i)"])
            if registered.status != 0 { fail("register: \(registered.err)") }
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: path)
        child.arguments = ["present-once", pickerd.runtime]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        do { try child.run() } catch { fail("cannot start app \(i): \(error)") }
        children.append((child, input, output))
    }
    // Each says "ready" once connected; then all are released at once.
    var readers: [FileHandle] = []
    for (_, _, output) in children {
        let reader = output.fileHandleForReading
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = reader.availableData
            if chunk.isEmpty { fail("an app exited before it was ready") }
            line += chunk
        }
        readers.append(reader)
    }
    for (_, input, _) in children { input.fileHandleForWriting.write(Data("go\n".utf8)) }
    var samples: [Double] = []
    for ((child, _, _), reader) in zip(children, readers) {
        let rest = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0, let ms = Double(rest.trimmingCharacters(in: .whitespacesAndNewlines)) else { fail("an app failed") }
        samples.append(ms)
    }
    return samples
}

/// One new day of data folded in: the library's last day again, a day later each time (new ids),
/// inserted and then the engine's refresh of that week, timed apart.
func foldIn(_ pickerd: BenchPickerd, days: Int) -> (insert: [Double], refresh: [Double], items: Int) {
    do {
        let store = try Store(dataDirectory: pickerd.root + "/data", integrityCheck: .inBackground)
        guard let range = try store.libraryRange() else { fail("an empty library") }
        let lastDay = try store.items(startingFrom: range.upperBound - 86_400_000, to: range.upperBound)
        var insert: [Double] = [], refresh: [Double] = []
        let engine = MomentEngine(store: store)
        for day in 1...days {
            let shift = Int64(day) * 86_400_000
            let added = lastDay.map { item -> LibraryItem in
                var copy = item
                copy.id = UUID()
                copy.startMs += shift
                copy.endMs += shift
                return copy
            }
            var t = now()
            try store.insert(added)
            insert.append(now() - t)
            t = now()
            try engine.refresh(touching: added.map(\.startMs).min()!...added.map(\.startMs).max()!)
            refresh.append(now() - t)
        }
        return (insert, refresh, lastDay.count)
    } catch {
        fail("folding in: \(error)")
    }
}

// MARK: The run

struct Row {
    var label = ""
    var items = 0, suggestions = 0
    var seedSeconds = 0.0
    var coldStart = 0.0
    var rssRest = 0.0, rssAfter = 0.0, peak = 0.0
    var firstPageMedian = 0.0, firstPageP99 = 0.0
    var outcomeOwnMedian = 0.0
    var outcomeScriptedMedian = 0.0, outcomeScriptedP99 = 0.0
    var configuration = 0.0, status = 0.0, raw = 0.0
    var concurrentP99 = 0.0
    var foldIn = 0.0, foldInsert = 0.0, dayItems = 0
    var frameBytes = 0
    var coldFirstPage = 0.0, upgradeStart = 0.0, upgradeFirstPage = 0.0, upgradeRebuildServing = false
}

var rows: [Row] = []
for scale in scales {
    let root = "\(work)/\(scale)"
    try? FileManager.default.removeItem(atPath: root)
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let entitlements = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>com.apple.developer.journal.allow</key><true/></dict></plist>
        """
    try? entitlements.write(toFile: root + "/e.plist", atomically: true, encoding: .utf8)
    let pickerd = scalePickerd(root: root)
    var row = Row()
    row.label = scale
    FileHandle.standardError.write(Data("bench-scale: seeding \(scale)…\n".utf8))
    if scale == "demo" {
        pickerd.start()
        let t = now()
        let seeded = pickerd.ctl(["library", "seed-demo"])
        row.seedSeconds = (now() - t) / 1000
        guard seeded.status == 0 else { fail("seeding failed: \(seeded.err)") }
    } else {
        // A scale library is bench support, not pickerd's to make: written here into the data
        // directory (the same Store calls pickerd's seeding made), then pickerd starts on it.
        guard let photos = Int(scale), photos >= 0 else { fail("a scale is a number of photos or \"demo\": \(scale)") }
        let t = now()
        do {
            try ScaleLibrary(photos: photos).seed(into: try Store(dataDirectory: root + "/data"))
        } catch {
            fail("seeding failed: \(error)")
        }
        row.seedSeconds = (now() - t) / 1000
        pickerd.start()
    }
    let stats = pickerd.ctl(["library", "stats"]).out
    func stat(_ prefix: String) -> Int {
        Int(stats.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "0") ?? 0
    }
    row.suggestions = stat("suggestions")
    row.items = stat("items")
    if pickerd.ctl(["apps", "register", "--executable", me, "--entitlements", root + "/e.plist", "--bundle-id", "org.bench.main"]).status != 0 {
        fail("cannot register the bench as an app")
    }
    // Cold start: stop, start, time to the first answered status.
    pickerd.stop()
    row.coldStart = pickerd.start()
    // Settle: a first presentation, then memory at rest.
    // (The first of them is the first page after a start: the baseline of the one after an upgrade.)
    row.coldFirstPage = presentWithOwnAgent(pickerd, runs: 3).firstPage.first ?? 0
    row.rssRest = pickerd.memory().rss
    FileHandle.standardError.write(Data("bench-scale: presenting at \(scale)…\n".utf8))
    let own = presentWithOwnAgent(pickerd, runs: 100)
    row.firstPageMedian = percentile(own.firstPage, 0.5)
    row.firstPageP99 = percentile(own.firstPage, 0.99)
    row.outcomeOwnMedian = percentile(own.outcome, 0.5)
    row.frameBytes = own.frameBytes
    let scripted = presentWithScriptedAgent(pickerd, runs: 100)
    row.outcomeScriptedMedian = percentile(scripted, 0.5)
    row.outcomeScriptedP99 = percentile(scripted, 0.99)
    let memory = pickerd.memory()
    row.rssAfter = memory.rss
    let small = smallRequests(pickerd, rounds: 2_050)
    (row.configuration, row.status, row.raw) = (small.configuration, small.status, small.raw)
    FileHandle.standardError.write(Data("bench-scale: 64 apps at once at \(scale)…\n".utf8))
    let together = concurrent(pickerd, apps: 64)
    row.concurrentP99 = percentile(together, 0.99)
    row.peak = pickerd.memory().peak
    let fold = foldIn(pickerd, days: 5)
    row.foldIn = percentile(fold.refresh, 0.5)
    row.foldInsert = percentile(fold.insert, 0.5)
    row.dayItems = fold.items
    // The first start after an upgrade to a newer moments engine: the store marked as an older
    // engine's, then the start (to the first status) and the first presentation, served while the
    // moments are built again in the background (issue 44), against the same row's figures.
    pickerd.stop()
    do {
        let store = try Store(dataDirectory: root + "/data")
        try store.replaceSuggestions(try store.suggestions(), engineVersion: MomentEngine.version - 1)
    } catch {
        fail("marking the store as an older engine's: \(error)")
    }
    row.upgradeStart = pickerd.start()
    let during = presentWithOwnAgent(pickerd, runs: 1)
    row.upgradeFirstPage = during.firstPage.first ?? 0
    row.upgradeRebuildServing = !((try? String(contentsOfFile: root + "/pickerd.log", encoding: .utf8)) ?? "").contains("built the library's moments again")
    pickerd.stop()
    rows.append(row)
    try? FileManager.default.removeItem(atPath: root)
}

func column(_ values: [String]) -> String {
    values.enumerated().map { $1.padding(toLength: $0 == 0 ? 20 : 14, withPad: " ", startingAt: 0) }.joined()
}

print("")
print("pickerd at scale (release build; medians unless said; times in ms; memory in MB)")
print(column(["library"] + rows.map(\.label)) + "target (at 100k; † at the demo)")
let table: [(String, (Row) -> String, String)] = [
    ("items", { "\($0.items)" }, ""),
    ("suggestions", { "\($0.suggestions)" }, ""),
    ("seed s", { f($0.seedSeconds) }, "reported"),
    ("seed items/s", { f(Double($0.items) / max($0.seedSeconds, 0.001), 0) }, "reported"),
    ("cold start", { f($0.coldStart) }, "≤ 300"),
    ("first page", { f($0.firstPageMedian, 2) }, "≤ 50"),
    ("first page p99", { f($0.firstPageP99, 2) }, "≤ 100"),
    ("review bytes", { "\($0.frameBytes)" }, "bounded"),
    ("outcome (own)", { f($0.outcomeOwnMedian, 2) }, ""),
    ("outcome script", { f($0.outcomeScriptedMedian, 2) }, "≤ 60; ≤ 5 †"),
    ("outcome p99", { f($0.outcomeScriptedP99, 2) }, ""),
    ("64 at once p99", { f($0.concurrentP99, 1) }, "≤ 50 †"),
    ("config req", { f($0.configuration * 1000, 0) + " µs" }, ""),
    ("status req", { f($0.status * 1000, 0) + " µs" }, ""),
    ("raw trip", { f($0.raw * 1000, 0) + " µs" }, ""),
    ("config ÷ raw", { f($0.configuration / $0.raw) + "×" }, "≤ 5× †"),
    ("status ÷ raw", { f($0.status / $0.raw) + "×" }, "≤ 5× †"),
    ("RSS at rest", { f($0.rssRest) }, "≤ 120"),
    ("RSS after 200", { f($0.rssAfter) }, "≤ 120"),
    ("RSS peak", { f($0.peak) }, ""),
    ("1st page at start", { f($0.coldFirstPage, 2) }, "reported"),
    ("upgrade: start", { f($0.upgradeStart) }, "≤ 300"),
    ("upgrade: 1st page", { f($0.upgradeFirstPage, 2) + ($0.upgradeRebuildServing ? " *" : "") }, "≤ 50"),
    ("upgrade ÷ at start", { f($0.upgradeFirstPage / max($0.coldFirstPage, 0.001)) + "×" }, "reported"),
    ("new day (refresh)", { f($0.foldIn) }, "≤ 200"),
    ("new day (insert)", { f($0.foldInsert) }, ""),
    ("items in a day", { "\($0.dayItems)" }, ""),
]
for (name, value, target) in table {
    print(column([name] + rows.map(value)) + target)
}
print("* the first page was served while the moments were still being built again (not after them)")
