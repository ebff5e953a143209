public import Foundation
public import PickerdStore
import PickerdMoments
import PickerdWire
import Synchronization

/// How far a scan has come, for `pickerctl sources rescan` and `pickerctl status`.
public struct IndexingProgress: Sendable, Hashable {
    /// What the scan is doing.
    public enum Stage: String, Sendable, Hashable {
        /// Listing the folders.
        case walking
        /// Reading new and changed files.
        case reading
        /// Building the moments of the days the scan touched.
        case moments
        /// Finished.
        case done
    }

    /// The source's path.
    public var source: String
    /// The stage.
    public var stage: Stage
    /// Files found so far.
    public var seen: Int
    /// New or changed files to read (known once the walk is over).
    public var toRead: Int
    /// Of those, read so far.
    public var read: Int
    /// When the scan began, ms since 1970.
    public var startedMs: Int64
    /// Files read per second since reading began.
    public var filesPerSecond: Double
    /// Seconds until the reading is done, at that rate (`nil` until known).
    public var etaSeconds: Double?

    /// Creates a progress record.
    public init(source: String, stage: Stage, seen: Int = 0, toRead: Int = 0, read: Int = 0, startedMs: Int64,
                filesPerSecond: Double = 0, etaSeconds: Double? = nil) {
        self.source = source
        self.stage = stage
        self.seen = seen
        self.toRead = toRead
        self.read = read
        self.startedMs = startedMs
        self.filesPerSecond = filesPerSecond
        self.etaSeconds = etaSeconds
    }
}

/// What one scan did.
public struct ScanReport: Sendable, Hashable {
    /// A file left out, with why.
    public struct Skipped: Sendable, Hashable {
        /// Its path.
        public var path: String
        /// Why.
        public var reason: String
    }

    /// The source's path.
    public var source: String
    /// Regular files found.
    public var seen = 0
    /// Files indexed for the first time.
    public var added = 0
    /// Files whose size or mtime changed, read again.
    public var changed = 0
    /// Files as they were, read again because an older pickerd's readers read them
    /// (``SourceFile/readBy``): after an upgrade, once.
    public var readAgain = 0
    /// Files as they were.
    public var unchanged = 0
    /// Files moved within the source (their items kept).
    public var moved = 0
    /// Files gone (their items removed).
    public var removed = 0
    /// Files this scan left out (not photos or videos, corrupt, unreadable, links), with why.
    public var skipped: [Skipped] = []
    /// Live Photos paired this scan.
    public var livePhotos = 0
    /// Of the files this scan read, how many were indexed but kept out of suggestions, by reason
    /// (``NotAMemoryRules/describe(_:)`` words them); a Live Photo counts once.
    public var notMemories: [NotAMemory: Int] = [:]
    /// When the items this scan wrote or removed happen: the days the engine builds again.
    public var touched: [ClosedRange<Int64>] = []
    /// How long it took, in seconds.
    public var seconds: Double = 0
    /// The folders it listed (for the watcher).
    public var folders: [String] = []

    /// Creates an empty report.
    public init(source: String) { self.source = source }
}

/// Indexes a source's folders in place: finds new, changed, moved and vanished files by path, size,
/// mtime, device and inode; has only new and changed files read (through ``FileReading``); pairs
/// Live Photos; marks what is not a memory; writes a batch at a time, each in one transaction. The
/// media stay where they are: an item's media row names the file.
///
/// Not thread-safe by itself: pickerd runs one scan at a time on its import thread.
public struct SourceIndexer: Sendable {
    /// The store.
    public let store: Store
    /// The person's time zone, for files that do not state their offset.
    public let timeZone: TimeZone
    /// How files are read: pickerd's confined readers, or in this process (tests, benchmarks).
    public let reading: any FileReading
    /// Files read and written per transaction.
    static let batchSize = 500
    /// Whether `file` is the one `record` describes, unchanged: same inode (a file swapped in under
    /// the same name, even with the same size and mtime, is read again) and no change to it at all
    /// (ctime).
    static func unchanged(_ record: SourceFile, _ file: WalkedFile) -> Bool {
        record.size == file.size && record.mtimeNs == file.mtimeNs && record.device == file.device && record.inode == file.inode
            && record.ctimeNs == file.ctimeNs
    }

