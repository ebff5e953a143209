public import Foundation
import Glibc
public import PickerdWire
import Synchronization

/// Why a file's reader gave up on it without an answer: what pickerd tells the person, and
/// remembers, when the confined reader (pickerd-reader) crashed, ran past its time or its memory.
public struct ReaderBreakdown: Error, Sendable, Hashable, CustomStringConvertible {
    /// How it failed.
    public enum Kind: String, Sendable, Hashable {
        /// It died (a signal, or it exited), or its filter killed it for a forbidden system call.
        case crashed
        /// It was still at it past its deadline (CPU or wall-clock time), and was killed.
        case time
        /// It took more memory than a reader may, and was killed.
        case memory
        /// No reader could be started (the program is missing, or the system refused).
        case unavailable
    }

    /// How it failed.
    public var kind: Kind
    /// Details for the log (the signal, the limit).
    public var detail: String

    /// Creates a breakdown.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The words `pickerctl sources list` and the import's summary show.
    public var description: String {
        switch kind {
        case .crashed: "its reader crashed (\(detail))"
        case .time: "its reader ran past its time (\(detail))"
        case .memory: "its reader ran past its memory (\(detail))"
        case .unavailable: "no reader could be started (\(detail))"
        }
    }
}

/// One file of an export as its reader read it (``FileReading/export(path:name:names:nowMs:granted:progress:)``).
public struct ExportRead: Sendable {
    /// The path the result is named by (an archive's member: the archive's path, a slash, its path inside).
    public var file: String
    /// The export kind read ("" when none).
    public var kind: String
    /// Why it was not read; `nil` when it was.
    public var error: String?
    /// Location points read.
    public var points: Int
    /// What was read.
    public var data: ImportedData?

    /// Creates a result.
    public init(file: String, kind: String, error: String? = nil, points: Int = 0, data: ImportedData? = nil) {
        self.file = file
        self.kind = kind
        self.error = error
        self.points = points
        self.data = data
    }
}

/// How pickerd has a person's file read: every decode of untrusted bytes goes through this. pickerd
/// itself uses the confined readers (a pool of pickerd-reader processes); tests and benchmarks may
/// read in the process (``InProcessReading``), which is the same code without the confinement.
public protocol FileReading: Sendable {
    /// A photo's or video's metadata (``MediaProbe``).
    func probe(path: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String])
    /// The workout a GPX, TCX or FIT file (or a .gz of one) in a source holds; `nil` when it holds none.
    func workout(path: String, size: Int) throws(ProbeError) -> ImportedWorkout?
    /// An export's files read (``ExportImporter``): one, or an archive's members.
    /// - Parameters:
    ///   - granted: whether a reader may read another file the export names (an Apple Health
    ///     export's routes, Gadgetbridge's tracks): called with its path.
    ///   - progress: location points read so far.
    func export(path: String, name: String, names: [String: String], nowMs: Int64?, granted: (String) -> Bool,
                progress: (Int) -> Void) -> [ExportRead]
    /// A small PNG of a photo or video, upright (its orientation read from the file).
    func preview(path: String, contentType: String, maxSide: Int) throws(ProbeError) -> [UInt8]
    /// Of the files an import found, those to import (a file another export reads, Apple Health's
    /// routes or Gadgetbridge's tracks, is left to it) and the names Strava's `activities.csv` gives
    /// them: decided by looking into the files, so by a reader.
    /// - Parameters:
    ///   - files: the files found, in order.
    ///   - granted: whether a reader may read a file (it asks for each by path).
    func plan(files: [String], granted: (String) -> Bool) -> (files: [String], names: [String: String])
}

/// The readers in this process, unconfined: for tests, benchmarks and tools that read files they
/// made themselves. pickerd reads a person's files through its confined readers instead.
public struct InProcessReading: FileReading {
    /// Creates it.
    public init() {}

    public func probe(path: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        try MediaProbe.probe(path: path, timeZone: timeZone, readPeople: readPeople)
    }

    public func workout(path: String, size: Int) throws(ProbeError) -> ImportedWorkout? {
        FileReaderService.workout(path: path, size: size)
    }

    public func export(path: String, name: String, names: [String: String], nowMs: Int64?, granted: (String) -> Bool,
                       progress: (Int) -> Void) -> [ExportRead] {
        FileReaderService.export(path: path, name: name, names: names, nowMs: nowMs, progress: progress)
    }

    public func preview(path: String, contentType: String, maxSide: Int) throws(ProbeError) -> [UInt8] {
        try FileReaderService.preview(path: path, contentType: contentType, maxSide: maxSide)
    }

    public func plan(files: [String], granted: (String) -> Bool) -> (files: [String], names: [String: String]) {
        FileReaderService.plan(files)
    }
}

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
        func over<T>(_ name: String, _ body: () -> T) -> T {
            guard let descriptor else { return body() }
            return ReaderFiles.withOverlay([name: descriptor], body)
        }
        switch request.kind {
        case .probeMedia(let m)?:
            let zone = zone(m.timeZone)
            let probed = over(m.name) {
                Result { () throws(ProbeError) in try MediaProbe.probe(path: m.name, timeZone: zone, readPeople: m.readPeople) }
            }
            switch probed {
            case .success(let (media, people)): send(.probed(media.message(people: people)))
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
        SourceIndexer.readWorkout(path: path, name: (path as NSString).lastPathComponent, size: size)
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
