import Foundation
public import PickerdWire

extension Item.Asset {
    /// The same asset with every `Media` it holds passed through `transform` (nested workouts' icons
    /// included), in a fixed order.
    /// - Parameter transform: the change to make to each media reference.
    /// - Returns: the changed asset.
    public func mappingMedia(_ transform: (Media) -> Media) -> Item.Asset {
        func workout(_ w: Workout) -> Workout {
            var w = w
            w.icon = w.icon.map(transform)
            return w
        }
        switch self {
        case .photo(var p): p.photo = p.photo.map(transform); return .photo(p)
        case .livePhoto(var p):
            p.image = p.image.map(transform)
            p.video = p.video.map(transform)
            return .livePhoto(p)
        case .video(var v): v.url = v.url.map(transform); return .video(v)
        case .workout(let w): return .workout(workout(w))
        case .workoutGroup(var g):
            g.icon = g.icon.map(transform)
            g.workouts = g.workouts.map(workout)
            return .workoutGroup(g)
        case .contact(var c): c.photo = c.photo.map(transform); return .contact(c)
        case .song(var s): s.artwork = s.artwork.map(transform); return .song(s)
        case .podcast(var p): p.artwork = p.artwork.map(transform); return .podcast(p)
        case .motionActivity(var m): m.icon = m.icon.map(transform); return .motionActivity(m)
        case .genericMedia(var g): g.appIcon = g.appIcon.map(transform); return .genericMedia(g)
        case .stateOfMind(var s): s.icon = s.icon.map(transform); return .stateOfMind(s)
        case .location, .locationGroup, .reflection: return self
        }
    }
}

extension LibraryItem {
    /// A one-line description for the release history ("Harbor Lights by The Tideline").
    public var summary: String {
        switch asset {
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
        case .stateOfMind(let s): return s.state.map { "\($0.kind), valence \($0.valence)" } ?? "state of mind"
        }
    }
}