    /// The role of a Google Photos Takeout sidecar's record: a file with no item, whose photos are
    /// read again when it changes.
    static let sidecarRole = "sidecar"

    /// Longest clip paired with a still of the same name when no content identifier says so.
    static let livePhotoClipMaxMs: Int64 = 6_000

    /// Creates an indexer.
    /// - Parameters:
    ///   - store: the store.
    ///   - timeZone: the person's time zone.
    ///   - reading: how files are read: pickerd passes its confined readers; tests and tools may
    ///     pass PickerdReaders' `InProcessReading`.
    public init(store: Store, timeZone: TimeZone = .current, reading: any FileReading) {
        self.store = store
        self.timeZone = timeZone
        self.reading = reading
    }

    /// Scans a source, or some of its folders.
    /// - Parameters:
    ///   - source: the source.
    ///   - folders: `nil` for the whole source; else the folders the watcher saw change.
    ///   - progress: called as the scan goes (from the calling thread).
    /// - Returns: what changed.
    /// - Throws: ``StoreError`` when the store cannot be written; batches written before stay.
    public func scan(_ source: Source, folders: [ScanFolder]? = nil,
                     progress: (IndexingProgress) -> Void = { _ in }) throws(StoreError) -> ScanReport {
        let started = Date()
        let startedMs = started.unixMs
        var report = ScanReport(source: source.path)
        let scope = folders ?? [ScanFolder(path: source.path, recursive: true)]
        progress(IndexingProgress(source: source.path, stage: .walking, startedMs: startedMs))
        let walk = FolderWalk(scope) { seen in progress(IndexingProgress(source: source.path, stage: .walking, seen: seen, startedMs: startedMs)) }
        report.seen = walk.files.count
        report.folders = walk.folders
        var known = try store.sourceFiles(of: source.id, in: folders.map { $0.map { ($0.path, $0.recursive) } })

        // A folder that could not be listed (gone, or unreadable) is not evidence its files are gone,
        // unless it is gone: a vanished folder's files leave.
        for (folder, reason) in walk.unreadableFolders where FileManager.default.fileExists(atPath: folder) {
            known = known.filter { !($0.value.directory == folder || $0.value.directory.hasPrefix(folder + "/")) }
            report.skipped.append(.init(path: folder, reason: "a folder pickerd cannot read (\(reason)): what was indexed of it stays"))
        }

        var changes = SourceChanges()
        var toRead: [WalkedFile] = []
        var present = Set<String>()
        // Google Photos Takeout's sidecars are read with their photos, never as files of their own;
        // one that names no photo is named, each scan (it is no photo to remember as skipped).
        let takeout = TakeoutSidecars(walk.files.map(\.path))
        for (path, reason) in takeout.unmatched.sorted(by: { $0.key < $1.key }) { report.skipped.append(.init(path: path, reason: reason)) }
        // A sidecar in use has a record of its own (role `sidecar`, no item), so one added or
        // changed alone has its photos read again; one deleted, below.
        let sidecars = Set(takeout.sidecar.values)
        var sidecarsChanged = Set<String>()
        for file in walk.files {
            present.insert(file.path)
            if sidecars.contains(file.path) {
                if let record = known[file.path], record.role == Self.sidecarRole, Self.unchanged(record, file) { continue }
                sidecarsChanged.insert(file.path)
                changes.files.append(SourceFile(path: file.path, sourceID: source.id, size: file.size, mtimeNs: file.mtimeNs,
                                                device: file.device, inode: file.inode, role: Self.sidecarRole, ctimeNs: file.ctimeNs))
                continue
            }
            if takeout.notMedia.contains(file.path) {
                // An album's metadata, or a sidecar no photo uses now: no file to remember.
                if known[file.path] != nil { changes.removedFiles.append(file.path) }
                continue
            }
            if let record = known[file.path], Self.unchanged(record, file), record.itemID != nil || !record.problem.isEmpty,
               record.readBy >= SourceFile.readers {
                report.unchanged += 1
                continue
            }
            toRead.append(file)
        }
        // Photos whose sidecar came, changed or went, themselves unchanged: read again with it (or
        // without it: what it alone said leaves).
        let goneSidecars = known.values.filter { $0.role == Self.sidecarRole && !present.contains($0.path) }.map(\.path)
        if !sidecarsChanged.isEmpty || !goneSidecars.isEmpty {
            let before = goneSidecars.isEmpty ? takeout : TakeoutSidecars(walk.files.map(\.path) + goneSidecars)
            let reading = Set(toRead.map(\.path))
            let gone = Set(goneSidecars)
            let photos = Set(takeout.sidecar.filter { sidecarsChanged.contains($0.value) }.keys)
                .union(before.sidecar.filter { gone.contains($0.value) }.keys)
            toRead += walk.files.filter { photos.contains($0.path) && !reading.contains($0.path) && known[$0.path] != nil }
        }
        // Gone: recorded here, not found. A new file with a gone file's device, inode, size and mtime
        // is that file, moved: its record and media follow it and its item stays.
        var gone: [[Int64]: SourceFile] = [:]
        for (path, record) in known where !present.contains(path) {
            gone[[Int64(bitPattern: record.device), Int64(bitPattern: record.inode), record.size, record.mtimeNs]] = record
        }
        toRead = toRead.filter { file in
            guard known[file.path] == nil,
                  let record = gone.removeValue(forKey: [Int64(bitPattern: file.device), Int64(bitPattern: file.inode), file.size, file.mtimeNs])
            else { return true }
            changes.moves.append((from: record.path, to: file.path, ctimeNs: file.ctimeNs))
            report.moved += 1
            return false
        }
        var orphans = Set<UUID>()
        for record in gone.values {
            changes.removedFiles.append(record.path)
            // A copy or an edit's original gone: its item stays, shown by the file that holds it.
            if let id = record.itemID, !PhotoCopies.isFurtherFile(record.role) { changes.removedItems.append(id); orphans.insert(id) }
            if record.role != Self.sidecarRole { report.removed += 1 }
        }
        // A Live Photo whose still or clip went: the file that stays is read again on its own.
        if !orphans.isEmpty {
            let removed = Set(changes.removedFiles)
            for id in orphans {
                for partner in try store.sourceFiles(ofItem: id) where !removed.contains(partner.path) {
                    if let file = walk.files.first(where: { $0.path == partner.path }), !toRead.contains(file) { toRead.append(file) }
                }
            }
        }
        for (path, reason) in walk.skipped { report.skipped.append(.init(path: path, reason: reason)) }
        try store.replaceSkippedFolders(of: source.id, under: scope.filter(\.recursive).map(\.path),
                                        with: walk.skipped.filter { walk.skippedFolders.contains($0.key) })
        let cleared = try store.apply(changes)
        report.touched += cleared
        // People: the Contact items photos give, made again where photos changed (only when the
        // person has contacts to match).
        let linking = try store.contactCount() > 0
        if linking { report.touched += try PeopleLinks(store: store).relink(cleared).touched }

        // Read new and changed files, a batch at a time, in path order (a still and its clip are
        // neighbours: IMG_1234.HEIC, IMG_1234.MOV).
        toRead.sort { $0.path < $1.path }
        let readingStarted = Date()
        var read = 0
        let fingerprints = Fingerprints()
        for start in stride(from: 0, to: toRead.count, by: Self.batchSize) {
            let batch = Array(toRead[start..<min(start + Self.batchSize, toRead.count)])
            try index(batch, source: source, known: known, linking: linking, fingerprints: fingerprints, sidecars: takeout.sidecar,
                      report: &report)
            read += batch.count
            let elapsed = max(Date().timeIntervalSince(readingStarted), 0.001)
            let rate = Double(read) / elapsed
            progress(IndexingProgress(source: source.path, stage: .reading, seen: report.seen, toRead: toRead.count, read: read,
                                  startedMs: startedMs, filesPerSecond: rate, etaSeconds: Double(toRead.count - read) / max(rate, 0.001)))
        }
        report.seconds = Date().timeIntervalSince(started)
        if folders == nil { try store.recordScan(of: source.id, endedMs: Date().unixMs, seconds: report.seconds) }
        return report
    }

