import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdWire
import Synchronization

/// Keeps the library in step with the person's folders: one thread scans (a source when added, every
/// source when pickerd starts and when asked, dirty folders when the watcher sees a change), then
/// folds the touched days into the moments. Presentations are served meanwhile: the store's readers
/// never wait for the scan's writes (WAL), and each batch is its own short transaction.
final class ImportService: Sendable {
    /// Someone waiting for a scan to end (`pickerctl sources rescan`): told its progress, then woken.
    final class Waiter: Sendable {
        let progress: @Sendable (IndexingProgress) -> Void
        private let finished = DispatchSemaphore(value: 0)
        private let results = Mutex<[ScanSummary]>([])

        init(progress: @escaping @Sendable (IndexingProgress) -> Void) { self.progress = progress }

        func add(_ summary: ScanSummary) { results.withLock { $0.append(summary) } }
        func finish() { finished.signal() }

        /// Waits until the scans asked for are over.
        /// - Returns: their summaries.
        func wait() -> [ScanSummary] {
            finished.wait()
            return results.withLock { $0 }
        }
    }

    private struct Job {
        /// A source's path; `nil`: every source.
        var source: String?
        var folders: [ScanFolder]?
        var waiter: Waiter?
    }

    private struct State {
        var queue: [Job] = []
        var dirty: [String: Bool] = [:]
        var overflow = false
        var current: IndexingProgress?
        var problems: [String: String] = [:]
        var stopping = false
    }

    private let store: Store
    /// How files are read (pickerd's confined readers).
    private let reading: any FileReading
    private let builder: SuggestionBuilder
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let watcherBox = Mutex<FolderWatcher?>(nil)
    /// How long the watcher's changes settle before a scan (a folder being copied in).
    static let settleSeconds = 0.3

    init(store: Store, builder: SuggestionBuilder, reading: any FileReading, logger: Logger) {
        self.store = store
        self.reading = reading
        self.builder = builder
        self.logger = logger
    }

    /// Starts watching and the scanning thread, and queues a rescan of every source (quick when
    /// nothing changed while pickerd was not running).
    func start() {
        let watcher = FolderWatcher { [weak self] changes in self?.changed(changes) }
        if watcher == nil { logger.warning("inotify is not available: sources are seen only when rescanned") }
        watcherBox.withLock { $0 = watcher }
        Thread.detachNewThread { [self] in work() }
        if (try? store.sources().isEmpty) == false { enqueue(Job(source: nil)) }
    }

