/// A person's own file that cannot be released or previewed: it changed or went since pickerd
/// indexed it. The item is left out of a release, and the picker is told why.
struct MediaUnavailable: Error, CustomStringConvertible {
    /// A sentence for the person ("IMG_1234.HEIC changed since pickerd indexed it").
    var reason: String
    var description: String { reason }
}
