public import Foundation
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// Why presenting the picker failed.
public struct JournalingSuggestionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure. A struct wrapping a private enum, so codes can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case notEntitled, noPickerAvailable, busy, unreachable, failed }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The app may not present the picker: not registered, or its entitlements do not allow it.
        public static let notEntitled = Code(.notEntitled)
        /// No picker could be shown.
        public static let noPickerAvailable = Code(.noPickerAvailable)
        /// This app already has a presentation in progress.
        public static let busy = Code(.busy)
        /// pickerd is not running, or its socket is not in this app's view.
        public static let unreachable = Code(.unreachable)
        /// Anything else (the message says what).
        public static let failed = Code(.failed)
        /// The code's name.
        public var description: String {
            switch value {
            case .notEntitled: "notEntitled"
            case .noPickerAvailable: "noPickerAvailable"
            case .busy: "busy"
            case .unreachable: "unreachable"
            case .failed: "failed"
            }
        }
    }
    /// What kind of failure.
    public var code: Code
    /// pickerd's words.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// The journaling suggestions picker (Apple's `JournalingSuggestionsPicker`), for apps on Linux.
///
/// The picker is drawn by a trusted process, never by the app; the app receives only the items the
/// person approved. Media arrive as read-only files in the app's cache directory, so the URL
/// properties work as on iOS; ``removeCachedMedia()`` deletes them.
public final class JournalingSuggestionsPicker: Sendable {
    /// How a presentation ended.
    public enum Outcome: Sendable {
        /// The person chose a suggestion and these items of it.
        case approved(JournalingSuggestion)
        /// The person cancelled.
        case cancelled
        /// The picker went away without the person deciding.
        case dismissed(DismissalReason)
    }

    /// Why the picker went away.
    public enum DismissalReason: Sendable, Hashable {
        /// The app closed its request (``close()``).
        case closedByApp
        /// The picker process ended.
        case pickerGone
        /// pickerd shut down.
        case shutdown
        /// The person did not turn journaling suggestions on.
        case consentDeclined
        /// Anything else.
        case other
    }

    /// The title of the button that adds the suggestion to the app ("Add to My Journal").
    public let buttonTitle: String
    /// Where media files are written.
    public let cacheDirectory: URL
    private let runtimeDirectory: String?
    private let usesTerminal: Bool
    private let parentWindow: String
    private let current = Mutex<(ProtocolClient, String)?>(nil)

    /// Creates a picker.
    /// - Parameters:
    ///   - buttonTitle: the title of the confirming button.
    ///   - cacheDirectory: where media files go (default: `$XDG_CACHE_HOME/<program>/JournalingSuggestions`).
    ///   - runtimeDirectory: pickerd's runtime directory (default: `$PICKERD_RUNTIME_DIR`, else
    ///     `$XDG_RUNTIME_DIR/pickerd`).
    ///   - usesTerminal: when the app runs in a terminal (standard input and output are one), hand it
    ///     to pickerd so the terminal picker appears in it. The app's process never sees what is drawn:
    ///     pickerd's own picker process draws it, and only on a terminal whose other end the app does
    ///     not hold (otherwise ``present(token:)`` throws with pickerd's reason).
    ///     `PICKERD_NO_TERMINAL=1` turns this off too.
    ///   - parentWindow: the app's window, as xdg-desktop-portal names one ("x11:<hex XID>", or
    ///     "wayland:<handle>" from xdg-foreign's export): the desktop picker then appears over it,
    ///     like a sheet. It only names a window; the app still never sees the picker's content.
    public init(buttonTitle: String = "", cacheDirectory: URL? = nil, runtimeDirectory: String? = nil, usesTerminal: Bool = true,
                parentWindow: String? = nil) {
        self.buttonTitle = buttonTitle
        self.usesTerminal = usesTerminal
        self.parentWindow = parentWindow ?? ""
        let environment = ProcessInfo.processInfo.environment
        let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache"
        self.cacheDirectory = cacheDirectory
            ?? URL(fileURLWithPath: cacheHome).appendingPathComponent(ProcessInfo.processInfo.processName).appendingPathComponent("JournalingSuggestions")
        self.runtimeDirectory = runtimeDirectory ?? environment["PICKERD_RUNTIME_DIR"]
    }

