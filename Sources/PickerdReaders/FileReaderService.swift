import Foundation
import Glibc
public import PickerdImport
import PickerdStore
public import PickerdWire
import Synchronization

/// What a reader process does with each request: the reading itself, the same in and out of the
/// confined process. The descriptor pickerd passed is seen under the file's name (``ReaderFiles``).
public enum FileReaderService {
    /// Entries per part of a large export's reply (a frame holds at most 64 MiB).
    static let partSize = 100_000

    /// Answers one request.
    /// - Parameters:
    ///   - request: the request.
    ///   - descriptor: the file it is about, opened by pickerd.
    ///   - send: sends a reply (progress, a part, the answer).
    public static func handle(_ request: ReaderRequest, descriptor: Int32?, send: (ReaderReply.Kind) -> Void) {
        handle(request, descriptors: descriptor.map { [$0] } ?? [], send: send)
    }

    /// Answers one request.
    /// - Parameters:
    ///   - request: the request.
    ///   - descriptors: the file it is about, opened by pickerd, and a second read with it (a
    ///     photo's sidecar, when the request names one).
    ///   - send: sends a reply (progress, a part, the answer).
    public static func handle(_ request: ReaderRequest, descriptors: [Int32], send: (ReaderReply.Kind) -> Void) {
        func over<T>(_ name: String, _ body: () -> T) -> T {
            guard let descriptor = descriptors.first else { return body() }
            return ReaderFiles.withOverlay([name: descriptor], body)
        }
        switch request.kind {
        case .probeMedia(let m)?:
            let zone = zone(m.timeZone)
            var files: [String: Int32] = [:]
            if let descriptor = descriptors.first { files[m.name] = descriptor }
            let sidecar = m.sidecarName.isEmpty || descriptors.count < 2 ? nil : m.sidecarName
            if let sidecar { files[sidecar] = descriptors[1] }
            let probed = ReaderFiles.withOverlay(files) {
                Result { () throws(ProbeError) -> (media: ProbedMedia, people: [String], sidecarProblem: String?) in
                    guard let sidecar else {
                        let (media, people) = try InProcessReading().probe(path: m.name, timeZone: zone, readPeople: m.readPeople)
                        return (media, people, nil)
                    }
                    return try InProcessReading().probe(path: m.name, sidecar: sidecar, timeZone: zone, readPeople: m.readPeople)
                }
            }
            switch probed {
            case .success(let (media, people, problem)):
                var message = media.message(people: people)
                message.sidecarProblem = problem ?? ""
                send(.probed(message))
            case .failure(let error): send(.failure(error.failure))
            }
        case .readWorkout(let m)?:
            let found: ImportedWorkout? = over(m.name) { Self.workout(path: m.name, size: Int(clamping: m.size)) }
            send(.workout(ReaderWorkout(found: found != nil, workout: found?.message)))
        case .readExport(let m)?:
            let names = Dictionary(m.activityNames.map { ($0.path, $0.name) }, uniquingKeysWith: { a, _ in a })
            // The bytes inflated from streamed zip entries go with each progress: pickerd gives the
            // request time for them, which the archive's own size does not show.
            let inflatedBefore = ZipArchive.streamedBytes.load(ordering: .relaxed)
            let files = over(m.path) {
                Self.export(path: m.path, name: m.name, names: names, nowMs: m.nowMs == 0 ? nil : m.nowMs) { points in
                    let inflated = ZipArchive.streamedBytes.load(ordering: .relaxed) - inflatedBefore
                    send(.progress(ReaderProgress(points: UInt64(points), inflatedBytes: UInt64(max(inflated, 0)))))
                }
            }
            var replies: [ReaderExportFile] = []
            for file in files {
                let parts = file.data?.parts(of: partSize) ?? []
                if parts.isEmpty {
                    replies.append(ReaderExportFile(file: file.file, kind: file.kind, error: file.error ?? "", points: UInt64(file.points)))
                }
                for (index, part) in parts.enumerated() {
                    replies.append(ReaderExportFile(file: file.file, kind: file.kind, error: file.error ?? "",
                                                    points: index == 0 ? UInt64(file.points) : 0, data: part.message, hasData: true))
                }
            }
            // One reply per part, so no frame is too large; the last says it is the last.
            if replies.isEmpty { send(.export(ReaderExport(files: [], more: false))) }
            for (index, reply) in replies.enumerated() {
                send(.export(ReaderExport(files: [reply], more: index < replies.count - 1)))
            }
        case .decodePreview(let m)?:
            let decoded = over(m.name) {
                Result { () throws(ProbeError) in try Self.preview(path: m.name, contentType: m.contentType, maxSide: Int(m.maxSide)) }
            }
            switch decoded {
            case .success(let png): send(.preview(ReaderPreview(png: png)))
            case .failure(let error): send(.failure(error.failure))
            }
        case .hashPicture(let m)?:
            let hashed = over(m.name) { Result { () throws(ProbeError) in try PictureHash.of(path: m.name, contentType: m.contentType) } }
            switch hashed {
            case .success(let hash): send(.pictureHash(ReaderPictureHash(hash: hash)))
            case .failure(let error): send(.failure(error.failure))
            }
        case .planImport(let m)?:
            let (files, names) = plan(m.files)
            send(.plan(ReaderPlan(files: files, activityNames: names.sorted { $0.key < $1.key }.map { ReaderActivityName(path: $0.key, name: $0.value) })))
        case .openReply?, nil:
            send(.failure(ReaderFailure(kind: .unsupported, message: "not a request a reader answers", location: "")))
        }
    }

