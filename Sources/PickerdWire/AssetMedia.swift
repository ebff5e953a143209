extension Item.Asset {
    /// The same asset with every `Media` it holds passed through `transform` (nested workouts' icons
    /// included), in a fixed order. The one walk over every asset kind's media: the store, pickerd
    /// and the client library all use it.
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
        case .genericMedia(var g):
            g.appIcon = g.appIcon.map(transform)
            g.artwork = g.artwork.map(transform)
            return .genericMedia(g)
        case .stateOfMind(var s): s.icon = s.icon.map(transform); return .stateOfMind(s)
        case .location, .locationGroup, .reflection: return self
        }
    }
}

extension Item.Asset {
    /// Calls `body` with every `Media` the asset holds, in the order of ``mappingMedia(_:)``.
    /// - Parameter body: called once per media reference.
    public func forEachMedia(_ body: (Media) -> Void) {
        _ = mappingMedia { media in
            body(media)
            return media
        }
    }
}
