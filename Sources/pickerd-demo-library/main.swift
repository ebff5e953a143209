// pickerd-demo-library: writes the demo library (PickerdDemoLibrary: sixteen made-up days, their
// pictures and clips, and their suggestions) into a pickerd data directory. pickerd runs it as a
// child for `pickerd --seed-demo` and `pickerctl library seed-demo`, so neither pickerd nor its
// reader links the generator; it writes through a store connection of its own while pickerd keeps
// serving (SQLite in WAL mode: pickerd's next read sees each committed batch).
//
//   pickerd-demo-library DATA-DIR [--replace]
//
// Without --replace a store that already holds items is refused. It says how it goes on stdout, a
// line each, tab-separated (the last field is the rest of the line), for pickerd to read; its
// stderr is pickerd's, so a crash's words land in pickerd's log:
//
//   progress DONE TOTAL STAGE           as each stage of items is written ("suggestions" last)
//   seeded ITEMS SUGGESTIONS MEDIA      when all of it is written (exit status 0)
//   failed CODE MESSAGE                 a store failure: StoreError's code and message (exit status 1)

import Foundation
import PickerdDemoLibrary
import PickerdStore

/// Writes one line to stdout at once (stdout is a pipe: buffered, pickerd would read progress late).
func say(_ fields: String...) {
    FileHandle.standardOutput.write(Data((fields.joined(separator: "\t") + "\n").utf8))
}

var arguments = Array(CommandLine.arguments.dropFirst())
let replace = arguments.contains("--replace")
arguments.removeAll { $0 == "--replace" }
guard arguments.count == 1, !arguments[0].hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: pickerd-demo-library DATA-DIR [--replace]\n".utf8))
    exit(2)
}

do throws(StoreError) {
    // pickerd checked the whole file when it opened it: no second quick_check of the same store.
    let store = try Store(dataDirectory: arguments[0], integrityCheck: .inBackground)
    let summary = try DemoLibrary.seed(into: store, replace: replace) { progress in
        // The stage's name ("day 3 of 16") is the rest of the line: it holds no tab or newline.
        say("progress", String(progress.done), String(progress.total), progress.stage)
    }
    say("seeded", String(summary.items), String(summary.suggestions), String(summary.mediaFiles))
} catch {
    say("failed", "\(error.code)", error.message.replacingOccurrences(of: "\n", with: " "))
    exit(1)
}
