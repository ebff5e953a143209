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
    // MARK: Hiding

    /// "Hide this suggestion" or "Show fewer like this" on a suggestion the agent was shown: the rule
    /// is made from pickerd's copy of it (HideChoice), stored with the settings, and remembered as
    /// this session's, so the picker may undo it while open.
    func hide(from agent: FrameConnection, requestID: UInt64, _ request: HideRequest) {
        let shown = self.shown(request.suggestionId, in: request.sessionHandle, to: agent)
        guard let shown else {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no suggestion \(request.suggestionId) was shown in that session")))
            return
        }
        switch HideChoice.rule(request, shown: shown, builder: builder) {
        case .refused(let error):
            reply(agent, requestID, .error(error))
        case .rule(let target, let description):
            do {
                let rule = try store.addHiddenRule(StoredHiddenRule(target: target, createdMs: configuration.clock.now().unixMs))
                state.withLock { _ = $0.sessions[request.sessionHandle]?.madeRules.insert(rule.id) }
                logger.info("hidden in the picker", metadata: ["session": "\(request.sessionHandle)", "rule": "\(rule.id)"])
                reply(agent, requestID, .hideReply(HideReply(rule: rule.wire(timeZone: TimeZone.current), description: description)))
            } catch {
                reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
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
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "this picker made no hidden rule \(request.ruleId)")))
            return
        }
        do {
            let removed = try store.removeHiddenRule(id: id)
            state.withLock { _ = $0.sessions[request.sessionHandle]?.madeRules.remove(id) }
            logger.info("hiding undone in the picker", metadata: ["session": "\(request.sessionHandle)", "rule": "\(id)"])
            reply(agent, requestID, .hideReply(HideReply(rule: removed.wire(timeZone: TimeZone.current), description: "Shown again")))
        } catch {
            reply(agent, requestID, .error(ErrorInfo(code: error.code == .notFound ? .notFound : .storage, message: error.message)))
        }
    }

}
