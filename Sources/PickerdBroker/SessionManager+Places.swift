import Foundation
import Logging
import PickerdMoments
import PickerdStore
import PickerdTransport
import PickerdWire
import Synchronization

extension SessionManager {
    // MARK: Naming places

    /// "Name this place" on a visit of a suggestion the agent was shown: the place is pickerd's copy
    /// of that visit (never a coordinate from the picker), named as `pickerctl places name` names it
    /// (``PlaceNaming``). The session's copy of the suggestion takes the name at once, so the title
    /// the person sees, and the one an app receives, say it.
    func namePlace(from agent: FrameConnection, requestID: UInt64, _ request: NamePlaceRequest) {
        let shown = self.shown(request.suggestionId, in: request.sessionHandle, to: agent)
        guard let shown else {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no suggestion \(request.suggestionId) was shown in that session")))
            return
        }
        guard let visit = shown.items.first(where: { $0.id.uuidString == request.placeItemId }), case .location = visit.asset,
              let coordinate = SuggestionBuilder.position(visit) else {
            reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "no place \(request.placeItemId) in that suggestion")))
            return
        }
        guard !request.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            reply(agent, requestID, .error(ErrorInfo(code: .invalidArgument, message: "say what you call this place")))
            return
        }
        do {
            let naming = PlaceNaming(store: store, builder: builder, nowMs: configuration.clock.now().unixMs)
            switch try naming.name(request.name, at: coordinate) {
            case .refused(let error):
                reply(agent, requestID, .error(error))
            case .named(let name, let weeks):
                let names = try PersonsNames(store: store)
                let renamed = state.withLock { state -> ListedSuggestion? in
                    guard var listed = state.sessions[request.sessionHandle]?.shown[request.suggestionId] else { return nil }
                    listed.items = names.applied(to: listed.items)
                    listed.suggestion.title = builder.title(listed.suggestion.kind, listed.items, events: listed.events)
                    state.sessions[request.sessionHandle]?.shown[request.suggestionId] = listed
                    return listed
                }
                guard let renamed, let item = renamed.items.first(where: { $0.id == visit.id }) else {
                    reply(agent, requestID, .error(ErrorInfo(code: .notFound, message: "the session ended")))
                    return
                }
                logger.info("place named in the picker", metadata: ["session": "\(request.sessionHandle)", "weeks": "\(weeks)"])
                reply(agent, requestID, .namePlaceReply(NamePlaceReply(name: name, item: item.wireItem, title: renamed.suggestion.title,
                                                                       weeksRebuilt: UInt32(clamping: weeks))))
            }
        } catch {
            reply(agent, requestID, .error(ErrorInfo(code: .storage, message: "\(error)")))
        }
    }
}
