import Foundation
import Logging
import PickerdImport
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

extension SessionManager {
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
    /// Allow is remembered (``Broker/allowApp(_:in:logger:)``) and the review goes on: a new ReviewRequest,
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
            reply(agent, requestID, .error(ErrorInfo(code: .notFound,
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
            try Broker.allowApp(app, in: store, logger: logger)
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
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no session \(decision.sessionHandle) awaits consent from this agent")))
            return
        }
        do {
            switch decision.answer {
            case .accept, .customize:
                if decision.answer == .customize { try store.setCategories(decision.categories) }
                try store.recordConsent(at: Self.now())
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
        if decision.privacyBannerDismissed { try? store.dismissPrivacyBanner() }
        switch decision.decision {
        case .approve(let approval)?:
            guard let shown = session.shown[approval.suggestionId] else {
                reply(agent, requestID, .error(ErrorInfo(code: .invalidArgument, message: "suggestion \(approval.suggestionId) was not shown")))
                return
            }
            let allowed = Set(shown.items.map(\.id.uuidString))
            guard !approval.keptItemIds.isEmpty, approval.keptItemIds.allSatisfy(allowed.contains) else {
                reply(agent, requestID, .error(ErrorInfo(code: .invalidArgument,
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
                    page = try builder.recentPage(from: store, enabled: session.enabled, offset: from,
                                                         limit: min(limit, session.recentTotal - from))
                        .filter { !session.recentSent.contains($0.suggestion.id.uuidString) }
                    from += limit
                }
            } catch {
                self.reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
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
                self.reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "the session ended")))
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
        self.reply(agent, requestID, .suggestionsPageReply(reply))
    }

    /// The session `handle` when `agent` has it under review (past the app's approval and consent); otherwise the agent
    /// is answered NOT_FOUND and the result is `nil`.
    private func underReview(_ handle: String, by agent: FrameConnection, requestID: UInt64) -> Session? {
        let session = state.withLock { state -> Session? in
            guard let s = state.sessions[handle], s.agent == ObjectIdentifier(agent), !s.awaitingConsent, s.approval == nil else { return nil }
            return s
        }
        if session == nil {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no session \(handle) is under review by this agent")))
        }
        return session
    }

    /// pickerd's copy of suggestion `id` as session `handle` showed it to `agent` (past consent), or
    /// `nil`: what an agent's request about a suggestion ("Another prompt", a hide, naming a place)
    /// may act on, and no more.
    func shown(_ id: String, in handle: String, to agent: FrameConnection) -> ListedSuggestion? {
        state.withLock { state in
            guard let s = state.sessions[handle], s.agent == ObjectIdentifier(agent), !s.awaitingConsent else { return nil }
            return s.shown[id]
        }
    }

    /// Media of an item the agent was shown, as sealed read-only copies, for previews.
    func fetchMedia(from agent: FrameConnection, requestID: UInt64, _ request: FetchMediaRequest) {
        let item = state.withLock { state -> LibraryItem? in
            guard let s = state.sessions[request.sessionHandle], s.agent == ObjectIdentifier(agent) else { return nil }
            return s.shown.values.lazy.flatMap(\.items).first { $0.id.uuidString == request.itemId }
        }
        guard let item else {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "item \(request.itemId) was not shown in that session")))
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
                        try self.media.open(stored).close()
                        let preview: (path: String, byteCount: UInt64)
                        do {
                            preview = try ThumbnailCache(dataDirectory: store.dataDirectory).preview(of: stored, itemID: item.id, slot: index,
                                                                                                        reading: readers)
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
                        files.append(try self.media.sealedCopy(stored))
                    }
                    media.append(m)
                }
            } catch let unavailable as MediaUnavailable {
                reply(agent, requestID, .fetchMediaReply(FetchMediaReply(itemId: request.itemId, unavailable: unavailable.reason)))
                return
            }
            try agent.send(Envelope(requestId: requestID, body: .fetchMediaReply(FetchMediaReply(itemId: request.itemId, media: media))),
                           descriptors: files.compactMap(\.descriptor))
        } catch {
            reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
        }
    }

    /// "Another prompt": swaps a reflection prompt of a suggestion the agent was shown for the next
    /// one of the library (in a stable order, round the end), and sends the agent the new item. From
    /// then on the new item, not the old, is what the person may keep.
    func cyclePrompt(from agent: FrameConnection, requestID: UInt64, _ request: CyclePromptRequest) {
        let shown = self.shown(request.suggestionId, in: request.sessionHandle, to: agent)
        guard let shown, let index = shown.items.firstIndex(where: { $0.id.uuidString == request.itemId }),
              case .reflection = shown.items[index].asset else {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound,
                                                            message: "no reflection prompt \(request.itemId) was shown in that suggestion")))
            return
        }
        do {
            guard try store.enabledCategories().contains(.reflectionPrompts) else {
                reply(agent, requestID, .error(ErrorInfo(code: .failedPrecondition, message: "reflection prompts are off")))
                return
            }
            let inSuggestion = Set(shown.items.map(\.id))
            let prompts = try store.reflectionPromptIDs()
            let current = shown.items[index]
            let after = prompts.drop { $0.orderKey <= current.id.orderKey } + prompts
            guard let nextID = after.first(where: { !inSuggestion.contains($0) }), let next = try store.items([nextID]).first else {
                reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "there is no other prompt")))
                return
            }
            let swapped = state.withLock { state -> String? in
                guard var listed = state.sessions[request.sessionHandle]?.shown[request.suggestionId],
                      listed.items.indices.contains(index), listed.items[index].id == current.id else { return nil }
                listed.items[index] = next
                listed.suggestion.itemIDs = listed.items.map(\.id)
                // The title is made again: a reflection's title is its prompt.
                listed.suggestion.title = builder.title(listed.suggestion.kind, listed.items)
                state.sessions[request.sessionHandle]?.shown[request.suggestionId] = listed
                return listed.suggestion.title
            }
            guard let title = swapped else {
                reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "the session ended")))
                return
            }
            reply(agent, requestID, .cyclePromptReply(CyclePromptReply(item: next.wireItem, title: title)))
        } catch {
            reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
        }
    }

}
