import Foundation
import PickerdStore

/// The demo library, written into pickerd's store by a program of its own, `pickerd-demo-library`,
/// which pickerd runs as a child (for `pickerd --seed-demo` and `pickerctl library seed-demo`): the
/// generator of made-up lives is no part of the daemon, which links none of it.
///
/// The child opens the store through a connection of its own and writes in batches, one
/// transaction each, then builds the moments, as seeding in pickerd did. pickerd has nothing to
/// reload afterwards: the store's item cache follows the library's version, which the database
/// counts (a trigger), and the settings, consent, hidden rules and corrections it caches are not
/// what seeding writes. Suggestions are read from the database on every presentation.
public enum DemoSeeding {
    /// How far the child is: a stage's name and the items written so far.
    public struct Progress: Sendable, Hashable {
        /// What is being written ("contacts", "day 3 of 16", "suggestions").
        public var stage: String
        /// Items written so far.
        public var done: Int
        /// Items in all.
        public var total: Int
    }

    /// What the child wrote.
    public struct Summary: Sendable, Hashable {
        /// Items written.
        public var items: Int
        /// Suggestions built.
        public var suggestions: Int
        /// Distinct media files written.
        public var mediaFiles: Int
    }

    /// The child could not be run, or stopped without saying how the seeding ended (a crash): the
    /// store holds whatever batches it committed, each whole.
    public struct ChildFailed: Error, Hashable, Sendable, CustomStringConvertible {
        /// What happened, naming the program.
        public var description: String
    }

    /// `pickerd-demo-library` beside pickerd's own executable (a build's products), else the
    /// installed one, as pickerd finds `pickerd-reader`.
    static func defaultExecutable() -> String { CompanionProgram.path("pickerd-demo-library") }

    /// Runs `executable` on `dataDirectory` and waits for it, passing on its progress.
    /// - Parameters:
    ///   - executable: the `pickerd-demo-library` program.
    ///   - dataDirectory: the store's data directory.
    ///   - replace: wipe a library that is there first (else the child refuses a store with items).
    ///   - progress: called on this thread as each stage is written.
    /// - Returns: what was written.
    /// - Throws: ``StoreError`` as the child's store raised it (its code and message), or
    ///   ``ChildFailed`` when the child could not run or stopped without an answer.
    static func run(executable: String, dataDirectory: String, replace: Bool,
                    progress: (Progress) -> Void) throws -> Summary {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [dataDirectory] + (replace ? ["--replace"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ChildFailed(description: "cannot run \(executable) (pickerd-demo-library, installed with pickerd): \(error.localizedDescription)")
        }
        var outcome: Result<Summary, StoreError>?
        var pending = Data()
        let reading = output.fileHandleForReading
        while true {
            let chunk = reading.availableData  // blocks until the child writes or closes stdout
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                switch (fields.first, fields.count) {
                case ("progress", 4):
                    if let done = Int(fields[1]), let total = Int(fields[2]) {
                        progress(Progress(stage: fields[3], done: done, total: total))
                    }
                case ("seeded", 4):
                    if let items = Int(fields[1]), let suggestions = Int(fields[2]), let media = Int(fields[3]) {
                        outcome = .success(Summary(items: items, suggestions: suggestions, mediaFiles: media))
                    }
                case ("failed", 3...):
                    let code = StoreError.Code.all.first { "\($0)" == fields[1] } ?? .writeFailed
                    outcome = .failure(StoreError(code, fields[2...].joined(separator: "\t")))
                default:
                    break  // a line of a newer child: not ours to read
                }
            }
        }
        process.waitUntilExit()
        switch outcome {
        case .success(let summary) where process.terminationStatus == 0 && process.terminationReason == .exit:
            return summary
        case .failure(let error):
            throw error
        default:
            let how = process.terminationReason == .uncaughtSignal ? "was killed by signal \(process.terminationStatus)"
                                                                   : "exited with status \(process.terminationStatus)"
            throw ChildFailed(description: "\(executable) \(how) before the demo library was written")
        }
    }
}

extension StoreError.Code {
    /// Every code, to read one back from its name (the child reports a failure by name).
    fileprivate static let all: [StoreError.Code] = [.corrupt, .unreadable, .writeFailed, .notFound, .invalid]
}