    /// Stops the thread after the batch under way, and the watcher.
    func stop() {
        watcherBox.withLock { $0?.stop() }
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    /// Queues a scan of one source (or every source, `path` nil).
    /// - Parameters:
    ///   - path: the source.
    ///   - waiter: told of progress and woken at the end, if someone waits.
    func scan(_ path: String?, waiter: Waiter? = nil) {
        enqueue(Job(source: path, waiter: waiter))
    }

    /// The scan under way, if any.
    var scanning: [IndexingProgress] { state.withLock { $0.current.map { [$0] } ?? [] } }

    /// Whether the watcher watches a folder.
    func isWatched(_ path: String) -> Bool { watcherBox.withLock { $0?.isWatched(path) ?? false } }

    /// Why a source cannot be read or watched, if something is wrong.
    func problem(of path: String) -> String? {
        if let problem = state.withLock({ $0.problems[path] }) { return problem }
        return watcherBox.withLock { watcher -> String? in
            guard let watcher, watcher.limitReached else { return nil }
            return "the kernel's limit on watched folders was reached (\(watcher.counts.unwatched) folders unwatched): raise fs.inotify.max_user_watches, or run pickerctl sources rescan"
        }
    }

    /// Stops watching a removed source.
    func forget(_ path: String) {
        watcherBox.withLock { $0?.unwatch(tree: path) }
        state.withLock { $0.problems[path] = nil }
    }

    private func enqueue(_ job: Job) {
        state.withLock { $0.queue.append(job) }
        wake.signal()
    }

    private func changed(_ changes: [FolderWatcher.Change]) {
        state.withLock { state in
            for change in changes {
                switch change {
                case .folder(let path): state.dirty[path] = state.dirty[path] ?? false
                case .tree(let path): state.dirty[path] = true
                case .overflow: state.overflow = true
                }
            }
        }
        wake.signal()
    }

    private func work() {
        while true {
            wake.wait()
            while true {
                let next = state.withLock { state -> (Job?, Bool) in
                    if state.stopping { return (nil, true) }
                    if !state.queue.isEmpty { return (state.queue.removeFirst(), false) }
                    return (nil, false)
                }
                if next.1 { return }
                if let job = next.0 {
                    run(job)
                    continue
                }
                // The watcher's changes, once they have settled.
                let pending = state.withLock { !$0.dirty.isEmpty || $0.overflow }
                guard pending else { break }
                Thread.sleep(forTimeInterval: Self.settleSeconds)
                let (dirty, overflow) = state.withLock { state -> ([String: Bool], Bool) in
                    defer { state.dirty = [:]; state.overflow = false }
                    return (state.dirty, state.overflow)
                }
                if overflow {
                    logger.notice("the watcher missed changes (the kernel's queue overflowed): rescanning every source")
                    run(Job(source: nil))
                } else {
                    scanDirty(dirty)
                }
            }
        }
    }

    private func scanDirty(_ dirty: [String: Bool]) {
        guard let sources = try? store.sources() else { return }
        var bySource: [String: [ScanFolder]] = [:]
        for (path, recursive) in dirty {
            guard let source = sources.filter({ path == $0.path || path.hasPrefix($0.path + "/") }).max(by: { $0.path.count < $1.path.count })
            else { continue }
            // The source folder itself went or moved: look at the whole source.
            let folder = path == source.path && recursive ? ScanFolder(path: source.path, recursive: true) : ScanFolder(path: path, recursive: recursive)
            bySource[source.path, default: []].append(folder)
        }
        for (source, folders) in bySource { run(Job(source: source, folders: folders)) }
    }

    private func run(_ job: Job) {
        defer { job.waiter?.finish() }
        let sources: [Source]
        do {
            sources = try store.sources().filter { job.source == nil || $0.path == job.source }
        } catch {
            logger.error("cannot read the sources", metadata: ["error": "\(error)"])
            return
        }
        for source in sources {
            if let summary = scan(source, folders: job.folders, waiter: job.waiter) { job.waiter?.add(summary) }
        }
    }

    private func scan(_ source: Source, folders: [ScanFolder]?, waiter: Waiter?) -> ScanSummary? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            // Not there (an unplugged disk, a folder renamed): its items stay until it is back or
            // removed; their files cannot be released meanwhile, and the picker says so.
            let problem = "the folder is not there (unplugged, moved or removed): its items are kept until it is back or you remove it (pickerctl sources remove)"
            state.withLock { $0.problems[source.path] = problem }
            logger.warning("source not found", metadata: ["source": "\(source.path)"])
            return ScanSummary(source: source.path, error: problem)
        }
        state.withLock { $0.problems[source.path] = nil }
        let indexer = SourceIndexer(store: store, reading: reading)
        do {
            let report = try indexer.scan(source, folders: folders) { progress in
                state.withLock { $0.current = progress }
                waiter?.progress(progress)
            }
            watcherBox.withLock { $0?.watch(report.folders) }
            let moments = IndexingProgress(source: source.path, stage: .moments, seen: report.seen, startedMs: Date().unixMs)
            state.withLock { $0.current = moments }
            waiter?.progress(moments)
            let weeks = try MomentEngine(store: store, builder: builder).refresh(touching: report.touched)
            state.withLock { $0.current = nil }
            if folders == nil || report.added + report.changed + report.readAgain + report.moved + report.removed > 0 {
                logger.info("scanned", metadata: [
                    "source": "\(source.path)", "folders": "\(folders.map { "\($0.count)" } ?? "all")", "seen": "\(report.seen)",
                    "added": "\(report.added)", "changed": "\(report.changed)", "readAgain": "\(report.readAgain)", "moved": "\(report.moved)", "removed": "\(report.removed)",
                    "skipped": "\(report.skipped.count)", "livePhotos": "\(report.livePhotos)", "weeks": "\(weeks)",
                    "seconds": "\(String(format: "%.2f", report.seconds))",
                ])
            }
            for skipped in report.skipped.prefix(20) {
                logger.debug("skipped", metadata: ["file": "\(skipped.path)", "reason": "\(skipped.reason)"])
            }
            return ScanSummary(source: source.path, seen: UInt64(report.seen), added: UInt64(report.added), changed: UInt64(report.changed),
                               unchanged: UInt64(report.unchanged), moved: UInt64(report.moved), removed: UInt64(report.removed),
                               skipped: UInt64(report.skipped.count), livePhotos: UInt64(report.livePhotos), seconds: report.seconds,
                               skippedExamples: report.skipped.sorted { $0.path < $1.path }.prefix(20).map { "\($0.path): \($0.reason)" },
                               readAgain: UInt64(report.readAgain))
        } catch {
            state.withLock { $0.current = nil; $0.problems[source.path] = "the last scan stopped: \(error.message)" }
            logger.error("scan stopped", metadata: ["source": "\(source.path)", "error": "\(error)"])
            return ScanSummary(source: source.path, error: error.message)
        }
    }
}
