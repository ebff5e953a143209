import Foundation
import Glibc
import PickerdTestKit
import PickerdTransport
import PickerdWire
import Testing

/// "Name this place" in both pickers: a visit of the evening with Maya named in the review, the
/// title saying the name at once, the entry holding it, `pickerctl places` listing it as the
/// person's word, and the next presentation's lists calling the place by it.
@Suite("Naming places in the pickers", .serialized)
struct NamingPickerTests {
    /// The places `pickerctl places` lists with the person's name (their word, or a place they named).
    static func personsPlaces(_ pickerd: RunningPickerd) throws -> [String] {
        try pickerd.ctl(["places"]).stdout.split(separator: "\n").map(String.init).filter { $0.contains("Nonna's") }
    }

    /// The journal-demo entries written so far.
    static func entries(_ pickerd: RunningPickerd) throws -> [String] {
        let folder = pickerd.root + "/journal"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md") }) ?? []
        return try files.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
    }

    @Test("terminal: n names the visit, the title says it at once, the entry and pickerctl places hold it, the next lists call it so")
    func terminal() throws {
        let hiding = HidingPickerTests()
        let pickerd = try hiding.world(nil)
        let window = try TmuxWindow(hiding.journalDemo(pickerd), columns: 120, rows: 50)
        #expect(window.waitFor("[ Turn On ]"), "\(window.screen)\n\(pickerd.logText)")
        try window.keys("t")
        #expect(window.waitFor("Recommended ("), "\(window.screen)")
        try HidingPickerTests.select("with Maya", in: window)
        let evening = try #require(HidingPickerTests.selected(in: window), "\(window.screen)")
        #expect(evening.contains("with Maya at "), "\(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("n name place  h hide this"), "the keys say what they do: \(window.screen)")
        try window.keys("n")
        #expect(window.waitFor("Name this place ("), "\(window.screen)")
        #expect(window.screen.contains("Every suggestion will call this place by your name"), "what it does, in a line: \(window.screen)")
        try window.type("Nonna's")
        try window.keys("Enter")
        #expect(window.waitFor("Called “Nonna's” from now on"), "\(window.screen)\n\(pickerd.logText)")
        #expect(window.screen.contains("with Maya at Nonna's"), "the title says it: \(window.screen)")
        #expect(window.screen.contains("Nonna's"), "\(window.screen)")
        try window.keys("Enter")
        #expect(window.waitFor("EXIT=0"), "\(window.screen)\n\(pickerd.logText)")
        let entry = try #require(try Self.entries(pickerd).first, "no entry written")
        #expect(entry.hasPrefix("# ") && entry.split(separator: "\n").first?.contains("Nonna's") == true, "\(entry)")
        let places = try Self.personsPlaces(pickerd)
        #expect(places.count == 1 && places[0].contains("Nonna's"), "\(places)")

        // The next presentation's lists call the place by its name.
        let next = try TmuxWindow(hiding.journalDemo(pickerd), columns: 120, rows: 50)
        #expect(next.waitFor("Recommended ("), "\(next.screen)")
        let screens = [next.screen] + (try { () -> [String] in
            try next.keys("Tab")
            _ = next.waitFor("Recent (")
            return [next.screen]
        }())
        #expect(screens.contains { $0.contains("with Maya at Nonna's") }, "\(screens)")
        #expect(!screens.contains { $0.contains(evening) }, "\(screens)")
        try next.keys("Escape")
        #expect(next.waitFor("EXIT="), "\(next.screen)")
        pickerd.stop()
    }
}

