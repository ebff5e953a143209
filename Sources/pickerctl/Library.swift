import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Library: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The person's library.", subcommands: [SeedDemo.self, Stats.self])

    struct SeedDemo: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "seed-demo", abstract: "Fill the store with the demo library.",
                                                        discussion: """
            The bundled sixteen days. A scale library (N made-up photos and videos over years, for benchmarks and
            tests) is not pickerd's to make: the benchmarks write one with pickerd-scale-library DATA-DIR N while
            pickerd is stopped (see Tools/bench-scale).
            """)
        @OptionGroup var connection: Connection
        @Flag(help: "Replace a library that is already there.")
        var replace = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .librarySeedDemo(LibrarySeedDemoRequest(replace: replace)),
                                isFinal: { if case .seedProgress = $0 { false } else { true } },
                                onEvent: { event in
                                    if case .seedProgress(let p) = event {
                                        FileHandle.standardError.write(Data("seeding: \(p.stage) (\(p.done)/\(p.total) items)\n".utf8))
                                    }
                                })
            guard case .libraryStatsReply(let stats) = reply else { fail("unexpected reply", code: 1) }
            printStats(stats)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Items per asset type and the suggestions as the picker lists them.")
        @OptionGroup var connection: Connection

        func run() throws {
            let client = try connection.open()
            guard case .libraryStatsReply(let stats) = perform(client, .libraryStats(LibraryStatsRequest())) else {
                fail("unexpected reply", code: 1)
            }
            printStats(stats)
        }
    }
}

func printStats(_ stats: LibraryStatsReply) {
    let width = stats.counts.map(\.kind.count).max() ?? 0
    for count in stats.counts {
        print(count.kind.padding(toLength: width, withPad: " ", startingAt: 0), String(format: "%6d", count.count))
    }
    print("items: \(stats.counts.map(\.count).reduce(0, +))")
    print("suggestions: \(stats.suggestionCount) (recommended \(stats.recommendedCount), recent \(stats.recentCount))")
    print("largest suggestion: \(stats.largestSuggestionSize) items")
}