    /// Presents the picker and waits for the person (there is no time limit on a person's review).
    /// Cancelling the calling task closes the request.
    /// - Parameter token: open on the suggestion a notification named; the person still reviews.
    /// - Returns: how it ended.
    /// - Throws: ``JournalingSuggestionsError``.
    public func present(token: JournalingSuggestionPresentationToken? = nil) async throws(JournalingSuggestionsError) -> Outcome {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Outcome, JournalingSuggestionsError>, Never>) in
                let thread = Thread { continuation.resume(returning: Result { () throws(JournalingSuggestionsError) in try self.presentBlocking(token) }) }
                thread.name = "JournalingSuggestionsPicker"
                thread.start()
            }
        } onCancel: {
            self.close()
        }
        return try result.get()
    }

    /// Presents the picker; `onCompletion` runs with the suggestion when the person approves one
    /// (Apple's `onCompletion`).
    /// - Parameters:
    ///   - token: open on the suggestion a notification named.
    ///   - onCompletion: called with the approved suggestion.
    /// - Returns: how it ended.
    /// - Throws: ``JournalingSuggestionsError``.
    @discardableResult
    public func present(token: JournalingSuggestionPresentationToken? = nil,
                        onCompletion: @Sendable (JournalingSuggestion) async -> Void) async throws(JournalingSuggestionsError) -> Outcome {
        let outcome = try await present(token: token)
        if case .approved(let suggestion) = outcome { await onCompletion(suggestion) }
        return outcome
    }

    /// Withdraws the presentation in progress: the picker is dismissed and ``present(token:)``
    /// returns `.dismissed(.closedByApp)`.
    public func close() {
        guard let (client, handle) = current.withLock({ $0 }) else { return }
        try? client.connection.send(Envelope(requestId: UInt64.max, body: .close(CloseRequest(sessionHandle: handle))))
    }

    /// Deletes the media files written for approved suggestions.
    /// - Throws: a file system error.
    public func removeCachedMedia() throws {
        if FileManager.default.fileExists(atPath: cacheDirectory.path) { try FileManager.default.removeItem(at: cacheDirectory) }
    }

    private func presentBlocking(_ token: JournalingSuggestionPresentationToken?) throws(JournalingSuggestionsError) -> Outcome {
        let client: ProtocolClient
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDirectory)
            client = try ProtocolClient(path: paths.clientSocket, role: .client, software: "JournalingSuggestions")
        } catch let error as TransportError {
            throw JournalingSuggestionsError(code: .unreachable, message: error.message)
        } catch {
            throw Self.map(error)
        }
        defer {
            current.withLock { $0 = nil }
            client.close()
        }
        var request = PresentRequest(suggestionToken: token?.suggestionIdentifier?.uuidString ?? "", buttonTitle: buttonTitle,
                                     parentWindow: parentWindow)
        let terminal = usesTerminal ? TerminalHandover.open() : nil
        if terminal != nil {
            request.hasTerminal = true
            request.terminalFdIndex = 0
            request.terminalType = ProcessInfo.processInfo.environment["TERM"] ?? ""
        }
        // Whatever happens to the picker, the terminal ends as the app left it.
        defer { terminal?.restore() }
        let frame: ReceivedFrame
        do {
            frame = try client.request(.present(request), descriptors: terminal.map { [$0.descriptor] } ?? [], isFinal: { if case .outcome = $0 { true } else { false } }, onEvent: { event in
                if case .presentAccepted(let accepted) = event { self.current.withLock { $0 = (client, accepted.sessionHandle) } }
                // pickerd holds its own copy now; the app keeps none.
                terminal?.release()
            })
        } catch {
            throw Self.map(error)
        }
        guard case .outcome(let outcome)? = frame.envelope.body else {
            throw JournalingSuggestionsError(code: .failed, message: "pickerd sent no outcome")
        }
        switch outcome.result {
        case .approved(let suggestion)?:
            let files = try writeMedia(frame.descriptors, suggestion: suggestion, session: outcome.sessionHandle)
            return .approved(WireConversion(file: { files.indices.contains(Int($0)) ? files[Int($0)] : nil }).suggestion(suggestion))
        case .cancelled?:
            return .cancelled
        case .dismissed(let d)?:
            switch d.reason {
            case .clientClosed: return .dismissed(.closedByApp)
            case .agentGone: return .dismissed(.pickerGone)
            case .shutdown: return .dismissed(.shutdown)
            case .consentDeclined: return .dismissed(.consentDeclined)
            default: return .dismissed(.other)
            }
        case .error(let e)?:
            throw Self.map(ProtocolClient.RemoteError(code: e.code, message: e.message))
        case nil:
            throw JournalingSuggestionsError(code: .failed, message: "pickerd sent an empty outcome")
        }
    }

    /// Copies each received descriptor into a file of the cache directory; returns the files by
    /// descriptor index.
    private func writeMedia(_ descriptors: [OwnedFileDescriptor], suggestion: Suggestion, session: String) throws(JournalingSuggestionsError) -> [URL] {
        var names: [UInt32: String] = [:]
        for item in suggestion.items {
            item.asset?.forEachMedia { media in if media.hasFd { names[media.fdIndex] = media.filename } }
        }
        let directory = cacheDirectory.appendingPathComponent(session)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try descriptors.enumerated().map { index, owned in
                let raw = (names[UInt32(index)] ?? "media-\(index)").replacingOccurrences(of: "/", with: "_")
                let url = directory.appendingPathComponent(String(format: "%02d-", index) + (raw.hasPrefix(".") ? "_" + raw : raw))
                guard let fd = owned.descriptor else { throw CocoaError(.fileReadUnknown) }
                let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: false)
                try handle.seek(toOffset: 0)
                let data = handle.readDataToEndOfFile()
                try data.write(to: url)
                try? owned.close()
                return url
            }
        } catch {
            throw JournalingSuggestionsError(code: .failed, message: "cannot write media into \(directory.path): \(error.localizedDescription)")
        }
    }

    static func map(_ error: any Error) -> JournalingSuggestionsError {
        if let error = error as? ProtocolClient.RemoteError {
            let code: JournalingSuggestionsError.Code = switch error.code {
            case .notEntitled: .notEntitled
            case .noPickerAvailable: .noPickerAvailable
            case .busy: .busy
            default: .failed
            }
            return JournalingSuggestionsError(code: code, message: error.message)
        }
        if let error = error as? TransportError { return JournalingSuggestionsError(code: .unreachable, message: error.message) }
        return JournalingSuggestionsError(code: .failed, message: "\(error)")
    }
}
