import Foundation
import PickerdStore
import PickerdWire

/// One item of every asset type with every field set (each optional present, lists of two).
enum FullItems {
    static func media(_ slot: Int, _ name: String, _ type: String = "image/png") -> (Media, StoredMedia) {
        let stored = StoredMedia(relativePath: "t/\(name)", contentType: type, filename: name, byteCount: UInt64(1000 + slot),
                                 pixelWidth: UInt32(60 + slot), pixelHeight: UInt32(40 + slot))
        return (stored.media(slot: slot), stored)
    }

    static let when = Timestamp(unixMs: 1_793_900_000_123)
    static let span = PickerdWire.DateInterval(startUnixMs: 1_793_900_000_000, endUnixMs: 1_793_903_600_000)
    static let geo = GeoLocation(latitude: 40.801_3, longitude: -73.971_9, altitudeM: 12.25, horizontalAccuracyM: 4.5,
                                 timestamp: Timestamp(unixMs: 1_793_900_100_000))
    static let color = Color(red: 0.125, green: 0.5, blue: 0.75, alpha: 0.875)

    static func workout(_ icon: Media) -> Workout {
        Workout(details: WorkoutDetails(activityType: 37, activeEnergyBurned: Quantity(value: 412.5, unit: "kcal"),
                                        distance: Quantity(value: 8012, unit: "m"),
                                        averageHeartRate: Quantity(value: 151, unit: "count/min"), date: span,
                                        localizedName: "Outdoor Run"),
                icon: icon, route: [geo, GeoLocation(latitude: 40.81, longitude: -73.97, altitudeM: 14,
                                                     horizontalAccuracyM: 3, timestamp: Timestamp(unixMs: 1_793_900_200_000))])
    }

    static func location(_ name: String, work: Bool) -> Location {
        Location(place: name, city: "New York", location: geo, date: when, isWorkLocation: work)
    }

    static var all: [LibraryItem] {
        var items: [LibraryItem] = []
        func add(_ n: Int, _ asset: Item.Asset, _ media: [StoredMedia] = [], excluded: Bool = false) {
            items.append(LibraryItem(id: UUID(uuidString: String(format: "10000000-0000-4000-8000-%012d", n))!, asset: asset,
                                     media: media, startMs: span.startUnixMs + Int64(n), endMs: span.endUnixMs + Int64(n),
                                     excludedFromSuggestions: excluded, source: n % 2 == 0 ? "demo" : "com.example.app",
                                     externalID: n % 2 == 0 ? "" : "ext-\(n)"))
        }
        let (p0, s0) = media(0, "photo.png")
        add(1, .photo(Photo(photo: p0, date: when)), [s0])
        let (l0, ls0) = media(0, "live.png"), (l1, ls1) = media(1, "live.y4m", "video/x-yuv4mpeg2")
        add(2, .livePhoto(LivePhoto(image: l0, video: l1, date: when)), [ls0, ls1])
        let (v0, vs0) = media(0, "clip.y4m", "video/x-yuv4mpeg2")
        add(3, .video(Video(url: v0, date: when)), [vs0])
        let (w0, ws0) = media(0, "run.png")
        add(4, .workout(workout(w0)), [ws0])
        let (g0, gs0) = media(0, "group.png"), (g1, gs1) = media(1, "a.png"), (g2, gs2) = media(2, "b.png")
        add(5, .workoutGroup(WorkoutGroup(workouts: [workout(g1), workout(g2)], icon: g0, durationS: 5400.5,
                                          activeEnergyBurned: Quantity(value: 825, unit: "kcal"),
                                          averageHeartRate: Quantity(value: 148, unit: "count/min"))), [gs0, gs1, gs2])
        let (c0, cs0) = media(0, "MO.png")
        add(6, .contact(Contact(name: "Maya Okafor", photo: c0)), [cs0])
        add(7, .location(location("Riverside Park", work: false)))
        add(8, .locationGroup(LocationGroup(locations: [location("Office", work: true), location("Dia Beacon", work: false)])))
        let (a0, as0) = media(0, "album.png")
        add(9, .song(Song(song: "Harbor Lights", artist: "The Tideline", album: "Low Water", artwork: a0, date: when)), [as0])
        let (pa0, pas0) = media(0, "show.png")
        add(10, .podcast(Podcast(episode: "Ep. 112", show: "Quiet Hours", artwork: pa0, date: when)), [pas0])
        let (m0, ms0) = media(0, "walk.png")
        add(11, .motionActivity(MotionActivity(icon: m0, steps: 9120, date: span, movementType: .runningWalking)), [ms0])
        let (i0, is0) = media(0, "app.png")
        add(12, .genericMedia(GenericMedia(title: "Chapter 7", artist: "A. Writer", album: "The Long Book", date: when,
                                           appIcon: i0)), [is0], excluded: true)
        add(13, .reflection(Reflection(prompt: "What made you smile today?", color: color)))
        let (s0m, ss0) = media(0, "mood.png")
        add(14, .stateOfMind(StateOfMind(
            state: StateOfMindSample(kind: .dailyMood, valence: -0.375, valenceClassification: .slightlyUnpleasant,
                                     labels: [.stressed, .drained, .hopeful], associations: [.work, .family], date: when),
            icon: s0m,
            lightBackground: Gradient(stops: [GradientStop(color: color, location: 0), GradientStop(color: Color(red: 1, green: 1, blue: 1, alpha: 1), location: 1)]),
            darkBackground: Gradient(stops: [GradientStop(color: Color(red: 0, green: 0, blue: 0.25, alpha: 1), location: 0.5)]))), [ss0])
        return items
    }
}
