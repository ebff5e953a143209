import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What was released to which app, when (newest first); clear it.",
                                                    subcommands: [List.self, Clear.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What was released to which app, when (newest first).")
        @OptionGroup var connection: Connection
        @Option(help: "Show at most this many releases.") var limit: UInt32 = 0
        @Option(help: "Only this app's releases.") var app: String = ""

        func run() throws {
            guard case .historyReply(let history) = perform(try connection.open(), .history(HistoryRequest(limit: limit, bundleId: app))) else {
                fail("unexpected reply", code: 1)
            }
            if history.entries.isEmpty { print("nothing has been released yet") }
            let formatter = ISO8601DateFormatter()
            for entry in history.entries {
                let when = formatter.string(from: Date(unixMs: entry.time?.unixMs ?? 0))
                print("\(when)  \(entry.appDisplayName) (\(entry.bundleId)): \"\(entry.title)\", \(entry.items.count) items")
                for item in entry.items { print("    \(item.kind): \(item.summary)") }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the history of releases (every app's, or one app's); nothing of it stays in pickerd's files.")
        @OptionGroup var connection: Connection
        @Option(help: "Only this app's releases.") var app: String = ""

        func run() throws {
            guard case .historyReply(let reply) = perform(try connection.open(), .history(HistoryRequest(bundleId: app, clear: true))) else {
                fail("unexpected reply", code: 1)
            }
            print("deleted \(reply.cleared) release\(reply.cleared == 1 ? "" : "s") from the history\(app.isEmpty ? "" : " of \(app)")")
        }
    }
}
