/// A person's own file that cannot be released or previewed: it changed or went since pickerd
/// indexed it. The item is left out of a release, and the picker is told why.
struct MediaUnavailable: Error, CustomStringConvertible {
    /// A sentence for the person ("IMG_1234.HEIC changed since pickerd indexed it").
    var reason: String
    var description: String { reason }
}

/// Every item the person kept had files that changed or went: nothing is released. The app is told
/// that much and no more (the files' names are the person's: they stay in pickerd's log).
struct NothingReleasable: Error, CustomStringConvertible {
    var description: String { "none of the kept items can be released now: their files changed or went since pickerd indexed them" }
}
