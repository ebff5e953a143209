import Foundation
import PickerdStore
import PickerdWire

/// The pipeline's first stage: a window's items as one timeline, in time order (ties by id), without
/// what is no moment's (items the person excluded from suggestions, and what is not a memory:
/// screenshots, scans, a burst's extra frames), and found by time in a binary search.
struct Timeline {
    /// The items, in time order.
    let items: [LibraryItem]
    /// The stays: Location items, without those an import adds for where a workout went. Found once
    /// for the stages that walk them (outings, time at home).
    let stays: [LibraryItem]
    /// Their starts, for the search.
    private let starts: [Int64]

    /// The timeline of a window's items, any order.
    init(_ library: [LibraryItem]) {
        items = library.filter { !$0.excludedFromSuggestions && $0.notAMemory == nil }
            .sorted { ($0.startMs, $0.id.orderKey) < ($1.startMs, $1.id.orderKey) }
        starts = items.map(\.startMs)
        stays = items.filter { $0.kind == .location && $0.externalID != SuggestionBuilder.workoutPlaceTag }
    }

    /// Items of `kinds` starting in [start, end], in time order.
    func within(_ start: Int64, _ end: Int64, kinds: Set<AssetKind>) -> [LibraryItem] {
        var found: [LibraryItem] = []
        for index in indices(startingIn: start, end) where kinds.contains(items[index].kind) { found.append(items[index]) }
        return found
    }

    /// The positions in ``items`` of those starting in [start, end].
    func indices(startingIn start: Int64, _ end: Int64) -> Range<Int> {
        // The first position whose start is `past` (the starts are in order).
        func first(_ past: (Int64) -> Bool) -> Int {
            var low = 0, high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if past(starts[mid]) { high = mid } else { low = mid + 1 }
            }
            return low
        }
        let low = first { $0 >= start }
        return low..<max(low, first { $0 > end })
    }
}
