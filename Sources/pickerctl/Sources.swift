import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Sources: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Folders of your own photos and videos, which pickerd indexes where they are and watches.",
        discussion: "pickerd keeps a reference and the metadata (dates, places, cameras); the files stay yours and where they are.",
        subcommands: [List.self, Add.self, Remove.self, Rescan.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The sources, what they hold, and the folders offered.")
        @OptionGroup var connection: Connection

        func run() throws {
            let client = try connection.open()
            guard case .sourcesListReply(let reply) = perform(client, .sourcesList(SourcesListRequest())) else { fail("unexpected reply", code: 1) }
            printSources(reply)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a folder and index it (waits, showing progress, unless --no-wait).")
        @OptionGroup var connection: Connection
        @Argument(help: "The folder.") var path: String
        @Flag(help: "Return at once; the scan goes on in pickerd (pickerctl status shows it).") var noWait = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .sourcesAdd(SourcesAddRequest(path: absolute(path), wait: !noWait)),
                                isFinal: { if case .scanProgress = $0 { false } else { true } }, onEvent: showProgress)
            guard case .sourcesListReply(let list) = reply else { fail("unexpected reply", code: 1) }
            printSources(list)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a source: its items leave the library and every suggestion; the files stay.")
        @OptionGroup var connection: Connection
        @Argument(help: "The folder.") var path: String

        func run() throws {
            let client = try connection.open()
            guard case .sourcesListReply(let list) = perform(client, .sourcesRemove(SourcesRemoveRequest(path: absolute(path)))) else {
                fail("unexpected reply", code: 1)
            }
            printSources(list)
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look at every source (or one) again, showing progress.")
        @OptionGroup var connection: Connection
        @Argument(help: "One source (default: every source).") var path: String?
        @Flag(help: "Return at once; the scan goes on in pickerd.") var noWait = false

        func run() throws {
            let client = try connection.open()
            let reply = perform(client, .sourcesRescan(SourcesRescanRequest(path: path.map(absolute) ?? "", wait: !noWait)),
                                isFinal: { if case .scanProgress = $0 { false } else { true } }, onEvent: showProgress)
            guard case .sourcesListReply(let list) = reply else { fail("unexpected reply", code: 1) }
            printSources(list)
        }
    }
}

func printSources(_ reply: SourcesListReply) {
    for s in reply.summaries {
        if !s.error.isEmpty {
            print("\(s.source): scan stopped: \(s.error)")
            continue
        }
        print(String(format: "%@: %llu files in %.1f s: %llu new, %llu changed, %llu moved, %llu gone, %llu skipped, %llu Live Photos",
                     s.source, s.seen, s.seconds, s.added, s.changed, s.moved, s.removed, s.skipped, s.livePhotos)
              + (s.readAgain > 0 ? ", \(s.readAgain) read again (an older pickerd had read them)" : ""))
        for example in s.skippedExamples { print("  skipped \(example)") }
    }
    if reply.sources.isEmpty { print("no sources yet") }
    for source in reply.sources {
        let scanned = source.lastScanMs > 0
            ? "last scanned \(date(source.lastScanMs))"
            : "not scanned yet"
        print("\(source.path)")
        // The reasons are pickerd's words (a pickerd before them sends none: then the count alone).
        let keptOut = source.notMemories == 0 ? "" : source.notMemoryReasons.isEmpty
            ? " (\(source.notMemories) kept out of suggestions)"
            : " (\(source.notMemories) kept out of suggestions: \(source.notMemoryReasons.joined(separator: ", ")))"
        print("  \(source.indexed) photos and videos indexed\(keptOut), \(source.skipped) files skipped")
        print("  \(scanned); \(source.watched ? "watched for changes" : "not watched")")
        for folder in source.skippedFolders { print("  not looked into: \(folder)") }
        if !source.problem.isEmpty { print("  problem: \(source.problem)") }
    }
    for p in reply.scanning { print("indexing: " + describe(p)) }
    for folder in reply.offered { print("offered: \(folder) (pickerctl sources add \(folder))") }
}
