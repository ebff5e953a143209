import Foundation
import PickerdWire

/// Turns what pickerd sent into the public types; `file(index)` gives the cached file for a frame
/// descriptor.
struct WireConversion {
    let file: (UInt32) -> URL?

    func suggestion(_ s: Suggestion) -> JournalingSuggestion {
        JournalingSuggestion(title: s.title, date: s.date.map(interval), items: s.items.compactMap(item))
    }

    func item(_ item: Item) -> ItemContent? {
        guard let id = UUID(uuidString: item.id), let asset = item.asset else { return nil }
        var assets: [any JournalingSuggestionAsset] = []
        switch asset {
        case .photo(let p):
            if let url = url(p.photo) {
                assets.append(JournalingSuggestion.Photo(photo: url, date: date(p.date)))
                assets.append(JournalingSuggestionImage(url: url))
            }
        case .livePhoto(let p):
            if let image = url(p.image), let video = url(p.video) {
                assets.append(JournalingSuggestion.LivePhoto(image: image, video: video, date: date(p.date)))
                assets.append(JournalingSuggestionImage(url: image))
            }
        case .video(let v):
            if let u = url(v.url) { assets.append(JournalingSuggestion.Video(url: u, date: date(v.date))) }
        case .workout(let w): assets.append(workout(w))
        case .workoutGroup(let g):
            assets.append(JournalingSuggestion.WorkoutGroup(workouts: g.workouts.map(workout), icon: url(g.icon), duration: g.durationS,
                                                            activeEnergyBurned: quantity(g.activeEnergyBurned),
                                                            averageHeartRate: quantity(g.averageHeartRate)))
        case .contact(let c):
            assets.append(JournalingSuggestion.Contact(name: c.name, photo: url(c.photo)))
            if let photo = url(c.photo) { assets.append(JournalingSuggestionImage(url: photo)) }
        case .location(let l): assets.append(location(l))
        case .locationGroup(let g): assets.append(JournalingSuggestion.LocationGroup(locations: g.locations.map(location)))
        case .song(let s):
            assets.append(JournalingSuggestion.Song(song: text(s.song), artist: text(s.artist), album: text(s.album),
                                                    artwork: url(s.artwork), date: date(s.date)))
            if let art = url(s.artwork) { assets.append(JournalingSuggestionImage(url: art)) }
        case .podcast(let p):
            assets.append(JournalingSuggestion.Podcast(episode: text(p.episode), show: text(p.show), artwork: url(p.artwork), date: date(p.date)))
            if let art = url(p.artwork) { assets.append(JournalingSuggestionImage(url: art)) }
        case .motionActivity(let m):
            let movement: JournalingSuggestion.MotionActivity.MovementType =
                m.movementType == .running ? .running : m.movementType == .runningWalking ? .runningWalking : .walking
            assets.append(JournalingSuggestion.MotionActivity(icon: url(m.icon), steps: Int(m.steps), date: m.date.map(interval),
                                                              movementType: movement))
        case .genericMedia(let g):
            assets.append(JournalingSuggestion.GenericMedia(title: text(g.title), artist: text(g.artist), album: text(g.album),
                                                            date: date(g.date), appIcon: url(g.appIcon),
                                                            artwork: url(g.artwork)))
        case .reflection(let r): assets.append(JournalingSuggestion.Reflection(prompt: r.prompt, color: r.color.map(color)))
        case .stateOfMind(let s):
            let state = s.state.map {
                JournalingSuggestion.StateOfMind.State(kind: $0.kind == .dailyMood ? .dailyMood : .momentaryEmotion, valence: $0.valence,
                                                       valenceClassification: Int($0.valenceClassification.rawValue),
                                                       labels: $0.labels.map { Int($0.rawValue) },
                                                       associations: $0.associations.map { Int($0.rawValue) }, date: date($0.date))
            }
            assets.append(JournalingSuggestion.StateOfMind(state: state, icon: url(s.icon), lightBackground: s.lightBackground.map(gradient),
                                                           darkBackground: s.darkBackground.map(gradient)))
        }
        return assets.isEmpty ? nil : ItemContent(id: id, assets: assets, secondsFromGMT: offset(item.localUtcOffsetS))
    }

    private func workout(_ w: PickerdWire.Workout) -> JournalingSuggestion.Workout {
        JournalingSuggestion.Workout(
            details: w.details.map {
                JournalingSuggestion.Workout.Details(activityType: WorkoutActivityType(rawValue: UInt($0.activityType)),
                                                     activeEnergyBurned: quantity($0.activeEnergyBurned), distance: quantity($0.distance),
                                                     averageHeartRate: quantity($0.averageHeartRate), date: $0.date.map(interval),
                                                     localizedName: text($0.localizedName))
            },
            icon: url(w.icon), route: w.route.isEmpty ? nil : w.route.map(geo))
    }

    private func location(_ l: PickerdWire.Location) -> JournalingSuggestion.Location {
        JournalingSuggestion.Location(place: text(l.place), city: text(l.city), location: l.location.map(geo), date: date(l.date),
                                      isWorkLocation: l.isWorkLocation)
    }

    private func url(_ media: Media?) -> URL? {
        guard let media, media.hasFd else { return nil }
        return file(media.fdIndex)
    }
    private func text(_ s: String) -> String? { s.isEmpty ? nil : s }
    /// Real offsets lie within ±18 h, as Foundation's and the C library's bound: anything else is not
    /// one (a range, not `abs`, which traps on `Int64.min`).
    private func offset(_ seconds: Int64?) -> Int? { seconds.flatMap { (-18 * 3600...18 * 3600).contains($0) ? Int($0) : nil } }
    private func date(_ t: Timestamp?) -> Date? { t.map { Date(unixMs: $0.unixMs) } }
    private func interval(_ d: PickerdWire.DateInterval) -> Foundation.DateInterval {
        let start = Date(unixMs: d.startUnixMs)
        return Foundation.DateInterval(start: start, end: max(start, Date(unixMs: d.endUnixMs)))
    }
    private func quantity(_ q: Quantity?) -> HealthQuantity? { q.map { HealthQuantity(value: $0.value, unit: $0.unit) } }
    private func geo(_ g: PickerdWire.GeoLocation) -> GeoLocation {
        GeoLocation(latitude: g.latitude, longitude: g.longitude, altitude: g.altitudeM, horizontalAccuracy: g.horizontalAccuracyM,
                    timestamp: date(g.timestamp))
    }
    private func color(_ c: PickerdWire.Color) -> SuggestionColor { SuggestionColor(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha) }
    private func gradient(_ g: PickerdWire.Gradient) -> SuggestionGradient {
        SuggestionGradient(stops: g.stops.map { SuggestionGradient.Stop(color: $0.color.map(color) ?? SuggestionColor(red: 0, green: 0, blue: 0, alpha: 1),
                                                                        location: $0.location) })
    }
}
