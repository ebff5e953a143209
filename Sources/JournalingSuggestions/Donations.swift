public import Foundation
import Glibc
import PickerdTransport
import PickerdWire
import SystemPackage

/// Donations to journaling suggestions: media your app played or showed (Apple's Generic Media) and
/// how the person said they felt (State of Mind), which then appear in the person's suggestions for
/// every journaling app, as on iOS.
///
/// Your app's entitlements must set `org.pickerd.journal.donations` to `true`, and the app must be
/// allowed by the person or installed by the system, as for presenting. Donating gives your app an
/// acknowledgement and nothing else: it never learns whether, where or to whom a donation was shown.
/// Each donation carries your own identifier; donating again with it replaces the item, and
/// ``withdraw(identifiers:)`` removes it from the person's suggestions and from every release after.
/// The person sees and removes donations with `pickerctl donations`.
public final class JournalingSuggestionsDonations: Sendable {
    private let runtimeDirectory: String?

    /// Creates a donor.
    /// - Parameter runtimeDirectory: pickerd's runtime directory (default: `$PICKERD_RUNTIME_DIR`,
    ///   else `$XDG_RUNTIME_DIR/pickerd`).
    public init(runtimeDirectory: String? = nil) {
        self.runtimeDirectory = runtimeDirectory ?? ProcessInfo.processInfo.environment["PICKERD_RUNTIME_DIR"]
    }

    /// Donates media the person played or read in your app.
    ///
    /// `appIcon` and `artwork` name PNG or JPEG files of at most 8 MiB, which pickerd copies (through a
    /// read-only descriptor: it never learns their paths).
    /// - Parameters:
    ///   - media: the title, artist, album, when (default: now), your app's icon and the media's artwork.
    ///   - identifier: your identifier for it (1…256 bytes); donating again with it replaces it.
    ///   - excludedFromSuggestions: keep it out of every suggestion (Apple's per-item opt-out).
    /// - Throws: ``JournalingSuggestionsError`` (`notEntitled` without the entitlement).
    public func donate(_ media: JournalingSuggestion.GenericMedia, identifier: String,
                       excludedFromSuggestions: Bool = false) async throws(JournalingSuggestionsError) {
        var files: [URL] = []
        func attach(_ url: URL?) -> Media? {
            guard let url else { return nil }
            files.append(url)
            return Media(hasFd: true, fdIndex: UInt32(files.count - 1), filename: url.lastPathComponent)
        }
        let asset = GenericMedia(title: media.title ?? "", artist: media.artist ?? "", album: media.album ?? "",
                                 date: media.date.map { Timestamp(unixMs: Int64(($0.timeIntervalSince1970 * 1000).rounded())) },
                                 appIcon: attach(media.appIcon), artwork: attach(media.artwork))
        let request = DonationRequest(externalId: identifier, excludeFromSuggestions: excludedFromSuggestions, asset: .genericMedia(asset))
        _ = try await send(.donation(request), files: files)
    }

    /// Donates how the person felt (HealthKit's State of Mind).
    /// - Parameters:
    ///   - state: the kind, valence, labels, associations and when (default: now); a valence
    ///     classification of 0 is worked out from the valence.
    ///   - identifier: your identifier for it (1…256 bytes); donating again with it replaces it.
    ///   - icon: a PNG or JPEG to show with it, if any.
    ///   - excludedFromSuggestions: keep it out of every suggestion.
    /// - Throws: ``JournalingSuggestionsError``.
    public func donate(_ state: JournalingSuggestion.StateOfMind.State, identifier: String, icon: URL? = nil,
                       excludedFromSuggestions: Bool = false) async throws(JournalingSuggestionsError) {
        let sample = StateOfMindSample(
            kind: state.kind == .dailyMood ? .dailyMood : .momentaryEmotion, valence: state.valence,
            valenceClassification: ValenceClassification(rawValue: Int32(state.valenceClassification)),
            labels: state.labels.map { StateOfMindLabel(rawValue: Int32($0)) },
            associations: state.associations.map { StateOfMindAssociation(rawValue: Int32($0)) },
            date: state.date.map { Timestamp(unixMs: Int64(($0.timeIntervalSince1970 * 1000).rounded())) })
        let asset = StateOfMind(state: sample, icon: icon.map { Media(hasFd: true, fdIndex: 0, filename: $0.lastPathComponent) })
        let request = DonationRequest(externalId: identifier, excludeFromSuggestions: excludedFromSuggestions, asset: .stateOfMind(asset))
        _ = try await send(.donation(request), files: icon.map { [$0] } ?? [])
    }

    /// Withdraws your app's donations with these identifiers: they leave the person's suggestions and
    /// are never released again. Identifiers your app did not donate name nothing.
    /// - Parameter identifiers: your identifiers.
    /// - Returns: how many were withdrawn.
    /// - Throws: ``JournalingSuggestionsError``.
    @discardableResult
    public func withdraw(identifiers: [String]) async throws(JournalingSuggestionsError) -> Int {
        try await withdrawn(WithdrawDonationsRequest(externalIds: identifiers))
    }

    /// Withdraws every donation your app made.
    /// - Returns: how many were withdrawn.
    /// - Throws: ``JournalingSuggestionsError``.
    @discardableResult
    public func withdrawAll() async throws(JournalingSuggestionsError) -> Int {
        try await withdrawn(WithdrawDonationsRequest(all: true))
    }

    private func withdrawn(_ request: WithdrawDonationsRequest) async throws(JournalingSuggestionsError) -> Int {
        guard case .withdrawDonationsReply(let reply) = try await send(.withdrawDonations(request), files: []) else {
            throw JournalingSuggestionsError(code: .failed, message: "pickerd sent an unexpected reply")
        }
        return Int(reply.withdrawn)
    }

    /// Opens the files read-only, sends the request with them on a connection of its own (off the
    /// caller's thread: the socket is blocking), and returns the reply.
    private func send(_ body: Envelope.Body, files: [URL]) async throws(JournalingSuggestionsError) -> Envelope.Body {
        let runtimeDirectory = runtimeDirectory
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Envelope.Body, JournalingSuggestionsError>, Never>) in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(JournalingSuggestionsError) in
                    try Self.sendBlocking(body, files: files, runtimeDirectory: runtimeDirectory)
                })
            }
            thread.name = "JournalingSuggestionsDonations"
            thread.start()
        }
        return try result.get()
    }

    private static func sendBlocking(_ body: Envelope.Body, files: [URL], runtimeDirectory: String?) throws(JournalingSuggestionsError) -> Envelope.Body {
        var descriptors: [FileDescriptor] = []
        defer { for descriptor in descriptors { try? descriptor.close() } }
        for file in files {
            let fd = open(file.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw JournalingSuggestionsError(code: .failed, message: "cannot open \(file.path): \(String(cString: strerror(errno)))")
            }
            descriptors.append(FileDescriptor(rawValue: fd))
        }
        do {
            let paths = try PickerdPaths.resolve(runtimeDirectory: runtimeDirectory)
            let client = try ProtocolClient(path: paths.clientSocket, role: .client, software: "JournalingSuggestions")
            defer { client.close() }
            let frame = try client.request(body, descriptors: descriptors)
            guard let reply = frame.envelope.body else { throw JournalingSuggestionsError(code: .failed, message: "pickerd sent an empty reply") }
            return reply
        } catch let error as JournalingSuggestionsError {
            throw error
        } catch {
            throw JournalingSuggestionsPicker.map(error)
        }
    }
}
