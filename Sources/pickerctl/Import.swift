import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import exports: location history, workouts, listening, moods, contacts, calendars (files or folders; the kind is read from each file's content).",
        discussion: """
            Google Takeout (Records.json, Semantic Location History, Timeline.json), OwnTracks .rec files, GPX, \
            TCX, FIT and .fit.gz; Strava and Garmin export folders; ListenBrainz and Last.fm listening \
            history; Daylio moods; vCard contacts; iCalendar (.ics) events. Each file is imported whole or \
            not at all; the same workout, visit or listen from two exports is imported once.
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "Files or folders.") var paths: [String]

    func run() throws {
        let client = try connection.open()
        let reply = perform(client, .importRequest(ImportRequest(paths: paths.map(absolute))),
                            isFinal: { if case .importProgress = $0 { false } else { true } },
                            onEvent: { event in
                                guard case .importProgress(let p) = event else { return }
                                let points = p.points > 0 ? ", \(p.points) points" : ""
                                FileHandle.standardError.write(Data("importing \(p.filesDone + 1)/\(p.filesTotal): \(p.file)\(points)\n".utf8))
                            })
        guard case .importReply(let r) = reply else { fail("unexpected reply", code: 1) }
        // A file the person named must import something: one that was refused, is no export, or
        // held nothing fails the command (a file found in a folder or an archive that is no export
        // is named with what it is and left alone).
        let named = Set(paths.map(absolute))
        var failed = false
        var skipped = 0
        for file in r.files {
            if file.kind.isEmpty {
                if named.contains(file.file) {
                    failed = true
                    print("\(file.file): not imported: \(file.error.isEmpty ? "not an export pickerd reads" : file.error)")
                } else {
                    skipped += 1
                    if !file.error.isEmpty { print("\(file.file): left alone: \(file.error)") }
                }
                continue
            }
            if !file.error.isEmpty {
                failed = true
                print("\(file.file): not imported: \(file.error)")
                continue
            }
            var parts: [String] = []
            if file.workouts > 0 { parts.append("\(file.workouts) workout\(file.workouts == 1 ? "" : "s")") }
            if file.visits > 0 { parts.append("\(file.visits) visit\(file.visits == 1 ? "" : "s")") }
            if file.points > 0 { parts.append("\(file.points) points") }
            for count in file.counts where count.count > 0 { parts.append("\(count.count) \(count.what)") }
            if file.duplicates > 0 { parts.append("\(file.duplicates) already imported") }
            // What was left out of it (`events left out (…)`) is no import.
            let held = parts.filter { !$0.contains("left out") }
            if held.isEmpty, named.contains(file.file) {
                failed = true
                print("\(file.file) (\(file.kind)): not imported: " + (parts.isEmpty ? "the file holds nothing to import" : parts.joined(separator: ", ")))
                continue
            }
            print("\(file.file) (\(file.kind)): \(parts.isEmpty ? "nothing to import" : parts.joined(separator: ", "))")
        }
        if skipped > 0 { print("\(skipped) file\(skipped == 1 ? "" : "s") not recognised as an export, left alone") }
        print("\(r.itemsAdded) items added; the library has \(r.suggestionCount) suggestions")
        if failed { Foundation.exit(1) }
    }
}
