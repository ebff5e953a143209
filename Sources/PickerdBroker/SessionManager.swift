import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

/// Presentations in flight: which client asked, which agent shows it, what the agent was shown.
///
/// All state sits behind one lock; messages are sent after it is released. The agent never sends
/// data back, only identifiers, and an outcome is built from pickerd's own store using only the
/// item ids the person kept, checked against what that agent was shown.
final class SessionManager: Sendable {
    // What pickerd's sessions use, passed in whole when the broker builds its manager (before the
    // broker itself is whole, so not the broker: nothing is attached later, nothing unwrapped).
    let configuration: Broker.Configuration
    let store: Store
    let builder: SuggestionBuilder
    /// The confined readers previews are made through.
    let readers: ReaderPool
    let firstRun: FirstRunNotice
    /// Media as it leaves pickerd: sealed copies, redacted unless the person kept a place.
    let media: SealedMedia
    /// Builds an approved suggestion from the store.
    let releases: ReleaseBuilder
    let state = Mutex(State())
    let logger: Logger

    struct Session {
        let handle: String
        let client: FrameConnection
        let requestID: UInt64
        let app: AppManifest
        let buttonTitle: String
        let token: String
        var agent: ObjectIdentifier?
        /// The person has yet to allow the app: asked before anything else (``AppApprovalRequest``).
        var approval: AppApprovalRequest?
        /// The agent was asked to approve the app and has not answered.
        var awaitingApproval = false
        var awaitingConsent = false
        /// Every suggestion the agent was sent (the first pages, and each page it asked for since).
        var shown: [String: ListedSuggestion] = [:]
        /// Recommended in order, by suggestion id (it is short: it is read whole).
        var recommended: [String] = []
        /// How long Recent is; its pages are read from the store's index as the agent scrolls.
        var recentTotal = 0
        /// The person's categories when the review began: every page follows them.
        var enabled: Set<PickerdWire.Category> = []
        /// The app's terminal, for a terminal picker to draw on (only a terminal agent gets it).
        var terminal: OwnedFileDescriptor?
        var terminalType = ""
        /// For a desktop picker of its own: no terminal, and the person's session has a display.
        var desktop = false
        /// The app's window, for the desktop picker to appear over.
        var parentWindow = ""
        /// The kind of picker this session waits for or has.
        var pickerKind: AgentKind { terminal != nil ? .terminal : desktop ? .desktop : .general }
        /// Order of arrival, so agents take waiting sessions first come, first served.
        var sequence = 0
        /// The suggestions of Recent sent so far: a page starts where the agent has got to, which
        /// hidden rules may put behind the store's offset, so what was sent is not sent again.
        var recentSent: Set<String> = []
        /// The hidden rules the person made in this picker: the ones it may undo while open.
        var madeRules: Set<Int64> = []
    }

    /// What kind of picker an agent is, by the capability it registered with.
    enum AgentKind: Sendable {
        /// Serves any number of presentations that bring no terminal (the scripted agent; a long-running picker).
        case general
        /// Serves one presentation, on the terminal that presentation brought (`picker-agent --tui`).
        case terminal
        /// Serves one presentation, in a window on the person's display (`picker-gtk`).
        case desktop

        /// Whether an agent of this kind serves one presentation only.
        var servesOne: Bool { self != .general }
    }

    struct Agent {
        let connection: FrameConnection
        let kind: AgentKind
        var sessions: Set<String> = []
        /// A terminal picker: it draws on its session's terminal.
        var terminal: Bool { kind == .terminal }
    }

    struct State {
        var sessions: [String: Session] = [:]
        var agents: [ObjectIdentifier: Agent] = [:]
        var spawning = false
        var shuttingDown = false
        var sequence = 0
    }

    /// Something to send once the lock is released.
    enum Send {
        case outcome(FrameConnection, UInt64, String, Outcome.Result)
        case dismiss(FrameConnection, UInt64, String, DismissReason)
    }

    /// Makes the manager of the broker's presentations.
    /// - Parameters:
    ///   - configuration: the broker's configuration (pickers' commands, the runtime directory, the clock).
    ///   - store: the store suggestions and items are read from, releases recorded in.
    ///   - builder: lists and titles suggestions.
    ///   - readers: the confined readers previews are made through.
    ///   - firstRun: says once how to fill an empty library.
    ///   - logger: where logs go.
    init(configuration: Broker.Configuration, store: Store, builder: SuggestionBuilder, readers: ReaderPool,
         firstRun: FirstRunNotice, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.builder = builder
        self.readers = readers
        self.firstRun = firstRun
        self.logger = logger
        media = SealedMedia(store: store)
        releases = ReleaseBuilder(store: store, builder: builder, media: media, logger: logger)
    }

