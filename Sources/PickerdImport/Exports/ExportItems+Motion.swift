import PickerdMoments
import PickerdStore
import PickerdWire

extension ExportItems {
    /// Adds a MotionActivity item for each walk or run found in step counts to `changes`. Its id
    /// comes from its start minute, so importing the same export again replaces it; one already in
    /// the library counts as a duplicate.
    /// - Throws: ``StoreError`` reading what is already there.
    func addMotion(_ data: ImportedData, to changes: inout SourceChanges, written: inout Written) throws(StoreError) {
        guard !data.motion.isEmpty else { return }
        let items = data.motion.map(Self.item(for:))
        let existing = Set(try store.items(items.map(\.id)).map(\.id))
        written.duplicates += items.count { existing.contains($0.id) }
        changes.items += items
    }

    /// The MotionActivity item a walk or run becomes.
    static func item(for motion: ImportedMotion) -> LibraryItem {
        let activity = MotionActivity(steps: Int64(motion.steps),
                                      date: PickerdWire.DateInterval(startUnixMs: motion.startMs, endUnixMs: motion.endMs),
                                      movementType: motion.running ? .running : .walking)
        return LibraryItem(id: SuggestionBuilder.stableID("import|motion|bout|\(motion.startMs / 60_000)"), asset: .motionActivity(activity),
                           startMs: motion.startMs, endMs: motion.endMs, source: "import", externalID: motion.format)
    }
}
