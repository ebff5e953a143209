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
    private let brokerReference = Mutex<Broker?>(nil)
    private var broker: Broker { brokerReference.withLock { $0! } }
    private let state = Mutex(State())
    private let logger: Logger

    private struct Session {
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

    private struct Agent {
        let connection: FrameConnection
        let kind: AgentKind
        var sessions: Set<String> = []
        /// A terminal picker: it draws on its session's terminal.
        var terminal: Bool { kind == .terminal }
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var agents: [ObjectIdentifier: Agent] = [:]
        var spawning = false
        var shuttingDown = false
        var sequence = 0
    }

    /// Something to send once the lock is released.
    private enum Send {
        case outcome(FrameConnection, UInt64, String, Outcome.Result)
        case dismiss(FrameConnection, UInt64, String, DismissReason)
    }

    init(broker: Broker?, logger: Logger) {
        self.logger = logger
    }

    /// Ties the manager to its broker (which owns it) once the broker is built.
    func attach(_ broker: Broker) {
        brokerReference.withLock { $0 = broker }
    }

    var activeSessions: Int { state.withLock { $0.sessions.count } }
    var registeredAgents: Int { state.withLock { $0.agents.count } }

    /// Whether `client` has a presentation open (its connection then waits, idle, for the outcome).
    func hasPresentation(from client: FrameConnection) -> Bool {
        state.withLock { $0.sessions.values.contains { $0.client === client } }
    }

    // MARK: Client side

    /// A present request from an entitled app. Answers `PresentAccepted` (or an error) at once.
    ///
    /// A presentation that brings its terminal goes to a terminal picker of its own (started with
    /// the terminal agent command), which draws on that terminal. Any other goes to the least busy
    /// registered general agent (automation); when there is none and the person's session has a
    /// display, to a desktop picker of its own (started with the desktop agent command), which shows
    /// it in a window; otherwise to an agent started with the agent command.
    /// - Parameters:
    ///   - client: the app's connection, which hears the outcome.
    ///   - requestID: the present request's id; the outcome answers it.
    ///   - app: the registered app the caller was matched to.
    ///   - request: what the app asked for (button title, token, terminal).
    ///   - terminal: the app's terminal, checked, for a terminal picker.
    ///   - approval: `nil` when the app may present; otherwise the picker first asks the person to
    ///     allow it (see ``approve(from:requestID:_:)``).
    func present(client: FrameConnection, requestID: UInt64, app: AppManifest, request: PresentRequest, terminal: OwnedFileDescriptor?,
                 approval: AppApprovalRequest? = nil) {
        let handle = UUID().uuidString
        let configuration = broker.configuration
        // Without a terminal picker to start, a handed-over terminal is simply not used.
        let terminal = configuration.terminalAgentCommand.isEmpty ? nil : terminal
        let desktopPossible = terminal == nil && configuration.display != nil && !configuration.desktopAgentCommand.isEmpty
        enum Decision { case busy, noPicker, shuttingDown, assigned(FrameConnection), waitForAgent(spawn: [String]?, kind: AgentKind) }
        let decision = state.withLock { state -> Decision in
            if state.shuttingDown { return .shuttingDown }
            // One picker per app at a time, as on Apple's systems: whichever connection asks.
            if state.sessions.values.contains(where: { $0.app.bundleId == app.bundleId }) { return .busy }
            state.sequence += 1
            var session = Session(handle: handle, client: client, requestID: requestID, app: app, buttonTitle: request.buttonTitle,
                                  token: request.suggestionToken, approval: approval, terminal: terminal,
                                  terminalType: request.terminalType, parentWindow: request.parentWindow, sequence: state.sequence)
            // A one-presentation picker (terminal, desktop) is always started for its presentation.
            let candidates = state.agents.filter { terminal == nil && $0.value.kind == .general }
            guard let agentID = candidates.min(by: { $0.value.sessions.count < $1.value.sessions.count })?.key else {
                if terminal != nil {
                    state.sessions[handle] = session
                    return .waitForAgent(spawn: configuration.terminalAgentCommand, kind: .terminal)
                }
                if desktopPossible {
                    session.desktop = true
                    state.sessions[handle] = session
                    return .waitForAgent(spawn: configuration.desktopAgentCommand, kind: .desktop)
                }
                guard !configuration.agentCommand.isEmpty else { return .noPicker }
                state.sessions[handle] = session
                let spawn = !state.spawning
                state.spawning = true
                return .waitForAgent(spawn: spawn ? configuration.agentCommand : nil, kind: .general)
            }
            session.agent = agentID
            state.sessions[handle] = session
            state.agents[agentID]?.sessions.insert(handle)
            return .assigned(state.agents[agentID]!.connection)
        }
        switch decision {
        case .busy:
            broker.reply(client, requestID, .error(ErrorInfo(code: .busy, message: "\(app.displayName) already has a presentation in progress (one picker per app at a time)")))
        case .noPicker:
            broker.reply(client, requestID, .error(ErrorInfo(code: .noPickerAvailable,
                                                             message: "no picker agent is registered and pickerd has no agent command to start one")))
        case .shuttingDown:
            broker.reply(client, requestID, .error(ErrorInfo(code: .noPickerAvailable, message: "pickerd is shutting down")))
        case .assigned(let agent):
            broker.reply(client, requestID, .presentAccepted(PresentAccepted(sessionHandle: handle)))
            logger.info("presentation", metadata: ["session": "\(handle)", "app": "\(app.bundleId)", "terminal": "\(terminal != nil)",
                                                   "approval": "\(approval == nil ? "not needed" : "asked")"])
            startReview(handle, on: agent)
        case .waitForAgent(let spawn, let kind):
            broker.reply(client, requestID, .presentAccepted(PresentAccepted(sessionHandle: handle)))
            let what = switch kind {
            case .terminal: "a terminal picker"
            case .desktop: "the desktop picker"
            case .general: "a picker agent"
            }
            logger.info("presentation waits for a picker agent", metadata: ["session": "\(handle)", "app": "\(app.bundleId)",
                                                                            "picker": "\(what)", "approval": "\(approval == nil ? "not needed" : "asked")"])
            if let spawn {
                // A picker that ends before it takes its presentation (a desktop picker that cannot
                // open the display) fails that presentation at once, with the reason.
                // (A general agent that ends is not waited for: another may yet register.)
                var exited: (@Sendable (Int32) -> Void)?
                if kind.servesOne {
                    exited = { [self] status in strand(handle, "\(what) ended before it showed (exit status \(status))") }
                }
                Launcher.launch(spawn, runtimeDirectory: configuration.paths.runtimeDirectory, what: what, logger: logger, exited: exited)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + configuration.agentStartTimeout) { [self] in
                strand(handle, "\(what) did not start")
            }
        }
    }

    /// Fails presentation `handle` with `message` if it still has no agent.
    private func strand(_ handle: String, _ message: String) {
        let stranded = state.withLock { state -> Session? in
            guard let s = state.sessions[handle], s.agent == nil else { return nil }
            state.sessions[handle] = nil
            if s.pickerKind == .general { state.spawning = false }
            return s
        }
        if let stranded {
            logger.notice("presentation failed: no picker", metadata: ["session": "\(handle)", "reason": "\(message)"])
            perform([.outcome(stranded.client, stranded.requestID, handle, .error(ErrorInfo(code: .noPickerAvailable, message: message)))])
        }
    }

    /// The app withdraws its presentation.
    func close(client: FrameConnection, requestID: UInt64, handle: String) {
        let sends = state.withLock { state -> [Send]? in
            guard let session = state.sessions[handle], session.client === client else { return nil }
            return end(&state, handle, outcome: .dismissed(Dismissed(reason: .clientClosed)), dismiss: .clientClosed)
        }
        guard let sends else {
            broker.reply(client, requestID, .error(ErrorInfo(code: .notFound, message: "no presentation \(handle) of this app")))
            return
        }
        perform(sends)
    }

    /// The app disconnected: its presentations end, and nothing will be sent to it.
    func clientGone(_ client: FrameConnection) {
        let sends = state.withLock { state -> [Send] in
            state.sessions.values.filter { $0.client === client }.map(\.handle).flatMap {
                end(&state, $0, outcome: nil, dismiss: .clientGone)
            }
        }
        perform(sends)
    }

    // MARK: Agent side

    /// A picker agent registered: it takes the presentations waiting for its kind (a terminal or
    /// desktop picker the oldest one of its kind; a general agent all that wait for one).
    func registerAgent(_ connection: FrameConnection, kind: AgentKind) {
        let waiting = state.withLock { state -> [String] in
            let id = ObjectIdentifier(connection)
            state.agents[id] = Agent(connection: connection, kind: kind)
            let unassigned = state.sessions.values.filter { $0.agent == nil && $0.pickerKind == kind }
                .sorted { $0.sequence < $1.sequence }.map(\.handle)
            let taken = kind.servesOne ? Array(unassigned.prefix(1)) : unassigned
            if kind == .general { state.spawning = false }
            for handle in taken {
                state.sessions[handle]?.agent = id
                state.agents[id]?.sessions.insert(handle)
            }
            return taken
        }
        for handle in waiting { startReview(handle, on: connection) }
    }

    func agentGone(_ connection: FrameConnection) {
        let sends = state.withLock { state -> [Send] in
            guard let agent = state.agents.removeValue(forKey: ObjectIdentifier(connection)) else { return [] }
            return agent.sessions.flatMap { end(&state, $0, outcome: .dismissed(Dismissed(reason: .agentGone)), dismiss: nil) }
        }
        perform(sends)
    }

    /// The person's answer about an app not yet allowed, from the agent the session was given.
    ///
    /// Allow is remembered (``Broker/allowApp(_:)``) and the review goes on: a new ReviewRequest,
    /// with the consent sheet or the lists. Don't Allow ends the presentation: the app hears
    /// NOT_ENTITLED, the agent a Dismiss, and nothing is remembered (the next presentation asks
    /// again). An answer for a session that is not awaiting one from this agent gets NOT_FOUND.
    func approve(from agent: FrameConnection, requestID: UInt64, _ decision: AppApprovalDecision) {
        let session = state.withLock { state -> Session? in
            guard let s = state.sessions[decision.sessionHandle], s.agent == ObjectIdentifier(agent), s.awaitingApproval else { return nil }
            state.sessions[decision.sessionHandle]?.awaitingApproval = false
            if decision.allow { state.sessions[decision.sessionHandle]?.approval = nil }
            return s
        }
        guard let session else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound,
                                                            message: "no session \(decision.sessionHandle) awaits the approval of its app from this agent")))
            return
        }
        let app = session.app
        guard decision.allow else {
            logger.notice("the person did not allow an app", metadata: ["session": "\(session.handle)", "app": "\(app.bundleId)"])
            let refusal = ErrorInfo(code: .notEntitled, message: "the person did not allow \(app.displayName) to show journaling suggestions")
            let sends = state.withLock { end(&$0, session.handle, outcome: .error(refusal), dismiss: .appNotAllowed) }
            perform(sends)
            return
        }
        do {
            try broker.allowApp(app)
        } catch {
            fail(session.handle, error)
            return
        }
        logger.notice("the person allowed an app", metadata: ["session": "\(session.handle)", "app": "\(app.bundleId)",
                                                             "kind": "\(session.approval?.kind ?? .unspecified)"])
        startReview(session.handle, on: agent)
    }

    /// Consent on the first presentation: recorded once per device.
    func consent(from agent: FrameConnection, requestID: UInt64, _ decision: ConsentDecision) {
        let known = state.withLock { state -> Bool in
            guard let s = state.sessions[decision.sessionHandle], s.agent == ObjectIdentifier(agent), s.awaitingConsent else { return false }
            state.sessions[decision.sessionHandle]?.awaitingConsent = false
            return true
        }
        guard known else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no session \(decision.sessionHandle) awaits consent from this agent")))
            return
        }
        do {
            switch decision.answer {
            case .accept, .customize:
                if decision.answer == .customize { try broker.store.setCategories(decision.categories) }
                try broker.store.recordConsent(at: Self.now())
                logger.info("consent given", metadata: ["customized": "\(decision.answer == .customize)"])
                startReview(decision.sessionHandle, on: agent)
            default:
                let sends = state.withLock { end(&$0, decision.sessionHandle, outcome: .dismissed(Dismissed(reason: .consentDeclined)), dismiss: nil) }
                perform(sends)
            }
        } catch {
            fail(decision.sessionHandle, error)
        }
    }

    /// The person's choice. Only ids the agent was shown are accepted; the result comes from the store.
    func decide(from agent: FrameConnection, requestID: UInt64, _ decision: ReviewDecision) {
        guard let session = underReview(decision.sessionHandle, by: agent, requestID: requestID) else { return }
        if decision.privacyBannerDismissed { try? broker.store.dismissPrivacyBanner() }
        switch decision.decision {
        case .approve(let approval)?:
            guard let shown = session.shown[approval.suggestionId] else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .invalidArgument, message: "suggestion \(approval.suggestionId) was not shown")))
                return
            }
            let allowed = Set(shown.items.map(\.id.uuidString))
            guard !approval.keptItemIds.isEmpty, approval.keptItemIds.allSatisfy(allowed.contains) else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .invalidArgument,
                                                                message: "kept items must be at least one of the suggestion's own")))
                return
            }
            release(session, shown: shown, approval: approval)
        default:
            let sends = state.withLock { end(&$0, session.handle, outcome: .cancelled(Cancelled()), dismiss: nil) }
            logger.info("cancelled by the person", metadata: ["session": "\(session.handle)"])
            perform(sends)
        }
    }

    /// The most suggestions a ReviewRequest or a page carries per list.
    static let pageSize = 50
    /// How many of Recommended count as seen when a review opens (what a screen shows).
    static let shownOnOpening = 6

    /// More of a list the agent's session began: at most ``pageSize`` suggestions from `offset`.
    func page(from agent: FrameConnection, requestID: UInt64, _ request: SuggestionsPageRequest) {
        guard let session = underReview(request.sessionHandle, by: agent, requestID: requestID) else { return }
        let limit = min(Int(request.limit == 0 ? UInt32(Self.pageSize) : request.limit), Self.pageSize)
        let reply: SuggestionsPageReply
        if request.list == .recent {
            // Read from the store's index: the offset within Recent as it stands now.
            let start = min(Int(request.offset), session.recentTotal)
            var page: [ListedSuggestion] = []
            do {
                // The agent's offset counts what it was sent; the store's counts what the person's
                // hidden rules left out too, so it is never behind: read from there, leave out what
                // was sent, and read on while a page brings nothing new.
                var from = start
                while page.isEmpty && from < session.recentTotal {
                    page = try broker.builder.recentPage(from: broker.store, enabled: session.enabled, offset: from,
                                                         limit: min(limit, session.recentTotal - from))
                        .filter { !session.recentSent.contains($0.suggestion.id.uuidString) }
                    from += limit
                }
            } catch {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
                return
            }
            let stillOpen = state.withLock { state -> Bool in
                guard state.sessions[request.sessionHandle] != nil else { return false }
                for listed in page {
                    state.sessions[request.sessionHandle]?.shown[listed.suggestion.id.uuidString] = listed
                    state.sessions[request.sessionHandle]?.recentSent.insert(listed.suggestion.id.uuidString)
                }
                return true
            }
            guard stillOpen else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "the session ended")))
                return
            }
            reply = SuggestionsPageReply(list: .recent, offset: UInt32(start), suggestions: page.map(\.wire), total: UInt32(session.recentTotal))
        } else {
            let order = session.recommended
            let start = min(Int(request.offset), order.count)
            let end = min(start + limit, order.count)
            reply = SuggestionsPageReply(list: .recommended, offset: UInt32(start),
                                         suggestions: order[start..<end].compactMap { session.shown[$0]?.wire }, total: UInt32(order.count))
        }
        broker.reply(agent, requestID, .suggestionsPageReply(reply))
    }

    /// The session `handle` when `agent` has it under review (past the app's approval and consent); otherwise the agent
    /// is answered NOT_FOUND and the result is `nil`.
    private func underReview(_ handle: String, by agent: FrameConnection, requestID: UInt64) -> Session? {
        let session = state.withLock { state -> Session? in
            guard let s = state.sessions[handle], s.agent == ObjectIdentifier(agent), !s.awaitingConsent, s.approval == nil else { return nil }
            return s
        }
        if session == nil {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no session \(handle) is under review by this agent")))
        }
        return session
    }

    /// Media of an item the agent was shown, as sealed read-only copies, for previews.
    func fetchMedia(from agent: FrameConnection, requestID: UInt64, _ request: FetchMediaRequest) {
        let item = state.withLock { state -> LibraryItem? in
            guard let s = state.sessions[request.sessionHandle], s.agent == ObjectIdentifier(agent) else { return nil }
            return s.shown.values.lazy.flatMap(\.items).first { $0.id.uuidString == request.itemId }
        }
        guard let item else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "item \(request.itemId) was not shown in that session")))
            return
        }
        do {
            var files: [OwnedFileDescriptor] = []
            var media: [Media] = []
            do {
                for (index, stored) in item.media.enumerated() {
                    var m = stored.media(slot: index)
                    m.hasFd = true
                    if stored.isPersonsFile {
                        // A person's file is previewed by a small PNG made from it (a 12-megapixel
                        // HEIC is of no use to a terminal), once the file is checked to be the one indexed.
                        try open(stored).close()
                        let preview: (path: String, byteCount: UInt64)
                        do {
                            preview = try ThumbnailCache(dataDirectory: broker.store.dataDirectory).preview(of: stored, itemID: item.id, slot: index,
                                                                                                        reading: broker.readers)
                        } catch {
                            // No preview (a format FFmpeg cannot decode): the item is still the person's to add.
                            logger.notice("no preview", metadata: ["file": "\(stored.filename)", "error": "\(error)"])
                            m.hasFd = false
                            media.append(m)
                            continue
                        }
                        m.fdIndex = UInt32(files.count)
                        let fd = try FileDescriptor.open(preview.path, .readOnly, options: .closeOnExec)
                        defer { try? fd.close() }
                        files.append(try SealedMemoryFile.copy(from: fd, name: stored.filename + ".png"))
                        m.contentType = "image/png"
                        m.filename = stored.filename + ".png"
                        m.byteCount = preview.byteCount
                    } else {
                        m.fdIndex = UInt32(files.count)
                        files.append(try sealedCopy(stored))
                    }
                    media.append(m)
                }
            } catch let unavailable as MediaUnavailable {
                broker.reply(agent, requestID, .fetchMediaReply(FetchMediaReply(itemId: request.itemId, unavailable: unavailable.reason)))
                return
            }
            try agent.send(Envelope(requestId: requestID, body: .fetchMediaReply(FetchMediaReply(itemId: request.itemId, media: media))),
                           descriptors: files.compactMap(\.descriptor))
        } catch {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
        }
    }

    /// "Another prompt": swaps a reflection prompt of a suggestion the agent was shown for the next
    /// one of the library (in a stable order, round the end), and sends the agent the new item. From
    /// then on the new item, not the old, is what the person may keep.
    func cyclePrompt(from agent: FrameConnection, requestID: UInt64, _ request: CyclePromptRequest) {
        let shown = state.withLock { state -> ListedSuggestion? in
            guard let s = state.sessions[request.sessionHandle], s.agent == ObjectIdentifier(agent), !s.awaitingConsent else { return nil }
            return s.shown[request.suggestionId]
        }
        guard let shown, let index = shown.items.firstIndex(where: { $0.id.uuidString == request.itemId }),
              case .reflection = shown.items[index].asset else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound,
                                                            message: "no reflection prompt \(request.itemId) was shown in that suggestion")))
            return
        }
        do {
            let store = broker.store
            guard try store.enabledCategories().contains(.reflectionPrompts) else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .failedPrecondition, message: "reflection prompts are off")))
                return
            }
            let inSuggestion = Set(shown.items.map(\.id))
            let prompts = try store.reflectionPromptIDs()
            let current = shown.items[index]
            let after = prompts.drop { $0.uuidString <= current.id.uuidString } + prompts
            guard let nextID = after.first(where: { !inSuggestion.contains($0) }), let next = try store.items([nextID]).first else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "there is no other prompt")))
                return
            }
            let swapped = state.withLock { state -> String? in
                guard var listed = state.sessions[request.sessionHandle]?.shown[request.suggestionId],
                      listed.items.indices.contains(index), listed.items[index].id == current.id else { return nil }
                listed.items[index] = next
                listed.suggestion.itemIDs = listed.items.map(\.id)
                // The title is made again: a reflection's title is its prompt.
                listed.suggestion.title = broker.builder.title(listed.suggestion.kind, listed.items)
                state.sessions[request.sessionHandle]?.shown[request.suggestionId] = listed
                return listed.suggestion.title
            }
            guard let title = swapped else {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "the session ended")))
                return
            }
            broker.reply(agent, requestID, .cyclePromptReply(CyclePromptReply(item: next.wireItem, title: title)))
        } catch {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
        }
    }

    // MARK: Hiding

    /// "Hide this suggestion" or "Show fewer like this" on a suggestion the agent was shown: the rule
    /// is made from pickerd's copy of it (HideChoice), stored with the settings, and remembered as
    /// this session's, so the picker may undo it while open.
    func hide(from agent: FrameConnection, requestID: UInt64, _ request: HideRequest) {
        let shown = state.withLock { state -> ListedSuggestion? in
            guard let s = state.sessions[request.sessionHandle], s.agent == ObjectIdentifier(agent), !s.awaitingConsent else { return nil }
            return s.shown[request.suggestionId]
        }
        guard let shown else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no suggestion \(request.suggestionId) was shown in that session")))
            return
        }
        switch HideChoice.rule(request, shown: shown, builder: broker.builder) {
        case .refused(let error):
            broker.reply(agent, requestID, .error(error))
        case .rule(let target, let description):
            do {
                let rule = try broker.store.addHiddenRule(StoredHiddenRule(target: target, createdMs: broker.configuration.clock.now().unixMs))
                state.withLock { _ = $0.sessions[request.sessionHandle]?.madeRules.insert(rule.id) }
                logger.info("hidden in the picker", metadata: ["session": "\(request.sessionHandle)", "rule": "\(rule.id)"])
                broker.reply(agent, requestID, .hideReply(HideReply(rule: rule.wire(timeZone: TimeZone.current), description: description)))
            } catch {
                broker.reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
            }
        }
    }

    /// Undoes a rule this session made (only those: a picker cannot remove the person's others).
    func unhide(from agent: FrameConnection, requestID: UInt64, _ request: UnhideRequest) {
        let id = Int64(clamping: request.ruleId)
        let made = state.withLock { state -> Bool in
            guard let s = state.sessions[request.sessionHandle], s.agent == ObjectIdentifier(agent) else { return false }
            return s.madeRules.contains(id)
        }
        guard made else {
            broker.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "this picker made no hidden rule \(request.ruleId)")))
            return
        }
        do {
            let removed = try broker.store.removeHiddenRule(id: id)
            state.withLock { _ = $0.sessions[request.sessionHandle]?.madeRules.remove(id) }
            logger.info("hiding undone in the picker", metadata: ["session": "\(request.sessionHandle)", "rule": "\(id)"])
            broker.reply(agent, requestID, .hideReply(HideReply(rule: removed.wire(timeZone: TimeZone.current), description: "Shown again")))
        } catch {
            broker.reply(agent, requestID, .error(ErrorInfo(code: error.code == .notFound ? .notFound : .storage, message: error.message)))
        }
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
    private func end(_ state: inout State, _ handle: String, outcome: Outcome.Result?, dismiss: DismissReason?) -> [Send] {
        guard let session = state.sessions.removeValue(forKey: handle) else { return [] }
        var sends: [Send] = []
        if let agentID = session.agent, let agent = state.agents[agentID] {
            state.agents[agentID]?.sessions.remove(handle)
            if let dismiss { sends.append(.dismiss(agent.connection, session.requestID, handle, dismiss)) }
        }
        if let outcome { sends.append(.outcome(session.client, session.requestID, handle, outcome)) }
        return sends
    }

    private func perform(_ sends: [Send]) {
        for send in sends {
            switch send {
            case .outcome(let client, let id, let handle, let result):
                broker.reply(client, id, .outcome(Outcome(sessionHandle: handle, result: result)))
            case .dismiss(let agent, let id, let handle, let reason):
                broker.reply(agent, id, .dismiss(Dismiss(sessionHandle: handle, reason: reason)))
            }
        }
    }

    private func fail(_ handle: String, _ error: any Error) {
        logger.error("session failed", metadata: ["session": "\(handle)", "error": "\(error)"])
        let code: ErrorCode = error is StoreError ? .storage : error is NothingReleasable ? .failedPrecondition : .internal
        let sends = state.withLock { end(&$0, handle, outcome: .error(ErrorInfo(code: code, message: "\(error)")), dismiss: .unspecified) }
        perform(sends)
    }

    /// Sends the agent the app's approval, the consent sheet, or the suggestions, for one session.
    private func startReview(_ handle: String, on agent: FrameConnection) {
        if askApproval(handle, on: agent) { return }
        do {
            let store = broker.store
            let consented = try store.consentDate() != nil
            var request = ReviewRequest(sessionHandle: handle, consentNeeded: !consented,
                                        showPrivacyBanner: !(try store.privacyBannerDismissed()),
                                        categories: try store.categorySettings())
            var first: FirstPage?
            var preloaded: ListedSuggestion?
            var enabled: Set<PickerdWire.Category> = []
            if consented {
                enabled = try store.enabledCategories()
                first = try broker.builder.firstPage(from: store, enabled: enabled, now: broker.configuration.clock.now().unixMs,
                                                     pageSize: Self.pageSize)
                // A token preloads its suggestion; an unknown one opens the normal picker. The
                // client sees the same replies either way.
                let token = state.withLock { $0.sessions[handle]?.token } ?? ""
                if let id = UUID(uuidString: token) { preloaded = try broker.builder.listed(id: id, from: store, enabled: enabled) }
            }
            // The session as it now stands, and whether its agent is a terminal picker (the only kind
            // that may receive the app's terminal).
            let found = state.withLock { state -> (Session, Bool)? in
                guard var s = state.sessions[handle] else { return nil }
                s.awaitingConsent = !consented
                if let first {
                    s.enabled = enabled
                    for listed in first.recommended + first.recent + (preloaded.map { [$0] } ?? []) {
                        s.shown[listed.suggestion.id.uuidString] = listed
                    }
                    s.recommended = first.recommended.map(\.suggestion.id.uuidString)
                    s.recentTotal = first.recentTotal
                    s.recentSent = Set(first.recent.prefix(Self.pageSize).map(\.suggestion.id.uuidString))
                }
                state.sessions[handle] = s
                return (s, state.agents[ObjectIdentifier(agent)]?.terminal ?? false)
            }
            guard let (session, agentDrawsOnTerminal) = found else { return }
            request.appDisplayName = session.app.displayName
            request.appBundleId = session.app.bundleId
            request.buttonTitle = session.buttonTitle.isEmpty ? "Add to \(session.app.displayName)" : session.buttonTitle
            if let first {
                // A first page of each: no frame grows with the library.
                request.recommended = first.recommended.prefix(Self.pageSize).map(\.wire)
                request.recent = first.recent.map(\.wire)
                request.recommendedTotal = UInt32(first.recommended.count)
                request.recentTotal = UInt32(first.recentTotal)
                // Nothing to show: no data at all (the picker says how to add some), or the person's
                // categories hide it all. The store keeps its count, so this costs one row's read.
                if first.recommended.isEmpty && first.recentTotal == 0, try store.suggestionCount() == 0 {
                    request.libraryEmpty = true
                    broker.firstRun.say(logger)
                }
                if let preloaded {
                    request.preloadedSuggestionId = preloaded.suggestion.id.uuidString
                    request.preloaded = preloaded.wire
                }
            }
            let descriptors = placePicker(of: session, in: &request, agentDrawsOnTerminal: agentDrawsOnTerminal)
            try agent.send(Envelope(requestId: session.requestID, body: .review(request)), descriptors: descriptors)
            // What the person sees first was shown once more: rotation lowers it a little, so the
            // same moments are not recommended for ever.
            // Rotation is a preference: a store that cannot record it (a full disk) fails no review.
            if let first {
                do {
                    try store.markShown(first.recommended.prefix(Self.shownOnOpening).map(\.suggestion.id))
                } catch {
                    logger.warning("could not record what was shown", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            fail(handle, error)
        }
    }

    /// Says where the picker appears, for the approval question and the review alike: over the app's
    /// window (for a desktop picker), or on the app's terminal, attached for an agent that draws on it
    /// (the terminal picker).
    /// - Returns: the descriptors the frame carries.
    private func placePicker(of session: Session, in request: inout ReviewRequest, agentDrawsOnTerminal: Bool) -> [FileDescriptor] {
        request.parentWindow = session.parentWindow
        guard let terminal = session.terminal?.descriptor, agentDrawsOnTerminal else { return [] }
        request.hasTerminal = true
        request.terminalFdIndex = 0
        request.terminalType = session.terminalType
        return [terminal]
    }

    /// When the session's app is not yet allowed, asks the agent to ask the person, before anything
    /// else (the lists stay empty: nothing of the person's is shown for an app they have not allowed).
    /// - Returns: whether it asked (or the session is gone); `false` when the app may present.
    private func askApproval(_ handle: String, on agent: FrameConnection) -> Bool {
        enum Step { case gone, allowed, ask(Session, AppApprovalRequest, terminal: Bool) }
        let step = state.withLock { state -> Step in
            guard let s = state.sessions[handle] else { return .gone }
            guard let approval = s.approval else { return .allowed }
            state.sessions[handle]?.awaitingApproval = true
            return .ask(s, approval, terminal: state.agents[ObjectIdentifier(agent)]?.terminal ?? false)
        }
        guard case .ask(let session, let approval, let agentDrawsOnTerminal) = step else {
            if case .gone = step { return true }
            return false
        }
        var request = ReviewRequest(sessionHandle: handle, appDisplayName: session.app.displayName, appBundleId: session.app.bundleId,
                                    buttonTitle: session.buttonTitle.isEmpty ? "Add to \(session.app.displayName)" : session.buttonTitle,
                                    appApprovalNeeded: true, appOrigin: approval.origin, appKind: approval.kind)
        let descriptors = placePicker(of: session, in: &request, agentDrawsOnTerminal: agentDrawsOnTerminal)
        do {
            try agent.send(Envelope(requestId: session.requestID, body: .review(request)), descriptors: descriptors)
        } catch {
            fail(handle, error)
        }
        return true
    }

    /// Builds the approved suggestion from the store, sends it with sealed media, records the release.
    private func release(_ session: Session, shown: ListedSuggestion, approval: Approval) {
        do {
            let store = broker.store
            let enabled = try store.enabledCategories()
            let kept = Set(approval.keptItemIds.compactMap(UUID.init(uuidString:)))
            // From pickerd's own store, in the suggestion's order, settings applied once more.
            let candidates = try store.items(shown.items.map(\.id).filter(kept.contains))
                .filter { enabled.contains($0.kind.category) && !$0.excludedFromSuggestions }
            guard !candidates.isEmpty else { throw BrokerError("none of the kept items can be released") }
            // Location data leaves only with a place the person kept: a photo's GPS, a workout's route.
            let placeApproved = candidates.contains { $0.kind == .location || $0.kind == .locationGroup }
            var descriptors: [OwnedFileDescriptor] = []
            var wireItems: [Item] = []
            var leftOut: [String] = []
            for item in candidates {
                let first = descriptors.count
                let copies: [OwnedFileDescriptor]
                do {
                    copies = try item.media.map { placeApproved ? try sealedCopy($0) : try redactedCopy($0) }
                } catch let unavailable as MediaUnavailable {
                    // The person's file changed or went since it was indexed: not what they saw, so it stays.
                    leftOut.append(unavailable.reason)
                    continue
                } catch let refused as ExifRedactor.NotRedactable {
                    // Without its place the file may leave only with no location in it: a type that
                    // cannot be redacted stays (redaction fails closed).
                    leftOut.append("\(item.media.first?.filename ?? "a file"): \(refused)")
                    continue
                } catch let unreadable as ExifRedactor.Unreadable {
                    leftOut.append("\(item.media.first?.filename ?? "a file"): its metadata cannot be read to remove its place (\(unreadable))")
                    continue
                }
                descriptors += copies
                let asset = item.asset.mappingMedia { media in
                    var m = media
                    m.fdIndex = UInt32(first) + media.fdIndex
                    m.hasFd = true
                    return m
                }
                wireItems.append(Item(id: item.id.uuidString, asset: placeApproved ? asset : RouteRedactor.strippingRoutes(asset)))
            }
            if !leftOut.isEmpty {
                logger.notice("left out of a release", metadata: ["session": "\(session.handle)", "why": "\(leftOut)"])
            }
            let releasedIDs = Set(wireItems.map(\.id))
            let items = candidates.filter { releasedIDs.contains($0.id.uuidString) }
            guard !items.isEmpty else { throw NothingReleasable() }
            // An unedited title is made again from what was kept: it must not name a person or a
            // place the person left out ("Evening with Maya at Via Carota" without Maya), nor an
            // event none of the kept items lies within.
            let title = approval.titleEdited ? approval.title : broker.builder.title(of: shown, kept: items)
            let suggestion = Suggestion(title: title,
                                        date: PickerdWire.DateInterval(startUnixMs: items.map(\.startMs).min()!, endUnixMs: items.map(\.endMs).max()!),
                                        items: wireItems)
            // The session ends first: a client that closes now gets nothing twice.
            let stillOpen = state.withLock { state -> Bool in
                guard state.sessions[session.handle] != nil else { return false }
                _ = end(&state, session.handle, outcome: nil, dismiss: nil)
                return true
            }
            guard stillOpen else { return }
            try session.client.send(Envelope(requestId: session.requestID, body: .outcome(Outcome(sessionHandle: session.handle,
                                                                                                  result: .approved(suggestion)))),
                                    descriptors: descriptors.compactMap(\.descriptor))
            try store.recordRelease(timeMs: Self.now(), bundleID: session.app.bundleId, appName: session.app.displayName,
                                    suggestionID: shown.suggestion.id.uuidString, title: title,
                                    items: items.map { ReleasedItem(itemId: $0.id.uuidString, kind: $0.kind.rawValue, summary: $0.summary) })
            do {
                try store.markReleased(shown.suggestion.id)
            } catch {
                logger.warning("could not lower a released suggestion's rank", metadata: ["error": "\(error)"])
            }
            logger.info("released", metadata: ["session": "\(session.handle)", "app": "\(session.app.bundleId)",
                                               "items": "\(items.count)", "media": "\(descriptors.count)"])
        } catch {
            fail(session.handle, error)
        }
    }

    private func sealedCopy(_ media: StoredMedia) throws -> OwnedFileDescriptor {
        let source = try open(media)
        defer { try? source.close() }
        return try SealedMemoryFile.copy(from: source, name: media.filename)
    }

    /// A sealed copy with location metadata removed, decided by the file's content
    /// (``ExifRedactor/strippingGPS(_:)``: JPEG with its appended images and motion-photo movies,
    /// PNG, TIFF and DNG, HEIC, QuickTime and MP4, WebP, GIF); a type it cannot redact throws.
    private func redactedCopy(_ media: StoredMedia) throws -> OwnedFileDescriptor {
        let source = try open(media)
        defer { try? source.close() }
        // A movie of gigabytes is redacted without reading its media data.
        if let copy = try LargeMovieRedaction.redactedCopy(of: source, name: media.filename) { return copy }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return try SealedMemoryFile.make(name: media.filename, contents: try ExifRedactor.strippingGPS(bytes))
    }

    /// Opens a media file for release or preview. A person's own file must be the one indexed: opened
    /// without following links, the descriptor's device, inode, size, mtime and ctime (read from it,
    /// so no rename in between can swap it) must be the index's (``PersonsFile``).
    /// - Throws: ``MediaUnavailable`` for a person's file changed or gone; other errors otherwise.
    private func open(_ media: StoredMedia) throws -> FileDescriptor {
        let path = broker.store.path(of: media)
        guard media.isPersonsFile else { return try FileDescriptor.open(path, .readOnly, options: .closeOnExec) }
        guard let raw = PersonsFile.open(path) else { throw MediaUnavailable(reason: PersonsFile.missing(media)) }
        let fd = FileDescriptor(rawValue: raw)
        let record: SourceFile?
        do {
            record = try broker.store.sourceFiles(paths: [path]).first
        } catch {
            try? fd.close()
            throw error
        }
        if let reason = PersonsFile.unavailability(of: media, record: record, descriptor: fd.rawValue) {
            try? fd.close()
            throw MediaUnavailable(reason: reason)
        }
        return fd
    }

    static func now() -> Int64 { Date().unixMs }
}