    /// One probed file.
    struct Probed {
        var file: WalkedFile
        var media: ProbedMedia
        var itemID: UUID
        /// Whom its XMP names (face regions, People tags).
        var people: [String] = []
    }

    private func index(_ batch: [WalkedFile], source: Source, known: [String: SourceFile], linking: Bool,
                       fingerprints: Fingerprints, sidecars: [String: String], report: inout ScanReport) throws(StoreError) {
        var changes = SourceChanges()
        var probed: [Probed] = []
        // The batch's files are read at once, as many at a time as there are readers (cores), each
        // photo with its Takeout sidecar, if it has one, in the same request (an edited version's
        // is its original's, read again: a few hundred bytes); what follows takes them in order.
        typealias Read = (media: ProbedMedia, people: [String], sidecarProblem: String?)
        let results = Mutex([Result<Read, ProbeError>?](repeating: nil, count: batch.count))
        DispatchQueue.concurrentPerform(iterations: batch.count) { index in
            let path = batch[index].path
            let result: Result<Read, ProbeError>
            if path.lowercased().hasSuffix(".json") {
                // A JSON file no Takeout sidecar name matches (an app's own): no photo, and not to be
                // named as a broken sidecar.
                result = .failure(ProbeError(.unsupported, "not a photo or video format pickerd reads"))
            } else if let sidecar = sidecars[path] {
                result = Result { () throws(ProbeError) in try reading.probe(path: path, sidecar: sidecar, timeZone: timeZone, readPeople: true) }
            } else {
                result = Result { () throws(ProbeError) in
                    let (media, people) = try reading.probe(path: path, timeZone: timeZone, readPeople: true)
                    return (media, people, nil)
                }
            }
            results.withLock { $0[index] = result }
        }
        let read = results.withLock { $0 }
        var sidecarsNamed = Set<String>()
        for (index, file) in batch.enumerated() {
            let previous = known[file.path]
            if let previous {
                // Unchanged, but read by older readers (``SourceFile/readBy``): read for what these take.
                // (One read again with its changed sidecar, or its Live Photo's partner gone, changed.)
                if Self.unchanged(previous, file) && previous.readBy < SourceFile.readers { report.readAgain += 1 } else { report.changed += 1 }
            } else {
                report.added += 1
            }
            do throws(ProbeError) {
                guard let result = read[index] else { throw ProbeError(.unreadable, "it was not read") }
                let (media, people, sidecarProblem) = try result.get()
                // A .json read as a sidecar that no photo's name matches is no photo.
                guard media.kind != .sidecar else { throw ProbeError(.unsupported, "not a photo or video format pickerd reads") }
                // A broken sidecar is named once; the photo is indexed with what its own file says.
                if let problem = sidecarProblem, let sidecar = sidecars[file.path], sidecarsNamed.insert(sidecar).inserted {
                    report.skipped.append(.init(path: sidecar, reason: problem))
                }
                // A changed file keeps its item's id (a reminder's link, what was released of it).
                let id = previous?.itemID ?? SuggestionBuilder.stableID("file|" + file.path)
                probed.append(Probed(file: file, media: media, itemID: id, people: people))
            } catch {
                if let id = previous?.itemID { changes.removedItems.append(id) }
                // A workout file in a watched folder (a watch's sync folder of FIT files, GPX from an
                // app) is indexed too: one Workout item per file, following the file as a photo does.
                var error = error
                let workout = error.kind == .unsupported ? workout(in: file) : .success(nil)
                if case .failure(let broke) = workout { error = broke }
                if case .success(let item?) = workout {
                    if let previous = previous?.itemID, previous != item.id { changes.removedItems.append(previous) }
                    changes.removedItems.removeAll { $0 == item.id }
                    changes.items.append(item)
                    changes.files.append(SourceFile(path: file.path, sourceID: source.id, size: file.size, mtimeNs: file.mtimeNs,
                                                    device: file.device, inode: file.inode, itemID: item.id, role: "workout", ctimeNs: file.ctimeNs))
                    continue
                }
                // A photo format pickerd knows but does not read is named as what it is (a WebP image…).
                let reason = error.kind != .unsupported ? error.message
                    : error.message.contains("does not read yet") ? error.message : "not a photo, video or workout file pickerd reads"
                report.skipped.append(.init(path: file.path, reason: reason))
                changes.files.append(SourceFile(path: file.path, sourceID: source.id, size: file.size, mtimeNs: file.mtimeNs,
                                                device: file.device, inode: file.inode, problem: reason, ctimeNs: file.ctimeNs))
            }
        }

        // Live Photos: a still and a clip with the same content identifier, or in the same folder
        // with the same name and a short clip. Partners may have been indexed before.
        var pairs: [(still: Int, clip: Int)] = []
        var paired = Set<Int>()
        var byKey: [String: Int] = [:]
        for (index, p) in probed.enumerated() {
            guard let key = p.media.contentIdentifier else { continue }
            if let other = byKey[key], probed[other].media.kind != p.media.kind {
                pairs.append(p.media.kind == .photo ? (index, other) : (other, index))
                paired.formUnion([index, other])
            } else {
                byKey[key] = index
            }
        }
        // By name, only when they agree (``agree(still:clip:)``): each clip with the still of its
        // name nearest in time, a clip and a still once each.
        var byStem: [String: [Int]] = [:]
        for (index, p) in probed.enumerated() where !paired.contains(index) && p.media.contentIdentifier == nil {
            byStem[Self.stem(p.file.path), default: []].append(index)
        }
        for group in byStem.values where group.count > 1 {
            for clip in group where probed[clip].media.kind == .video && (probed[clip].media.durationMs ?? 0) <= Self.livePhotoClipMaxMs {
                let stills = group.filter {
                    probed[$0].media.kind == .photo && !paired.contains($0)
                        && Self.agree(still: (probed[$0].media, probed[$0].file), clip: (probed[clip].media, probed[clip].file))
                }
                guard let still = stills.min(by: { abs(date(probed[$0]) - date(probed[clip])) < abs(date(probed[$1]) - date(probed[clip])) }) else { continue }
                pairs.append((still, clip))
                paired.formUnion([still, clip])
            }
        }
        // A partner indexed earlier: the pair becomes one item (the still's), the clip's own item
        // goes. Looked up for the whole batch at once.
        func stemCandidates(_ p: Probed) -> [String] {
            let stem = Self.stem(p.file.path)
            let extensions = p.media.kind == .photo ? ["mov", "MOV", "mp4", "MP4"] : ["heic", "HEIC", "jpg", "JPG", "jpeg", "JPEG"]
            return extensions.map { stem + "." + $0 }
        }
        let unpaired = probed.indices.filter { !paired.contains($0) }
        let earlier = try store.sourceFiles(paths: unpaired.filter { probed[$0].media.contentIdentifier == nil }.flatMap { stemCandidates(probed[$0]) },
                                            contentIdentifiers: unpaired.compactMap { probed[$0].media.contentIdentifier })
        let earlierByPath = Dictionary(earlier.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let earlierByKey = Dictionary(grouping: earlier.filter { $0.contentIdentifier != nil }, by: { $0.contentIdentifier ?? "" })
        var partners: [Int: SourceFile] = [:]
        var claimed = Set<String>()
        for index in unpaired {
            let p = probed[index]
            let candidates = p.media.contentIdentifier.map { earlierByKey[$0] ?? [] } ?? stemCandidates(p).compactMap { earlierByPath[$0] }
            // A partner on its own, or already this file's (its pair, written again); never another
            // pair's half: a clip pairs once.
            let alone = p.media.kind == .photo ? "video" : "photo"
            let half = p.media.kind == .photo ? "livePhotoVideo" : "livePhotoImage"
            if let partner = candidates.first(where: {
                ($0.role == alone || ($0.role == half && $0.itemID == p.itemID)) && $0.path != p.file.path && $0.itemID != nil
                    && !claimed.contains($0.path)
            }) {
                partners[index] = partner
                claimed.insert(partner.path)
            }
        }

        // One photo however many files hold it: copies and originals of edits are further files of
        // an item, not items (and not a burst's frames).
        let plan = try copies(in: probed, candidates: unpaired.filter { partners[$0] == nil }, known: known, fingerprints: fingerprints)
        for (index, id) in plan.ids { probed[index].itemID = id }
        for (index, media) in plan.originalMedia {
            // An edit that lost the date or the place (a Takeout download, an app's export) has its
            // original's.
            if probed[index].media.takenAtMs == nil {
                probed[index].media.takenAtMs = media.takenAtMs
                probed[index].media.utcOffsetSeconds = media.utcOffsetSeconds
            }
            if probed[index].media.coordinate == nil { probed[index].media.coordinate = media.coordinate }
            if probed[index].media.placeName == nil {
                probed[index].media.placeName = media.placeName
                probed[index].media.placeCity = media.placeCity
            }
        }
        changes.files += plan.originals

        // What is not a memory.
        var notMemory: [Int: NotAMemory] = [:]
        for (index, p) in probed.enumerated() where plan.attach[index] == nil {
            if let kind = NotAMemoryRules.classify(p.media, path: p.file.path) { notMemory[index] = kind }
        }
        let stills = probed.indices.filter { probed[$0].media.kind == .photo && notMemory[$0] == nil && plan.attach[$0] == nil }
        hashNeighbours(of: stills, in: &probed)
        let shots = stills.map { index in
            let m = probed[index].media
            return NotAMemoryRules.Shot(takenAtMs: date(probed[index]), camera: [m.make, m.model].compactMap { $0 }.joined(separator: " "),
                                        folder: SourceFile.directory(of: probed[index].file.path), burst: m.burstIdentifier,
                                        pictureHash: m.pictureHash, pixels: Int64(m.pixelWidth) * Int64(m.pixelHeight),
                                        bytes: probed[index].file.size)
        }
        for position in NotAMemoryRules.bursts(shots) { notMemory[stills[position]] = .burst }

        // Items.
        func record(_ p: Probed, role: String, item: UUID) -> SourceFile {
            SourceFile(path: p.file.path, sourceID: source.id, size: p.file.size, mtimeNs: p.file.mtimeNs, device: p.file.device,
                       inode: p.file.inode, itemID: item, role: role, contentIdentifier: p.media.contentIdentifier, ctimeNs: p.file.ctimeNs)
        }
        var people: [UUID: [String]] = [:]
        for (still, clip) in pairs {
            let id = probed[still].itemID
            people[id] = probed[still].people + probed[clip].people
            if probed[clip].itemID != id { changes.removedItems.append(probed[clip].itemID) }
            changes.items.append(livePhoto(still: (probed[still].file, probed[still].media), clip: (probed[clip].file, probed[clip].media),
                                           id: id, notAMemory: notMemory[still]))
            changes.files += [record(probed[still], role: "livePhotoImage", item: id), record(probed[clip], role: "livePhotoVideo", item: id)]
            report.livePhotos += 1
        }
        for (index, p) in probed.enumerated() where !paired.contains(index) {
            if let (item, role) = plan.attach[index] {
                // Its own item from before (it was read alone), unless it was already a further file.
                if let previous = known[p.file.path], let own = previous.itemID, own != item, !PhotoCopies.isFurtherFile(previous.role) {
                    changes.removedItems.append(own)
                }
                changes.files.append(record(p, role: role, item: item))
                continue
            }
            if let previous = known[p.file.path], let own = previous.itemID, own != p.itemID, !PhotoCopies.isFurtherFile(previous.role) {
                // An edit now showing its original's item: the item it had alone goes.
                changes.removedItems.append(own)
            }
            if let partner = partners[index], let partnerItem = partner.itemID,
               let partnerFile = FileManager.default.fileExists(atPath: partner.path) ? partner : nil,
               let partnerProbe = try? reading.probe(path: partnerFile.path, timeZone: timeZone, readPeople: true),
               case let other = WalkedFile(path: partnerFile.path, size: partnerFile.size, mtimeNs: partnerFile.mtimeNs,
                                           device: partnerFile.device, inode: partnerFile.inode, ctimeNs: partnerFile.ctimeNs ?? 0),
               p.media.kind == .photo ? Self.agree(still: (p.media, p.file), clip: (partnerProbe.0, other))
                   : Self.agree(still: (partnerProbe.0, other), clip: (p.media, p.file)) {
                let (partnerMedia, partnerPeople) = partnerProbe
                let stillIsNew = p.media.kind == .photo
                let id = stillIsNew ? p.itemID : partnerItem
                people[id] = p.people + partnerPeople
                if !stillIsNew, p.itemID != id { changes.removedItems.append(p.itemID) }
                if stillIsNew, partnerItem != id { changes.removedItems.append(partnerItem) }
                let stillPair = stillIsNew ? (p.file, p.media) : (other, partnerMedia)
                let clipPair = stillIsNew ? (other, partnerMedia) : (p.file, p.media)
                changes.items.append(livePhoto(still: stillPair, clip: clipPair, id: id,
                                               notAMemory: stillIsNew ? notMemory[index] : NotAMemoryRules.classify(partnerMedia, path: other.path)))
                let otherRecord = SourceFile(path: other.path, sourceID: partnerFile.sourceID, size: other.size, mtimeNs: other.mtimeNs,
                                             device: other.device, inode: other.inode, itemID: id,
                                             role: stillIsNew ? "livePhotoVideo" : "livePhotoImage", contentIdentifier: partnerMedia.contentIdentifier,
                                             ctimeNs: partnerFile.ctimeNs)
                changes.files += [record(p, role: stillIsNew ? "livePhotoImage" : "livePhotoVideo", item: id), otherRecord]
                report.livePhotos += 1
                continue
            }
            changes.items.append(single(p, notAMemory: notMemory[index]))
            people[p.itemID] = p.people
            changes.files.append(record(p, role: p.media.kind == .photo ? "photo" : "video", item: p.itemID))
        }
        for item in changes.items { if let reason = item.notAMemory { report.notMemories[reason, default: 0] += 1 } }
        // An id both removed and written (a changed file that stays) is written, not removed.
        let written = Set(changes.items.map(\.id))
        changes.removedItems.removeAll { written.contains($0) }
        let touched = try store.apply(changes)
        report.touched += touched
        // Whom the photos name (an item written again starts with no names), then the Contact items
        // they give.
        try store.setPeople(people.filter { !$0.value.isEmpty })
        if linking { report.touched += try PeopleLinks(store: store).relink(touched).touched }
    }

    /// The workout a GPX, TCX or FIT file (or a gzip of one) in a source holds, as a library item:
    /// the first, when a file holds several (a watch writes one per file).
    private func workout(in file: WalkedFile) -> Result<LibraryItem?, ProbeError> {
        guard file.size <= ExportImporter.maximumWholeFile else { return .success(nil) }
        return Result { () throws(ProbeError) in try reading.workout(path: file.path, size: Int(file.size)) }
            .map { $0.flatMap { ExportItems.items(for: $0).first } }
    }

    /// When a file happened: its taking date, else its digitizing date, else its mtime.
    /// Hashes the whole picture of each still the probe left unhashed (a large picture with no
    /// thumbnail: a Takeout download, an editor's export) that was taken at most
    /// ``NotAMemoryRules/nearDuplicateGapMs`` from another still: only there can a near-duplicate
    /// be, and only there is a decode of a hundred milliseconds or more worth it. One that does not
    /// decode stays unhashed. Read side by side, as the probes are.
    private func hashNeighbours(of stills: [Int], in probed: inout [Probed]) {
        let ordered = stills.sorted { (date(probed[$0]), $0) < (date(probed[$1]), $1) }
        var wanted: [Int] = []
        for (position, index) in ordered.enumerated() where probed[index].media.pictureHash == nil && !probed[index].media.imageDataEndsEarly {
            let at = date(probed[index])
            let before = position > 0 ? at - date(probed[ordered[position - 1]]) : .max
            let after = position + 1 < ordered.count ? date(probed[ordered[position + 1]]) - at : .max
            if min(before, after) <= NotAMemoryRules.nearDuplicateGapMs { wanted.append(index) }
        }
        guard !wanted.isEmpty else { return }
        let files = wanted.map { (probed[$0].file.path, probed[$0].media.contentType) }
        let hashes = Mutex([UInt64?](repeating: nil, count: wanted.count))
        DispatchQueue.concurrentPerform(iterations: wanted.count) { position in
            let hash = try? reading.pictureHash(path: files[position].0, contentType: files[position].1)
            hashes.withLock { $0[position] = hash }
        }
        for (position, hash) in hashes.withLock({ $0 }).enumerated() { probed[wanted[position]].media.pictureHash = hash }
    }

    private func date(_ p: Probed) -> Int64 { Self.date(p.media, p.file) }

    /// How far apart a Live Photo's still and clip may be dated (the clip runs around the still).
    static let livePhotoAgreementMs: Int64 = 5_000

    /// Whether a still and a clip are one Live Photo: the same content identifier when both have
    /// one (Apple's, in the HEIC's MakerNote and the MOV's metadata), else capture dates within
    /// ``livePhotoAgreementMs`` (the name alone is not enough: IMG_1234 comes round again on the
    /// next phone, and a clip from 2020 is not the motion of a still from 2015).
    static func agree(still: (media: ProbedMedia, file: WalkedFile), clip: (media: ProbedMedia, file: WalkedFile)) -> Bool {
        if let a = still.media.contentIdentifier, let b = clip.media.contentIdentifier { return a == b }
        return abs(date(still.media, still.file) - date(clip.media, clip.file)) <= livePhotoAgreementMs
    }

    private static func date(_ media: ProbedMedia, _ file: WalkedFile) -> Int64 {
        media.takenAtMs ?? media.digitizedAtMs ?? file.mtimeNs / 1_000_000
    }

    private static func stem(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path }
        return String(path[..<dot])
    }

