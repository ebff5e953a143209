import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdWire

/// `pickerctl backup`, `restore` and `export`: the person's decisions kept elsewhere and put back,
/// and everything pickerd holds written out for them to take elsewhere.
extension ControlHandler {
    func backup(_ request: BackupRequest) throws -> Envelope.Body {
        guard request.path.hasPrefix("/") else {
            return .error(ErrorInfo(code: .invalidArgument, message: "the backup's path must be absolute: \(request.path)"))
        }
        let bytes = try broker.store.backup(to: request.path, kind: request.all ? .all : .decisions)
        logger.info("backup written", metadata: ["file": "\(request.path)", "all": "\(request.all)", "bytes": "\(bytes)"])
        return .backupReply(BackupReply(path: request.path, bytes: bytes))
    }

    func restore(_ request: RestoreRequest) throws -> Envelope.Body {
        guard request.path.hasPrefix("/") else {
            return .error(ErrorInfo(code: .invalidArgument, message: "the backup's path must be absolute: \(request.path)"))
        }
        let info = try broker.store.restore(from: request.path, all: request.all)
        // Hidden rules and corrections (and, for everything, the library) came back: the moments
        // are built again from them.
        let count = try MomentEngine(store: broker.store, builder: broker.builder).rebuildAll()
        logger.info("backup restored", metadata: ["file": "\(request.path)", "kind": "\(info.kind.rawValue)", "suggestions": "\(count)"])
        return .restoreReply(RestoreReply(kind: info.kind.rawValue, madeMs: info.madeMs, schemaVersion: UInt32(info.schemaVersion)))
    }

    func export(_ request: ExportRequest) throws -> Envelope.Body {
        guard request.directory.hasPrefix("/") else {
            return .error(ErrorInfo(code: .invalidArgument, message: "the export's directory must be absolute: \(request.directory)"))
        }
        let files = try broker.store.export(to: request.directory)
        logger.info("export written", metadata: ["directory": "\(request.directory)", "files": "\(files.count)"])
        return .exportReply(ExportReply(files: files))
    }
}
