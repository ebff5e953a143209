import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Donations: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What apps donated (media, moods): see it, and remove any of it.",
        discussion: """
            Apps with the org.pickerd.journal.donations entitlement donate media they played and moods the \
            person logged; donations appear in your suggestions unless the app excluded them. Removing one \
            takes it out of every suggestion and every release from now on. Apps never see this list.
            """,
        subcommands: [List.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Donations, newest first: the app, what, when, and whether the app excluded it.")
        @OptionGroup var connection: Connection
        @Option(help: "Only this app's donations.") var app: String = ""
        @Option(help: "Show at most this many.") var limit: UInt32 = 0
        func run() throws {
            guard case .donationsListReply(let reply) = perform(try connection.open(), .donationsList(DonationsListRequest(bundleId: app, limit: limit))) else {
                fail("unexpected reply", code: 1)
            }
            if reply.donations.isEmpty { print(app.isEmpty ? "no app has donated anything" : "\(app) has donated nothing") }
            for d in reply.donations {
                let who = d.appName.isEmpty ? d.bundleId : "\(d.appName) (\(d.bundleId))"
                print("\(d.itemId)  \(date(d.dateMs))  \(who)  \(d.kind): \(d.summary)\(d.excluded ? "  [excluded from suggestions]" : "")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove donations by their ids (from donations list), or every donation of an app.")
        @OptionGroup var connection: Connection
        @Option(help: "Every donation of this app (with no ids), or only ids of this app.") var app: String = ""
        @Argument(help: "Donation ids, as donations list shows them.") var ids: [String] = []
        func validate() throws {
            guard !ids.isEmpty || !app.isEmpty else { throw ValidationError("give donation ids, or --app BUNDLE-ID for all of an app's") }
        }
        func run() throws {
            guard case .donationsRemoveReply(let reply) = perform(try connection.open(), .donationsRemove(DonationsRemoveRequest(itemIds: ids, bundleId: app))) else {
                fail("unexpected reply", code: 1)
            }
            print("removed \(reply.removed) donation\(reply.removed == 1 ? "" : "s")")
        }
    }
}
