import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

// MARK: - The maker

/// Plans the life, spreads the photos over it, then makes it one day at a time.
struct ScaleMaker {
    typealias Day = ScalePlan.Day
    typealias Visit = ScalePlan.Visit
    typealias Cluster = ScalePlan.Cluster

    /// The one random source (its `SeededRandom`) and the demo's painter and id maker.
    var g = Generator()
    let photos: Int
    let years: Int
    let endingAtMs: Int64
    let pools: ScalePools
    let icons: [String: GeneratedItem.File]
    let artwork: [GeneratedItem.File]
    let showArtwork: [GeneratedItem.File]
    let contactFiles: [GeneratedItem.File?]

    // The plan.
    var days: [Day] = []
    var camera: [Cluster] = []
    var shotEvents: [Cluster] = []
    var scanSessions: [Cluster] = []
    var trips: [ScalePlan.Trip] = []
    var introDates: [Int] = []
    var weekSports: [ScalePlan.Sport?] = Array(repeating: nil, count: 7)
    var plannedWeek = Int.min

    // While making.
    var shotNumber = 0
    var scanNumber = 0
    var weekKey = Int.min
    var weekWorkouts: [Workout] = []
    var tripStops: [(location: Location, start: Int64, end: Int64)] = []
    var tripOf = -1
    var baseline = 0.2
    var nextReflection = Int.min
    var book = 0
    var chapter = 1
    var episodes: [Int]

    init(photos: Int, years: Int, endingAtMs: Int64) {
        self.photos = photos
        self.years = years
        self.endingAtMs = endingAtMs
        var painter = Generator()
        painter.random = SeededRandom(seed: 0x5343_414C_454C_4942)  // "SCALELIB"
        pools = ScalePools(painter: &painter)
        typealias C = Raster.RGB
        var icons: [String: GeneratedItem.File] = [:]
        for (name, text, color) in [("workout-running", "R", C(80, 200, 120)), ("workout-walking", "W", C(90, 150, 220)),
                                    ("workout-cycling", "C", C(230, 140, 60)), ("workout-hiking", "H", C(120, 160, 80)),
                                    ("workout-yoga", "Y", C(200, 120, 180)), ("workout-group", "WK", C(60, 170, 110)),
                                    ("motion-running", "RUN", C(70, 180, 110)), ("motion-walking", "W", C(90, 150, 220)),
                                    ("mood-pleasant", "+", C(240, 170, 60)), ("mood-unpleasant", "-", C(90, 110, 190)),
                                    ("app-inkwell", "I", C(70, 70, 140))] {
            icons[name] = painter.badge(text, background: color, size: 32, directory: "scale/icons", name: name)
        }
        self.icons = icons
        let badges = painter
        artwork = ScaleCast.albums.enumerated().map { i, album in
            badges.badge(ScaleCast.initials(album.0), background: C(UInt8(40 + i * 17 % 180), UInt8(70 + i * 53 % 150), UInt8(60 + i * 31 % 170)),
                         size: 32, directory: "scale/artwork", name: ScaleCast.slug(album.0))
        }
        showArtwork = ScaleCast.podcasts.enumerated().map { i, show in
            badges.badge(ScaleCast.initials(show.0), background: C(UInt8(50 + i * 40), 60, UInt8(90 + i * 25)), size: 32,
                         directory: "scale/artwork", name: "podcast-" + ScaleCast.slug(show.0))
        }
        episodes = ScaleCast.podcasts.map(\.1)
        let colors: [C] = [C(86, 120, 200), C(200, 110, 90), C(110, 170, 120), C(150, 110, 190), C(210, 160, 70), C(90, 160, 170)]
        contactFiles = ScaleCast.contacts.enumerated().map { i, contact in
            guard contact.1 else { return nil }
            let color = colors[i % colors.count]
            var r = Raster(width: 32, height: 32, fill: color.mixed(C(255, 255, 255), 0.6))
            r.disc(cx: 16, cy: 13, radius: 7, C(UInt8(110 + i * 5), UInt8(80 + i * 3), UInt8(60 + i * 2)))
            r.disc(cx: 16, cy: 32, radius: 13, color)
            let bytes = PNG.encode(r)
            let name = ScaleCast.slug(contact.0)
            return GeneratedItem.File(media: StoredMedia(relativePath: "scale/contacts/\(name).png", contentType: "image/png",
                                                         filename: "\(name).png", byteCount: UInt64(bytes.count),
                                                         pixelWidth: 32, pixelHeight: 32), bytes: bytes)
        }
        g = painter
    }
}
