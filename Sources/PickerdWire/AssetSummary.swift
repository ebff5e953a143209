import Foundation

extension Item.Asset {
    /// A one-line description for the person ("Harbor Lights by The Tideline"): the release history
    /// and the picker show it.
    public var summary: String {
        switch self {
        case .photo(let p): return "photo \(p.photo?.filename ?? "")"
        case .livePhoto(let p): return "Live Photo \(p.image?.filename ?? "")"
        case .video(let v): return "video \(v.url?.filename ?? "")"
        case .workout(let w): return w.details.map { "\($0.localizedName)" + ($0.distance.map { String(format: ", %.1f km", $0.value / 1000) } ?? "") } ?? "workout"
        case .workoutGroup(let g): return "\(g.workouts.count) workouts"
        case .contact(let c): return c.name
        case .location(let l): return [l.place, l.city].filter { !$0.isEmpty }.joined(separator: ", ")
        case .locationGroup(let g): return g.locations.map(\.place).joined(separator: ", ")
        case .song(let s): return "\(s.song) by \(s.artist)"
        case .podcast(let p): return "\(p.show): \(p.episode)"
        case .motionActivity(let m): return "\(m.steps) steps (\(m.movementType))"
        case .genericMedia(let g): return "\(g.title) (\(g.album))"
        case .reflection(let r): return r.prompt
        case .stateOfMind(let s): return s.state.map(Self.mood) ?? "state of mind"
        }
    }

    /// "Happy, Grateful: a pleasant moment", "Content: a slightly pleasant day": the labels as the
    /// person chose them, then how it felt and whether it was a moment or the whole day.
    static func mood(_ state: StateOfMindSample) -> String {
        let labels = state.labels.filter { $0 != .unspecified }.map { words($0.description).capitalizedFirst }
        let feeling = state.valenceClassification == .unspecified
            ? (state.valence >= 0 ? "pleasant" : "unpleasant") : words(state.valenceClassification.description)
        let span = state.kind == .dailyMood ? "day" : "moment"
        let how = "a\(feeling.first.map { "aeiou".contains($0) } == true ? "n" : "") \(feeling) \(span)"
        return labels.isEmpty ? how.capitalizedFirst : labels.joined(separator: ", ") + ": " + how
    }

    /// A schema name in words: "slightlyPleasant" → "slightly pleasant".
    static func words(_ name: String) -> String {
        name.reduce(into: "") { out, c in out += c.isUppercase ? " " + c.lowercased() : String(c) }
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
