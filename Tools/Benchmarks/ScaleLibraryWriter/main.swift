// pickerd-scale-library: writes a scale library (PickerdScaleLibrary: a made-up life of N photos and
// videos over one to ten years) into a pickerd data directory, then builds its moments, for the
// benchmarks and tests that need a large library. Run it while no pickerd uses that directory, then
// start pickerd on it (--data-dir). pickerd itself no longer makes scale libraries: they are bench
// support, not part of the product.
//
//   pickerd-scale-library DATA-DIR PHOTOS [--replace]
//
// The same PHOTOS gives the same library (ids, items, file bytes). Without --replace a directory
// whose store already holds items is refused. Progress (a line per month) goes to stderr; the last
// line on stdout says what was written: "N items, M suggestions, K media files".

import Foundation
import PickerdDemoLibrary
import PickerdScaleLibrary
import PickerdStore

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: pickerd-scale-library DATA-DIR PHOTOS [--replace]\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let replace = arguments.contains("--replace")
arguments.removeAll { $0 == "--replace" }
guard arguments.count == 2, let photos = Int(arguments[1]), photos >= 0 else { usage() }

do {
    let store = try Store(dataDirectory: arguments[0])
    let summary = try ScaleLibrary(photos: photos).seed(into: store, replace: replace) { progress in
        FileHandle.standardError.write(Data("seeding: \(progress.stage) (\(progress.done) items)\n".utf8))
    }
    print("\(summary.items) items, \(summary.suggestions) suggestions, \(summary.mediaFiles) media files")
} catch {
    FileHandle.standardError.write(Data("pickerd-scale-library: \(error)\n".utf8))
    exit(1)
}