    /// Answers one request of a client or agent (a peer gone meanwhile is logged, as the broker's replies are).
    func reply(_ connection: FrameConnection, _ id: UInt64, _ body: Envelope.Body) {
        Broker.reply(connection, id, body, logger: logger)
    }

    var activeSessions: Int { state.withLock { $0.sessions.count } }
    var registeredAgents: Int { state.withLock { $0.agents.count } }

    /// Whether `client` has a presentation open (its connection then waits, idle, for the outcome).
    func hasPresentation(from client: FrameConnection) -> Bool {
        state.withLock { $0.sessions.values.contains { $0.client === client } }
    }

    // MARK: Shutdown

    /// Every presentation ends dismissed (SHUTDOWN); agents are told.
    func shutdown() {
        let sends = state.withLock { state -> [Send] in
            state.shuttingDown = true
            return Array(state.sessions.keys).flatMap { end(&state, $0, outcome: .dismissed(Dismissed(reason: .shutdown)), dismiss: .shutdown) }
        }
        perform(sends)
    }

    // MARK: Internals

    /// Removes a session, returning what to tell its client and agent.
    func end(_ state: inout State, _ handle: String, outcome: Outcome.Result?, dismiss: DismissReason?) -> [Send] {
        guard let session = state.sessions.removeValue(forKey: handle) else { return [] }
        var sends: [Send] = []
        if let agentID = session.agent, let agent = state.agents[agentID] {
            state.agents[agentID]?.sessions.remove(handle)
            if let dismiss { sends.append(.dismiss(agent.connection, session.requestID, handle, dismiss)) }
        }
        if let outcome { sends.append(.outcome(session.client, session.requestID, handle, outcome)) }
        return sends
    }

    func perform(_ sends: [Send]) {
        for send in sends {
            switch send {
            case .outcome(let client, let id, let handle, let result):
                reply(client, id, .outcome(Outcome(sessionHandle: handle, result: result)))
            case .dismiss(let agent, let id, let handle, let reason):
                reply(agent, id, .dismiss(Dismiss(sessionHandle: handle, reason: reason)))
            }
        }
    }

    func fail(_ handle: String, _ error: any Error) {
        logger.error("session failed", metadata: ["session": "\(handle)", "error": "\(error)"])
        let code: ErrorCode = error is StoreError ? .storage : error is NothingReleasable ? .failedPrecondition : .internal
        let sends = state.withLock { end(&$0, handle, outcome: .error(ErrorInfo(code: code, message: "\(error)")), dismiss: .unspecified) }
        perform(sends)
    }

    /// Sends the agent the app's approval, the consent sheet, or the suggestions, for one session.

    /// Sends the approved suggestion (built from the store, ``ReleaseBuilder``) with its sealed media,
    /// and records the release.
    func release(_ session: Session, shown: ListedSuggestion, approval: Approval) {
        do {
            let approved = try releases.build(shown: shown, approval: approval, session: session.handle)
            // The session ends first: a client that closes now gets nothing twice.
            let stillOpen = state.withLock { state -> Bool in
                guard state.sessions[session.handle] != nil else { return false }
                _ = end(&state, session.handle, outcome: nil, dismiss: nil)
                return true
            }
            guard stillOpen else { return }
            // Recorded before it is sent: the history never misses what an app may have received (a
            // pickerd stopped as the app reads its outcome, a write waiting for another, lost it).
            try store.recordRelease(timeMs: Self.now(), bundleID: session.app.bundleId, appName: session.app.displayName,
                                    suggestionID: shown.suggestion.id.uuidString, title: approved.title,
                                    items: approved.items.map { ReleasedItem(itemId: $0.id.uuidString, kind: $0.kind.rawValue, summary: $0.summary) })
            try session.client.send(Envelope(requestId: session.requestID, body: .outcome(Outcome(sessionHandle: session.handle,
                                                                                                  result: .approved(approved.suggestion)))),
                                    descriptors: approved.descriptors.compactMap(\.descriptor))
            do {
                try store.markReleased(shown.suggestion.id)
            } catch {
                logger.warning("could not lower a released suggestion's rank", metadata: ["error": "\(error)"])
            }
            logger.info("released", metadata: ["session": "\(session.handle)", "app": "\(session.app.bundleId)",
                                               "items": "\(approved.items.count)", "media": "\(approved.descriptors.count)"])
        } catch {
            fail(session.handle, error)
        }
    }

    static func now() -> Int64 { Date().unixMs }
}