    private func stored(_ file: WalkedFile, _ media: ProbedMedia) -> StoredMedia {
        StoredMedia(relativePath: file.path, contentType: media.contentType, filename: (file.path as NSString).lastPathComponent,
                    byteCount: UInt64(max(0, file.size)), pixelWidth: media.pixelWidth, pixelHeight: media.pixelHeight,
                    modifiedNs: file.mtimeNs)
    }

    private func single(_ p: Probed, notAMemory: NotAMemory?) -> LibraryItem {
        let when = date(p)
        let asset: Item.Asset = p.media.kind == .photo
            ? .photo(Photo(photo: stored(p.file, p.media).media(slot: 0), date: Timestamp(unixMs: when)))
            : .video(Video(url: stored(p.file, p.media).media(slot: 0), date: Timestamp(unixMs: when)))
        return LibraryItem(id: p.itemID, asset: asset, media: [stored(p.file, p.media)], startMs: when,
                           endMs: when + (p.media.kind == .video ? max(0, p.media.durationMs ?? 0) : 0), source: "file",
                           utcOffsetSeconds: p.media.utcOffsetSeconds, coordinate: p.media.coordinate, notAMemory: notAMemory,
                           filePlaceName: p.media.placeName, filePlaceCity: p.media.placeCity)
    }

    private func livePhoto(still: (WalkedFile, ProbedMedia), clip: (WalkedFile, ProbedMedia), id: UUID, notAMemory: NotAMemory?) -> LibraryItem {
        let when = Self.date(still.1, still.0)
        let asset = Item.Asset.livePhoto(LivePhoto(image: stored(still.0, still.1).media(slot: 0), video: stored(clip.0, clip.1).media(slot: 1),
                                                   date: Timestamp(unixMs: when)))
        return LibraryItem(id: id, asset: asset, media: [stored(still.0, still.1), stored(clip.0, clip.1)], startMs: when, source: "file",
                           utcOffsetSeconds: still.1.utcOffsetSeconds ?? clip.1.utcOffsetSeconds,
                           coordinate: still.1.coordinate ?? clip.1.coordinate, notAMemory: notAMemory,
                           filePlaceName: still.1.placeName ?? clip.1.placeName, filePlaceCity: still.1.placeName != nil ? still.1.placeCity : clip.1.placeCity)
    }
}