    /// Zones by name, made once: making one costs more than reading a JPEG's EXIF.
    private static let zones = Mutex<[String: TimeZone]>([:])

    private static func zone(_ name: String) -> TimeZone {
        if let known = zones.withLock({ $0[name] }) { return known }
        let zone = TimeZone(identifier: name) ?? .current
        zones.withLock { $0[name] = zone }
        return zone
    }

    /// The workout a GPX, TCX or FIT file (or a .gz of one) holds.
    static func workout(path: String, size: Int) -> ImportedWorkout? {
        readWorkout(path: path, name: (path as NSString).lastPathComponent, size: size)
    }

    /// The workout a GPX, TCX or FIT file (or a gzip of one) holds: the first, when it holds several.
    /// What a reader does with a file in a source that is no photo or video.
    /// - Parameters:
    ///   - path: the file (read through ``ReaderFiles``).
    ///   - name: its name.
    ///   - size: its size in bytes.
    /// - Returns: the workout, or `nil` when the file is none of those or holds none.
    public static func readWorkout(path: String, name: String, size: Int) -> ImportedWorkout? {
        // Its first bytes say whether it is one; only then is it read whole (by the reader).
        guard size <= ExportImporter.maximumWholeFile, let prefix = ExportKind.prefix(ofFile: path),
              let kind = ExportKind.detect(prefix, name: name), [.gpx, .tcx, .fit, .gzip].contains(kind),
              let read = try? ExportReaders.read(kind, path: path, name: name, points: { _ in }) else { return nil }
        return read.data.workouts.first
    }

    static func export(path: String, name: String, names: [String: String], nowMs: Int64?,
                       progress: (Int) -> Void) -> [ExportRead] {
        ExportImporter.read(file: path, name: name, names: names, nowMs: nowMs, points: progress)
    }

    static func plan(_ files: [String]) -> (files: [String], names: [String: String]) {
        let kept = ExportImporter.withoutFilesReadByOthers(files)
        return (kept, ExportImporter.activityNames(in: kept))
    }

    static func preview(path: String, contentType: String, maxSide: Int) throws(ProbeError) -> [UInt8] {
        // The orientation is read again (metadata only): the index keeps what suggestions need.
        let orientation = (try? MediaProbe.probe(path: path))?.orientation ?? 1
        return try Thumbnailer.png(path: path, contentType: contentType, maxSide: maxSide, orientation: orientation)
    }
}
