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
        let pickerd = try sessionPickerd(script: #"{"reviews": []}"#, extra: ["--agent-executable", me])
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
        #expect(review.recommended.count == 50 && review.recent.count == 50, "the first page: \(review.recommended.count), \(review.recent.count)")
        #expect(review.recommendedTotal == 73 && review.recentTotal == 73, "totals \(review.recommendedTotal), \(review.recentTotal)")

        // The rest of Recent, then past its end.
        let rest = try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: .recent, offset: 50, limit: 500)))
        guard case .suggestionsPageReply(let page)? = rest.envelope.body else { Issue.record("no page"); return }
        #expect(page.offset == 50 && page.total == 73 && page.suggestions.count == 23)
        let all = review.recent + page.suggestions
        #expect(Set(all.map(\.id)).count == 73, "every suggestion once")
        #expect(all.map { $0.date?.endUnixMs ?? 0 } == all.map { $0.date?.endUnixMs ?? 0 }.sorted(by: >), "Recent stays newest first across pages")
        let past = try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: review.sessionHandle, list: .recommended, offset: 90)))
        guard case .suggestionsPageReply(let empty)? = past.envelope.body else { Issue.record("no page"); return }
        #expect(empty.suggestions.isEmpty && empty.total == 73)
        // Another session's pages are not this agent's to read.
        let stranger = #expect(throws: ProtocolClient.RemoteError.self) {
            try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: UUID().uuidString, list: .recent)))
        }
        #expect(stranger?.code == .notFound)

        // A suggestion from the second page can be approved; the app gets it.
        let chosen = page.suggestions[10]
        try agent.connection.send(Envelope(requestId: reviewID, body: .reviewDecision(ReviewDecision(
            sessionHandle: review.sessionHandle, decision: .approve(Approval(suggestionId: chosen.id, keptItemIds: chosen.items.map(\.id)))))))
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let outcome = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.last
        #expect(outcome?["result"] as? String == "approved" && outcome?["title"] as? String == chosen.title, "\(outcome ?? [:])")
        print("paging: the ReviewRequest for 73 suggestions was \(bytes) bytes")
    }

    @Test("the scripted agent scrolls to a suggestion past the first page")
    func scripted() throws {
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{"list": "recent", "index": 70}]}"#)
        defer { pickerd.stop() }
        let lines = try testClient(pickerd, "present")
        #expect(lines.last?["result"] as? String == "approved", "\(lines)")
        #expect(pickerd.logText.contains("fetched recent 50–73 of 73"), "\(pickerd.logText)")
    }
}
