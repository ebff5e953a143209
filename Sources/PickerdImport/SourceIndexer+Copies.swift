import Foundation
import PickerdMoments
import PickerdStore

/// What a batch's copies come to (``SourceIndexer/copies(in:candidates:known:)``).
struct CopyPlan {
    /// Files that are further files of an item, by their index in the batch: the item and the role.
    var attach: [Int: (item: UUID, role: String)] = [:]
    /// Files whose item gets another id than their own: an edited version shows its original's item;
    /// a former copy whose item is shown by another file again gets an item of its own.
    var ids: [Int: UUID] = [:]
    /// An edited version's original, as read: its date and place where the edit lost them.
    var originalMedia: [Int: ProbedMedia] = [:]
    /// Originals indexed before, now further files of their edited version's item.
    var originals: [SourceFile] = []
}

/// The fingerprints (``PhotoCopies/fingerprint(_:size:)``) a scan has taken, by path: a file indexed
/// before is fingerprinted once a scan however many batches meet its size.
final class Fingerprints {
    private var keys: [String: Int?] = [:]

    func key(_ path: String, size: Int64) -> Int? {
        if let known = keys[path] { return known }
        let key = PhotoCopies.fingerprint(path, size: size)
        keys[path] = key
        return key
    }
}

extension SourceIndexer {
    /// Finds which of a batch's photos and videos are further files of one item (``PhotoCopies``):
    /// edited versions and their originals (in the batch or indexed before), then byte-identical
    /// copies of a file in the batch (an earlier one in path order) or of one indexed before.
    /// - Parameters:
    ///   - probed: the batch, read.
    ///   - candidates: the indices that would be items of their own (not a Live Photo's half).
    ///   - known: the source's files as recorded before this scan.
    ///   - fingerprints: the scan's fingerprints of files read so far (each file is read once a scan).
    func copies(in probed: [Probed], candidates: [Int], known: [String: SourceFile],
                fingerprints: Fingerprints) throws(StoreError) -> CopyPlan {
        var plan = CopyPlan()
        let byPath = Dictionary(candidates.map { (probed[$0].file.path, $0) }, uniquingKeysWith: { first, _ in first })

        // A file that was a further file of an item and is read again (it changed, or its item's
        // file went): it shows that item again only when no other file does.
        for index in candidates {
            guard let previous = known[probed[index].file.path], PhotoCopies.isFurtherFile(previous.role),
                  let item = previous.itemID else { continue }
            let shown = try store.sourceFiles(ofItem: item).contains { !PhotoCopies.isFurtherFile($0.role) && $0.path != previous.path }
            if shown { plan.ids[index] = SuggestionBuilder.stableID("file|" + previous.path) }
        }
        func id(_ index: Int) -> UUID { plan.ids[index] ?? probed[index].itemID }

        // Edited versions and their originals.
        let wanted = candidates.flatMap { index in
            (PhotoCopies.originals(ofEdited: probed[index].file.path) ?? PhotoCopies.editedVersions(of: probed[index].file.path))
                .filter { byPath[$0] == nil }
        }
        let stored = Dictionary(try store.sourceFiles(paths: wanted).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for index in candidates where probed[index].media.kind == .photo {
            let path = probed[index].file.path
            if let originals = PhotoCopies.originals(ofEdited: path) {
                if let original = originals.compactMap({ byPath[$0] }).first(where: { plan.attach[$0] == nil && $0 != index }) {
                    // Both in this batch: the pair takes the original's id (known before the edit).
                    let pair = known[probed[original].file.path]?.itemID ?? SuggestionBuilder.stableID("file|" + probed[original].file.path)
                    plan.ids[index] = pair
                    plan.attach[original] = (pair, PhotoCopies.originalRole)
                    plan.originalMedia[index] = probed[original].media
                } else if let original = originals.compactMap({ stored[$0] }).first(where: { $0.role == "photo" || $0.role == PhotoCopies.originalRole }),
                          let item = original.itemID {
                    plan.ids[index] = item
                    if let media = try? reading.probe(path: original.path, timeZone: timeZone, readPeople: false).0 {
                        plan.originalMedia[index] = media
                    }
                    var record = original
                    record.role = PhotoCopies.originalRole
                    plan.originals.append(record)
                }
            } else if plan.attach[index] == nil,
                      let edited = PhotoCopies.editedVersions(of: path).compactMap({ stored[$0] }).first(where: { $0.role == "photo" }),
                      let item = edited.itemID {
                // An original read after its edit: a further file of the edit's item.
                plan.attach[index] = (item, PhotoCopies.originalRole)
            }
        }

        // Byte-identical copies: only files of the same size and fingerprint are compared in full,
        // in path order. A copy of an edit's original belongs to the edit's item too, whichever of
        // the two comes first.
        let sizes = Array(Set(candidates.map { probed[$0].file.size }))
        var byKey: [Int: [(path: String, item: UUID, index: Int?)]] = [:]
        for file in try store.itemFiles(sizes: sizes) where byPath[file.path] == nil {
            if let item = file.itemID, let key = fingerprints.key(file.path, size: file.size) {
                byKey[key, default: []].append((file.path, item, nil))
            }
        }
        for index in candidates.sorted(by: { probed[$0].file.path < probed[$1].file.path }) {
            let file = probed[index].file
            guard let key = fingerprints.key(file.path, size: file.size) else { continue }
            let item = plan.attach[index]?.item ?? id(index)
            guard let same = byKey[key, default: []].indices.first(where: { PhotoCopies.sameBytes(byKey[key]![$0].path, file.path, size: file.size) })
            else {
                byKey[key, default: []].append((file.path, item, index))
                continue
            }
            let match = byKey[key]![same]
            if plan.attach[index] == nil {
                if match.item != item { plan.attach[index] = (match.item, PhotoCopies.copyRole) }
            } else if let earlier = match.index, plan.attach[earlier] == nil, match.item != item {
                plan.attach[earlier] = (item, PhotoCopies.copyRole)
                byKey[key]![same].item = item
            }
        }
        return plan
    }
}
