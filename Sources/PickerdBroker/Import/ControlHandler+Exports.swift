import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl import`: exports people have (location history, workouts), read on the control
/// connection's thread with progress, each file in one transaction, then the touched weeks' moments.
extension ControlHandler {
    func importExports(_ request: ImportRequest) throws -> Envelope.Body? {
        guard !request.paths.isEmpty else { return .error(ErrorInfo(code: .invalidArgument, message: "name files or folders to import")) }
        for path in request.paths where !path.hasPrefix("/") {
            return .error(ErrorInfo(code: .invalidArgument, message: "\(path) is not an absolute path"))
        }
        for path in request.paths where !FileManager.default.fileExists(atPath: path) {
            return .error(ErrorInfo(code: .notFound, message: "\(path) does not exist"))
        }
        let connection = connection, requestID = requestID, broker = broker
        var lastSent = Date.distantPast
        let results = ExportImporter(store: broker.store, reading: broker.readers).run(request.paths) { file, done, total, points in
            // At most a few progress frames a second: a million points must not mean a million frames.
            guard Date().timeIntervalSince(lastSent) >= 0.2 || points == 0 else { return }
            lastSent = Date()
            broker.reply(connection, requestID, .importProgress(ImportProgress(file: file, filesDone: UInt64(done), filesTotal: UInt64(total),
                                                                               points: UInt64(points))))
        }
        let touched = Store.joined(results.flatMap(\.touched))
        try MomentEngine(store: broker.store, builder: broker.builder).refresh(touching: touched)
        for result in results {
            if let error = result.error {
                logger.notice("import refused a file", metadata: ["file": "\(result.file)", "error": "\(error)"])
            } else if !result.kind.isEmpty {
                logger.info("imported", metadata: ["file": "\(result.file)", "kind": "\(result.kind)", "workouts": "\(result.workouts)",
                                                   "visits": "\(result.visits)", "points": "\(result.points)", "duplicates": "\(result.duplicates)",
                                                   "counts": "\(result.counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"])
            }
        }
        return .importReply(ImportReply(
            files: results.map {
                ImportFileResult(file: $0.file, kind: $0.kind, workouts: UInt64($0.workouts), visits: UInt64($0.visits), points: UInt64($0.points),
                                 duplicates: UInt64($0.duplicates), error: $0.error ?? "",
                                 counts: $0.counts.sorted { $0.key < $1.key }.map { ImportCount(what: $0.key, count: UInt64($0.value)) })
            },
            itemsAdded: UInt64(results.map(\.added).reduce(0, +)), suggestionCount: UInt64(try broker.store.suggestionCount())))
    }
}
