import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Whether pickerd answers, and what it holds (exit 0 when it answers).")
    @OptionGroup var connection: Connection

    func run() throws {
        let client = try connection.open()
        guard case .statusReply(let s) = perform(client, .status(StatusRequest())) else { fail("unexpected reply", code: 1) }
        print("""
            pickerd \(s.softwareVersion) (protocol \(s.protocolVersion)), pid \(s.pid), up \(s.uptimeMs / 1000) s
            store: \(s.dataDir)
            library: \(s.itemCount) items, \(s.suggestionCount) suggestions
            consent: \(s.consentGiven ? "given" : "not yet given")
            sessions: \(s.activeSessions) active, \(s.registeredAgents) picker agents
            sources: \(s.sourceCount) folder\(s.sourceCount == 1 ? "" : "s") (pickerctl sources list)
            """)
        for p in s.scanning { print("indexing: " + describe(p)) }
    }
}
