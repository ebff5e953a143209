import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl sources`: the person's folders, added, removed, listed and scanned again.
extension ControlHandler {
    func sourcesList(summaries: [ScanSummary] = []) throws -> Envelope.Body {
        let store = broker.store
        let counts = try store.sourceCounts()
        let sources = try store.sources()
        let skippedFolders = try store.skippedFolders()
        let infos = sources.map { source in
            let c = counts[source.id] ?? SourceCounts()
            return SourceInfo(path: source.path, addedMs: source.addedMs, lastScanMs: source.lastScanMs ?? 0,
                              lastScanSeconds: source.lastScanSeconds ?? 0, files: UInt64(c.files), indexed: UInt64(c.indexed),
                              notMemories: UInt64(c.notMemories), skipped: UInt64(c.skipped),
                              watched: broker.importer.isWatched(source.path), problem: broker.importer.problem(of: source.path) ?? "",
                              notMemoryReasons: NotAMemoryRules.phrases(c.notMemoryReasons),
                              skippedFolders: (skippedFolders[source.id] ?? []).map { "\($0.path): \($0.reason)" })
        }
        let paths = sources.map(\.path)
        let offered = UserDirs.mediaFolders().filter { folder in
            let real = AppRegistry.resolved(folder) ?? folder
            return !paths.contains { real == $0 || real.hasPrefix($0 + "/") }
        }
        return .sourcesListReply(SourcesListReply(sources: infos, offered: offered,
                                                  scanning: broker.importer.scanning.map(Self.wire), summaries: summaries))
    }

    func sourcesAdd(_ request: SourcesAddRequest) throws -> Envelope.Body? {
        guard request.path.hasPrefix("/") else {
            return .error(ErrorInfo(code: .invalidArgument, message: "\(request.path) is not an absolute path"))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: request.path, isDirectory: &isDirectory) else {
            return .error(ErrorInfo(code: .notFound, message: "\(request.path) does not exist"))
        }
        guard isDirectory.boolValue, let path = AppRegistry.resolved(request.path) else {
            return .error(ErrorInfo(code: .invalidArgument, message: "\(request.path) is not a folder"))
        }
        guard let directory = opendir(path) else {
            return .error(ErrorInfo(code: .permissionDenied, message: "pickerd cannot read \(path): \(String(cString: strerror(errno)))"))
        }
        closedir(directory)
        let data = AppRegistry.resolved(broker.store.dataDirectory) ?? broker.store.dataDirectory
        if path == data || path.hasPrefix(data + "/") || data.hasPrefix(path + "/") {
            return .error(ErrorInfo(code: .invalidArgument, message: "\(path) holds pickerd's own store: choose the folder of your photos"))
        }
        for source in try broker.store.sources() where source.path != path {
            if path.hasPrefix(source.path + "/") {
                return .error(ErrorInfo(code: .invalidArgument, message: "\(path) is inside the source \(source.path), which pickerd already indexes"))
            }
            if source.path.hasPrefix(path + "/") {
                return .error(ErrorInfo(code: .invalidArgument,
                                        message: "\(path) holds the source \(source.path): remove it first (pickerctl sources remove \(source.path))"))
            }
        }
        _ = try broker.store.addSource(path: path, timeMs: Date().unixMs)
        logger.info("source added", metadata: ["source": "\(path)"])
        return try scan(path, wait: request.wait)
    }

    func sourcesRemove(_ request: SourcesRemoveRequest) throws -> Envelope.Body? {
        let path = try broker.store.sources().contains { $0.path == request.path } ? request.path : (AppRegistry.resolved(request.path) ?? request.path)
        let range: ClosedRange<Int64>?
        do throws(StoreError) {
            range = try broker.store.removeSource(path: path)
        } catch {
            guard error.code == .notFound else { throw error }
            return .error(ErrorInfo(code: .notFound, message: "\(request.path) is not a source (pickerctl sources list)"))
        }
        broker.importer.forget(path)
        if let range { try MomentEngine(store: broker.store, builder: broker.builder).refresh(touching: [range]) }
        broker.truncateLog()
        logger.info("source removed", metadata: ["source": "\(path)"])
        return try sourcesList()
    }

    func sourcesRescan(_ request: SourcesRescanRequest) throws -> Envelope.Body? {
        var path: String?
        if !request.path.isEmpty {
            let sources = try broker.store.sources().map(\.path)
            path = sources.contains(request.path) ? request.path : AppRegistry.resolved(request.path)
            guard let found = path, sources.contains(found) else {
                return .error(ErrorInfo(code: .notFound, message: "\(request.path) is not a source (pickerctl sources add \(request.path))"))
            }
        }
        return try scan(path, wait: request.wait)
    }

    private func scan(_ path: String?, wait: Bool) throws -> Envelope.Body? {
        guard wait else {
            broker.importer.scan(path)
            return try sourcesList()
        }
        let connection = connection, requestID = requestID, broker = broker
        let waiter = ImportService.Waiter { progress in
            broker.reply(connection, requestID, .scanProgress(Self.wire(progress)))
        }
        broker.importer.scan(path, waiter: waiter)
        return try sourcesList(summaries: waiter.wait())
    }

    static func wire(_ p: IndexingProgress) -> ScanProgress {
        ScanProgress(source: p.source, stage: p.stage.rawValue, seen: UInt64(p.seen), toRead: UInt64(p.toRead), read: UInt64(p.read),
                     filesPerSecond: p.filesPerSecond, etaSeconds: p.etaSeconds ?? -1, startedMs: p.startedMs)
    }
}
