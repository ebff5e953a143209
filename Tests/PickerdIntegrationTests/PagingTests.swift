import Foundation
import Glibc
import PickerdTestKit
import PickerdTransport
import PickerdWire
import Testing

/// The picker gets the lists a page at a time: a ReviewRequest carries at most 50 of each with the
/// totals, and the agent asks for the rest as the person scrolls. No frame grows with the library.
@Suite("Paging: the picker's lists arrive a page at a time", .serialized)
struct PagingTests {
    @Test("a ReviewRequest carries the first 50 of each list and the totals; pages bring the rest, only to the session's agent")
    func pages() throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // A library larger than a page: a small scale library (months of photos, visits, workouts).
        let root = try scaleLibrary(photos: 1500)
        let pickerd = try sessionPickerd(script: #"{"reviews": []}"#, extra: ["--agent-executable", me], root: root)
        defer { pickerd.stop() }
        // This test process is the picker: it registers before the app presents.
        let agent = try ProtocolClient(path: pickerd.runtime + "/agent.sock", role: .agent, software: "paging test")
        _ = try agent.request(.agentRegister(AgentRegister(name: "paging test")))
        let app = Process()
        app.executableURL = BuiltProducts.url("pickerd-test-client")
        app.arguments = [pickerd.runtime, "present"]
        let output = Pipe()
        app.standardOutput = output
        try app.run()
        defer { if app.isRunning { kill(app.processIdentifier, SIGKILL) }; app.waitUntilExit() }

        func nextReview() throws -> (ReviewRequest, UInt64, Int) {
            while let frame = try agent.connection.receive() {
                if case .review(let review)? = frame.envelope.body { return (review, frame.envelope.requestId, frame.body.count) }
            }
            throw CocoaError(.fileReadUnknown)
        }
        let (consent, consentID, _) = try nextReview()
        #expect(consent.consentNeeded)
        try agent.connection.send(Envelope(requestId: consentID, body: .consentDecision(ConsentDecision(sessionHandle: consent.sessionHandle, answer: .accept))))
        let (review, reviewID, bytes) = try nextReview()
        let total = Int(review.recentTotal)
        #expect(total > 60, "a scale library holds more than a page: \(total)")
        #expect(review.recent.count == 50, "the first page of Recent: \(review.recent.count)")
        #expect(review.recommended.count == Int(review.recommendedTotal) && (8...24).contains(review.recommended.count),
                "Recommended is short and whole: \(review.recommended.count) of \(review.recommendedTotal)")

        // The rest of Recent, a page (at most 50) at a time, then past its end.
        var all = review.recent
        var page = SuggestionsPageReply()
        while all.count < total {
            let next = try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: .recent,
                                                                                offset: UInt32(all.count), limit: 500)))
            guard case .suggestionsPageReply(let reply)? = next.envelope.body else { Issue.record("no page"); return }
            #expect(reply.offset == UInt32(all.count))
            #expect(reply.total == UInt32(total))
            #expect((1...50).contains(reply.suggestions.count))
            if reply.suggestions.isEmpty { break }
            if all.count == 50 { page = reply }
            all += reply.suggestions
        }
        #expect(Set(all.map(\.id)).count == total, "every suggestion once")
        #expect(all.map { $0.date?.endUnixMs ?? 0 } == all.map { $0.date?.endUnixMs ?? 0 }.sorted(by: >), "Recent stays newest first across pages")
        let past = try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: .recommended, offset: 90)))
        guard case .suggestionsPageReply(let empty)? = past.envelope.body else { Issue.record("no page"); return }
        #expect(empty.suggestions.isEmpty)
        #expect(empty.total == review.recommendedTotal)
        // Another session's pages are not this agent's to read.
        let stranger = #expect(throws: ProtocolClient.RemoteError.self) {
            try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: UUID().uuidString, list: .recent)))
        }
        #expect(stranger?.code == .notFound)

        // A suggestion from the second page can be approved; the app gets it.
        let chosen = page.suggestions[10]
        try agent.connection.send(Envelope(requestId: reviewID, body: .reviewDecision(ReviewDecision(
            sessionHandle: review.sessionHandle, decision: .approve(Approval(suggestionId: chosen.id, keptItemIds: chosen.items.map(\.id)))))))
        let outcome = jsonLines(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)).last
        #expect(outcome?["result"] as? String == "approved", "\(outcome ?? [:])")
        #expect(outcome?["title"] as? String == chosen.title, "\(outcome ?? [:])")
        #expect(bytes < 1 << 20, "the first frame stays small: \(bytes) bytes")
        print("paging: the ReviewRequest for \(total) suggestions was \(bytes) bytes")
    }

    @Test("the scripted agent scrolls to a suggestion past the first page")
    func scripted() throws {
        let root = try scaleLibrary(photos: 1500)
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{"list": "recent", "index": 70}]}"#, root: root)
        defer { pickerd.stop() }
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["result"] as? String == "approved", "\(lines)")
        #expect(pickerd.logText.contains("fetched recent 50–100 of "), "\(pickerd.logText)")
    }
}

/// A root for a pickerd whose data directory holds a scale library of `photos` photos, written by
/// pickerd-scale-library before pickerd starts (pickerd makes only the demo library; with a library
/// there, its `--seed-demo` leaves it as it is).
/// - Parameter photos: how many photos and videos.
/// - Returns: the root, for ``sessionPickerd(script:entitlements:register:extra:environment:root:developerMode:)``.
/// - Throws: when the directory cannot be made or the tool fails (the error holds what it printed).
func scaleLibrary(photos: Int) throws -> String {
    let root = try TemporaryDirectory.forThisRun(prefix: "pkd-scale")
    let written = try runProduct("pickerd-scale-library", [root + "/data", String(photos)])
    guard written.status == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "pickerd-scale-library failed: \(written.stderr)"])
    }
    return root
}
