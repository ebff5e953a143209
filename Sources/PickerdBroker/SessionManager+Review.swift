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
    /// Sends the agent the app's approval, the consent sheet, or the suggestions, for one session.
    func startReview(_ handle: String, on agent: FrameConnection) {
        if askApproval(handle, on: agent) { return }
        do {
            let consented = try store.consentDate() != nil
            var request = ReviewRequest(sessionHandle: handle, consentNeeded: !consented,
                                        showPrivacyBanner: !(try store.privacyBannerDismissed()),
                                        categories: try store.categorySettings())
            var first: FirstPage?
            var preloaded: ListedSuggestion?
            var enabled: Set<PickerdWire.Category> = []
            if consented {
                enabled = try store.enabledCategories()
                first = try builder.firstPage(from: store, enabled: enabled, now: configuration.clock.now().unixMs,
                                                     pageSize: Self.pageSize)
                // A token preloads its suggestion; an unknown one opens the normal picker. The
                // client sees the same replies either way.
                let token = state.withLock { $0.sessions[handle]?.token } ?? ""
                if let id = UUID(uuidString: token) { preloaded = try builder.listed(id: id, from: store, enabled: enabled) }
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
                    firstRun.say(logger)
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

}