/// "Name this place" through the agent protocol itself: this test process is the picker agent (it
/// registers before the app presents) and, on the client socket, an app that tries the same.
/// (Written by a second implementer of the feature, on its own branch, and kept for its refusals.)
extension NamingPickerTests {
    @Test("a visit shown in the session is named: the title says it, places lists it; refusals are typed; an app cannot name")
    func nameFromThePicker() throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let pickerd = try sessionPickerd(script: #"{"reviews": []}"#, extra: ["--agent-executable", me], environment: ["TZ": "America/New_York"])
        defer { pickerd.stop() }
        let registered = try pickerd.ctl(["apps", "register", "--executable", me, "--entitlements", pickerd.root + "/app.entitlements",
                                          "--bundle-id", "org.test.naming", "--name", "Naming Test"])
        #expect(registered.status == 0, "\(registered.stderr)")
        let agent = try ProtocolClient(path: pickerd.runtime + "/agent.sock", role: .agent, software: "naming test")
        _ = try agent.request(.agentRegister(AgentRegister(name: "naming test")))
        let app = Process()
        app.executableURL = BuiltProducts.url("pickerd-test-client")
        app.arguments = [pickerd.runtime, "present"]
        app.standardOutput = Pipe()
        try app.run()
        defer { if app.isRunning { kill(app.processIdentifier, SIGKILL) }; app.waitUntilExit() }

        func nextReview() throws -> (ReviewRequest, UInt64) {
            while let frame = try agent.connection.receive() {
                if case .review(let review)? = frame.envelope.body { return (review, frame.envelope.requestId) }
            }
            throw CocoaError(.fileReadUnknown)
        }
        let (consent, consentID) = try nextReview()
        try agent.connection.send(Envelope(requestId: consentID, body: .consentDecision(ConsentDecision(sessionHandle: consent.sessionHandle, answer: .accept))))
        let (review, reviewID) = try nextReview()
        let handle = review.sessionHandle
        // Every suggestion of Recent, a page at a time: a visit to Riverside Park the title names.
        var shown = review.recommended + review.recent
        while shown.count < review.recommended.count + Int(review.recentTotal) {
            let next = try agent.request(.suggestionsPage(SuggestionsPageRequest(sessionHandle: handle, list: .recent,
                                                                                offset: UInt32(shown.count - review.recommended.count))))
            guard case .suggestionsPageReply(let page)? = next.envelope.body, !page.suggestions.isEmpty else { break }
            shown += page.suggestions
        }
        func visit(_ item: Item) -> Location? { if case .location(let l)? = item.asset, l.location != nil { l } else { nil } }
        let chosen = try #require(shown.first { s in s.title.contains("Riverside Park") && s.items.contains { visit($0)?.place == "Riverside Park" } },
                                  "\(shown.map(\.title))")
        let park = try #require(chosen.items.first { visit($0)?.place == "Riverside Park" })
        let other = try #require(chosen.items.first { visit($0) == nil }, "a suggestion with a visit and something else")
        func ask(_ request: NamePlaceRequest) -> ErrorCode? {
            let error = #expect(throws: ProtocolClient.RemoteError.self) { try agent.request(.namePlace(request)) }
            return error?.code
        }

