public import Foundation

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
/// read in the process (PickerdReaders' `InProcessReading`), which is the same code without the
/// confinement.
public protocol FileReading: Sendable {
    /// A photo's or video's metadata (PickerdReaders' `MediaProbe`).
    func probe(path: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError) -> (media: ProbedMedia, people: [String])
    /// A photo's or video's metadata read with its Google Photos Takeout sidecar, completed by
    /// ``TakeoutSidecars/complete(_:people:from:people:)``: one request for both.
    /// - Returns: what the file and its sidecar say, whom they name, and why the sidecar could not
    ///   be read (`nil` when it was; the file's own metadata is then what it says alone).
    /// - Throws: ``ProbeError`` when the photo or video itself cannot be read.
    func probe(path: String, sidecar: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError)
        -> (media: ProbedMedia, people: [String], sidecarProblem: String?)
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
    /// A still's picture hash (``ProbedMedia/pictureHash``) from its whole picture decoded: the
    /// indexer's probe hashes only what is cheap (a thumbnail the file holds, a small file), and
    /// the indexer asks for this only for a photo taken seconds from another.
    func pictureHash(path: String, contentType: String) throws(ProbeError) -> UInt64
    /// Of the files an import found, those to import (a file another export reads, Apple Health's
    /// routes or Gadgetbridge's tracks, is left to it) and the names Strava's `activities.csv` gives
    /// them: decided by looking into the files, so by a reader.
    /// - Parameters:
    ///   - files: the files found, in order.
    ///   - granted: whether a reader may read a file (it asks for each by path).
    func plan(files: [String], granted: (String) -> Bool) -> (files: [String], names: [String: String])
}

extension FileReading {
    /// The photo and its sidecar read one after the other, and completed: for readings in this
    /// process, where a round trip costs nothing.
    public func probe(path: String, sidecar: String, timeZone: TimeZone, readPeople: Bool) throws(ProbeError)
        -> (media: ProbedMedia, people: [String], sidecarProblem: String?) {
        var (media, people) = try probe(path: path, timeZone: timeZone, readPeople: readPeople)
        do throws(ProbeError) {
            let (said, named) = try probe(path: sidecar, timeZone: timeZone, readPeople: readPeople)
            TakeoutSidecars.complete(&media, people: &people, from: said, people: named)
            return (media, people, nil)
        } catch {
            return (media, people, error.message)
        }
    }
}
