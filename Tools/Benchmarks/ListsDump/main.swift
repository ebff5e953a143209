// pickerd-bench-lists: the picker's first page (Recommended whole, Recent's first page) of a pickerd
// store, as JSON, for Tools/bench-moments' scorer. pickerd must not be running.
//
//   pickerd-bench-lists DATA_DIR [--as-before-42]
//
// --as-before-42: Recommended chosen among every kind, as before issue 42 made it hold highlights
// only, so one store measures both. "now" is the store's newest moment (a life is scored as of its
// last day). Prints {"recommended": [ids], "recent": [ids], "recent_total": N}.
import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire

let arguments = Array(CommandLine.arguments.dropFirst())
guard let directory = arguments.first(where: { !$0.hasPrefix("--") }) else {
    FileHandle.standardError.write(Data("usage: pickerd-bench-lists DATA_DIR [--as-before-42]\n".utf8))
    exit(2)
}
do {
    let store = try Store(dataDirectory: directory)
    var tuning = MomentTuning.standard
    tuning.recommendHighlightsOnly = !arguments.contains("--as-before-42")
    let builder = SuggestionBuilder(tuning: tuning)
    let now = try store.newestSuggestionEnd() ?? 0
    let page = try builder.firstPage(from: store, enabled: Set(PickerdWire.Category.allKnown), now: now, pageSize: 50)
    let json: [String: Any] = ["recommended": page.recommended.map(\.suggestion.id.uuidString),
                               "recent": page.recent.map(\.suggestion.id.uuidString), "recent_total": page.recentTotal]
    FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("pickerd-bench-lists: \(error)\n".utf8))
    exit(1)
}