        let placesBefore = try pickerd.ctl(["places"]).stdout
        #expect(placesBefore.contains("  Riverside Park  "), "\(placesBefore)")
        // An app on the client socket cannot name, even with the session's real handle and ids.
        let intruder = try ProtocolClient(path: pickerd.runtime + "/client.sock", role: .client, software: "naming test app")
        let refused = #expect(throws: ProtocolClient.RemoteError.self) {
            try intruder.request(.namePlace(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: park.id, name: "Intruder's")))
        }
        #expect(refused?.code == .wrongRole, "\(refused?.message ?? "no error")")
        #expect(try pickerd.ctl(["places"]).stdout == placesBefore, "the app named nothing")

        // Typed refusals, and nothing stored by them.
        #expect(ask(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: "no-such-item", name: "x")) == .notFound)
        #expect(ask(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: other.id, name: "x")) == .notFound,
                "only a visit can be named")
        #expect(ask(NamePlaceRequest(sessionHandle: handle, suggestionId: UUID().uuidString, placeItemId: park.id, name: "x")) == .notFound,
                "a suggestion not shown in the session")
        #expect(ask(NamePlaceRequest(sessionHandle: UUID().uuidString, suggestionId: chosen.id, placeItemId: park.id, name: "x")) == .notFound)
        #expect(ask(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: park.id, name: "  ")) == .invalidArgument)
        #expect(ask(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: park.id,
                                     name: String(repeating: "x", count: 81))) == .invalidArgument)
        #expect(try pickerd.ctl(["places"]).stdout == placesBefore, "no refusal stored a name")

        // Named: the reply's title and visit say it, and pickerctl places lists it as the person's.
        let answer = try agent.request(.namePlace(NamePlaceRequest(sessionHandle: handle, suggestionId: chosen.id, placeItemId: park.id,
                                                                   name: "  Tanbark Park ")))
        guard case .namePlaceReply(let reply)? = answer.envelope.body else { Issue.record("no reply: \(answer.envelope)"); return }
        #expect(reply.name == "Tanbark Park", "stored trimmed")
        #expect(reply.title.contains("Tanbark Park") && !reply.title.contains("Riverside Park"), "\(chosen.title) → \(reply.title)")
        #expect(reply.weeksRebuilt > 0)
        #expect(reply.item.flatMap(visit)?.place == "Tanbark Park" && reply.item?.id == park.id, "\(String(describing: reply.item))")
        // The known place there is called by the person's name (as after `pickerctl places name`).
        let places = try pickerd.ctl(["places"]).stdout
        #expect(places.contains("  Tanbark Park  ") && !places.contains("Riverside Park"), "\(places)")

        // The app gets the title as renamed when the person adds it.
        try agent.connection.send(Envelope(requestId: reviewID, body: .reviewDecision(ReviewDecision(
            sessionHandle: handle, decision: .approve(Approval(suggestionId: chosen.id, keptItemIds: chosen.items.map(\.id)))))))
        let said = String(decoding: (app.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let outcome = jsonLines(said).last
        #expect(outcome?["result"] as? String == "approved", "\(said)")
        #expect((outcome?["title"] as? String)?.contains("Tanbark Park") == true, "\(said)")
    }
}

/// The desktop half runs in the desktop picker's suite, one test at a time with the others there.
extension DesktopPickerTests {
    @Test("desktop: Name This Place on the visit, the title says it at once, pickerctl places holds it as the person's word")
    func namingInTheDesktopPicker() throws {
        let hiding = HidingPickerTests()
        let display = try XDisplay()
        let (pickerd, app, window) = try hiding.desktopLists(display)
        try HidingPickerTests.focus("with Maya", in: display)
        #expect(HidingPickerTests.focused(in: display)?.contains("with Maya at ") == true, "\(display.tree)")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        // The visit's own page of the carousel offers the button: the items are walked until it shows.
        for item in 2..<10 where !display.tree.contains("push button 'Name This Place…'") {
            try display.keys("alt+n")
            _ = display.waitFor("\(item) of ")
        }
        #expect(display.waitFor("push button 'Name This Place…'"), "\(display.tree)")
        try display.keys("alt+l")
        #expect(display.drawn("name-place", in: window), "\(display.tree)")
        #expect(display.tree.contains("Every suggestion will call this place by your name"), "\(display.tree)")
        // No name: said in the error style (red); named: said as news, not in red.
        try display.keys("Return")
        #expect(display.waitFor("Type a name, or go back"), "\(display.tree)")
        let refused = try display.pixels(of: DesktopPickerTests.errorColour, in: display.screenshot("name-refused"))
        #expect(refused > 40, "the refusal in red: \(refused) pixels")
        try display.type("Nonna's")
        try display.keys("Return")
        #expect(display.drawn("review", in: window), "\(display.tree)")
        #expect(display.waitFor("Called “Nonna's” from now on"), "\(display.tree)\n\(pickerd.logText)")
        #expect(display.tree.contains("with Maya at Nonna's"), "the title says it: \(display.tree)")
        let named = try display.pixels(of: DesktopPickerTests.errorColour, in: display.screenshot("named"))
        #expect(named < refused / 4, "the news is not in the error style: \(named) red pixels against the refusal's \(refused)")
        try display.keys("Escape")
        #expect(app.finish() != nil, "\(app.said)")
        let places = try NamingPickerTests.personsPlaces(pickerd)
        #expect(places.count == 1 && places[0].contains("Nonna's"), "\(places)")
        pickerd.stop()
    }
}
