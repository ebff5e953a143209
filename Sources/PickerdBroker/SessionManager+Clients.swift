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
            reply(client, requestID, .error(ErrorInfo(code: .busy, message: "\(app.displayName) already has a presentation in progress (one picker per app at a time)")))
        case .noPicker:
            reply(client, requestID, .error(ErrorInfo(code: .noPickerAvailable,
                                                             message: "no picker agent is registered and pickerd has no agent command to start one")))
        case .shuttingDown:
            reply(client, requestID, .error(ErrorInfo(code: .noPickerAvailable, message: "pickerd is shutting down")))
        case .assigned(let agent):
            reply(client, requestID, .presentAccepted(PresentAccepted(sessionHandle: handle)))
            logger.info("presentation", metadata: ["session": "\(handle)", "app": "\(app.bundleId)", "terminal": "\(terminal != nil)",
                                                   "approval": "\(approval == nil ? "not needed" : "asked")"])
            startReview(handle, on: agent)
        case .waitForAgent(let spawn, let kind):
            reply(client, requestID, .presentAccepted(PresentAccepted(sessionHandle: handle)))
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
            reply(client, requestID, .error(ErrorInfo(code: .notFound, message: "no presentation \(handle) of this app")))
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

}
