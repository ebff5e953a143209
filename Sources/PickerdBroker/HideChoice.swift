import Foundation
import PickerdMoments
import PickerdStore
import PickerdWire

/// What the person chose in a picker, "Hide this suggestion" or "Show fewer like this", made into
/// a rule from pickerd's own copy of the suggestion the agent was shown: the agent names a person,
/// a visit or the days, never a coordinate or a date of its own.
enum HideChoice {
    /// A rule with the words that say what it does, or why the choice names nothing shown.
    enum Outcome {
        case rule(StoredHiddenRule.Target, String)
        case refused(ErrorInfo)
    }

    /// The rule and the words that say what it does, or why the choice names nothing shown.
    /// - Parameters:
    ///   - request: the agent's request.
    ///   - shown: the suggestion as the session showed it.
    ///   - builder: the moments builder (for the suggestion's local days).
    static func rule(_ request: HideRequest, shown: ListedSuggestion, builder: SuggestionBuilder) -> Outcome {
        switch request.target {
        case .suggestion:
            let title = shown.suggestion.title
            return .rule(.suggestion(shown.suggestion.id, title: title), "“\(title)” won't be suggested again")
        case .person:
            let name = request.person
            let contact = shown.items.lazy.compactMap { item -> String? in
                if case .contact(let c) = item.asset, c.name.caseInsensitiveCompare(name) == .orderedSame { return c.name }
                return nil
            }.first
            guard let contact else { return .refused(ErrorInfo(code: .notFound, message: "\(name) is not in that suggestion")) }
            return .rule(.person(contact), "\(contact) won't be suggested, nor moments only with them")
        case .place:
            let id = request.placeItemId
            let place = shown.items.lazy.compactMap { item -> (String, Coordinate)? in
                guard item.id.uuidString == id, case .location(let l) = item.asset, let at = l.location else { return nil }
                return (l.place, Coordinate(latitude: at.latitude, longitude: at.longitude))
            }.first
            guard let (name, at) = place else { return .refused(ErrorInfo(code: .notFound, message: "no visit \(id) in that suggestion")) }
            return .rule(.place(name: name, coordinate: at), "\(name.isEmpty ? "That place" : name) and photos there won't be suggested")
        case .days:
            let days = builder.days(of: shown)
            let from = StoredHiddenRule.isoDay(days.lowerBound), to = StoredHiddenRule.isoDay(days.upperBound)
            return .rule(.days(from: days.lowerBound, to: days.upperBound),
                             "Nothing from \(from == to ? from : "\(from) to \(to)") will be suggested")
        default:
            return .refused(ErrorInfo(code: .invalidArgument, message: "say what to hide"))
        }
    }
}
