import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

/// Distances as fitness apps compute them: the jitter of a stop left out, a moving track's length
/// kept, the device's own summary preferred. Tracks are synthetic and deterministic (SplitMix64
/// noise), laid out in metres east and north of a point in Berlin.
@Suite("Workout distances as fitness apps compute them")
struct WorkoutDistanceTests {
    static let origin = (latitude: 52.5, longitude: 13.4)
    static let start: Int64 = 1_714_812_000_000

    /// A point `east` and `north` metres from ``origin`` (an equirectangular step, exact enough
    /// over a few kilometres for lengths compared with haversine lengths of the same points).
    static func point(east: Double, north: Double, seconds: Double) -> LocationPoint {
        let metresPerDegree = 6_371_000 * Double.pi / 180
        return LocationPoint(timeMs: start + Int64(seconds * 1000), latitude: origin.latitude + north / metresPerDegree,
                             longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * Double.pi / 180)))
    }

    /// A track: the person moves at `speed` m/s for `seconds`, turning as `heading` says (radians
    /// from east, by second), fixed every `interval` seconds; `noise` adds GPS error to a fix.
    struct Track {
        var truth: [(east: Double, north: Double, t: Double)] = []
        var fixes: [(east: Double, north: Double, t: Double)] = []
        var east = 0.0, north = 0.0, t = 0.0
        /// Correlated error of a moving receiver (an AR(1) drift per axis), metres.
        var driftEast = 0.0, driftNorth = 0.0
        var random: SplitMix

        init(seed: UInt64) { random = SplitMix(seed: seed) }

        /// A standard normal deviate (Box–Muller).
        mutating func normal() -> Double {
            let u = max(random.unit(), 1e-12), v = random.unit()
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }

        /// Moves for `seconds` at `speed`, a fix every `interval`, with a smooth drift of about
        /// 1 m (a moving receiver's error changes slowly).
        mutating func move(seconds: Double, speed: Double, interval: Double, heading: (Double) -> Double) {
            let steps = Int(seconds / interval)
            for _ in 0..<steps {
                let h = heading(t)
                east += speed * interval * cos(h)
                north += speed * interval * sin(h)
                t += interval
                driftEast = 0.98 * driftEast + 0.2 * normal()
                driftNorth = 0.98 * driftNorth + 0.2 * normal()
                truth.append((east, north, t))
                fixes.append((east + driftEast, north + driftNorth, t))
            }
        }

        /// Stands still for `seconds`, a fix every `interval`, each off by `sigma` metres per axis
        /// (each fix about 4 m from the one before when `sigma` is 2.5).
        mutating func stop(seconds: Double, interval: Double, sigma: Double) {
            let steps = Int(seconds / interval)
            for _ in 0..<steps {
                t += interval
                fixes.append((east + sigma * normal(), north + sigma * normal(), t))
            }
        }

        var route: [LocationPoint] { fixes.map { WorkoutDistanceTests.point(east: $0.east, north: $0.north, seconds: $0.t) } }
        /// The length of the path actually walked: the noise-free positions, stops not counted.
        var trueLength: Double {
            WorkoutDistanceTests.raw(truth.map { WorkoutDistanceTests.point(east: $0.east, north: $0.north, seconds: $0.t) })
        }
    }

    /// The plain sum of the legs, as pickerd measured before.
    static func raw(_ route: [LocationPoint]) -> Double {
        zip(route, route.dropFirst()).reduce(0) { $0 + WorkoutFiles.haversine($1.0, $1.1) }
    }

    static func error(_ measured: Double, _ truth: Double) -> Double { abs(measured - truth) / truth }

    /// A hike of about 10 km at 1.2 m/s along a winding path with a 30-minute stop in the middle.
    static func hike(interval: Double, seed: UInt64) -> Track {
        var track = Track(seed: seed)
        let winding: (Double) -> Double = { 0.9 * sin($0 / 300) + 0.4 * sin($0 / 47) }
        track.move(seconds: 4_200, speed: 1.2, interval: interval, heading: winding)
        track.stop(seconds: 1_800, interval: interval, sigma: 2.5)
        track.move(seconds: 4_200, speed: 1.2, interval: interval, heading: winding)
        return track
    }

    @Test("a hike with a 30-minute stop of jittering fixes is within 2 % of the distance walked", arguments: [(5.0, 1 as UInt64), (1.0, 2), (10.0, 3)])
    func hikeWithAStop(interval: Double, seed: UInt64) {
        let track = Self.hike(interval: interval, seed: seed)
        let truth = track.trueLength
        let before = Self.raw(track.route)
        let after = WorkoutFiles.length(of: track.route)
        #expect(truth > 9_900)
        #expect(truth < 10_100)
        #expect(Self.error(before, truth) > 0.05, "the stop's jitter would add \(Int(before - truth)) m")
        #expect(Self.error(after, truth) < 0.02, "fixed every \(interval) s: \(Int(after)) m for \(Int(truth)) m (\(Int(before)) m unfiltered)")
    }

    @Test("a run at 3 m/s fixed every second, straight, winding or round a track, keeps its length within 0.5 %", arguments: ["straight", "winding", "track"])
    func runKeepsItsLength(shape: String) {
        var track = Track(seed: 5)
        let heading: (Double) -> Double = switch shape {
        case "straight": { _ in 0.3 }
        case "winding": { 1.5 * sin($0 / 40) }
        default: { $0 * 3 / 36.5 }  // the bends of a 400 m track, all the way
        }
        track.move(seconds: 3_300, speed: 3, interval: 1, heading: heading)
        let truth = track.trueLength
        let measured = WorkoutFiles.length(of: track.route)
        #expect(Self.error(measured, truth) < 0.005, "\(shape): \(Int(measured)) m for \(Int(truth)) m")
        // Without noise, exactly the points' sum.
        let exact = track.truth.map { Self.point(east: $0.east, north: $0.north, seconds: $0.t) }
        #expect(abs(WorkoutFiles.length(of: exact) - Self.raw(exact)) < 1e-6)
    }

    @Test("a slow walk that stays within 20 m for minutes, going one way, is not a stop")
    func slowWalkIsNotAStop() {
        var track = Track(seed: 9)
        track.move(seconds: 600, speed: 0.1, interval: 1, heading: { $0 / 200 })
        let truth = track.trueLength
        #expect(Self.error(WorkoutFiles.length(of: track.truth.map { Self.point(east: $0.east, north: $0.north, seconds: $0.t) }), truth) < 1e-9)
    }

    @Test("fixes repeated unchanged for hours (a paused device) add nothing and are scanned once")
    func repeatedFixesAreCheap() {
        var route = (0..<40_000).map { Self.point(east: 0, north: 0, seconds: Double($0)) }
        var track = Track(seed: 12)
        track.move(seconds: 600, speed: 3, interval: 1, heading: { _ in 0 })
        route += track.truth.map { Self.point(east: $0.east, north: $0.north, seconds: 40_000 + $0.t) }
        let clock = ContinuousClock()
        var length = 0.0
        let elapsed = clock.measure { length = WorkoutFiles.length(of: route) }
        #expect(abs(length - Self.raw(route)) < 1e-6)
        #expect(elapsed < .seconds(5), "\(elapsed)")
    }

    @Test("a GPX of the hike reads its filtered length; a TrackStatsExtension Distance wins")
    func gpxReadsTheFilteredLength() throws {
        let track = Self.hike(interval: 5, seed: 4)
        func gpx(_ extensions: String) -> [UInt8] {
            let points = track.route.map { p in
                "<trkpt lat=\"\(p.latitude)\" lon=\"\(p.longitude)\"><time>\(Self.iso(p.timeMs!))</time></trkpt>"
            }.joined(separator: "\n")
            return Array("""
                <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
                <trk><name>Grunewald loop</name><type>hiking</type>\(extensions)<trkseg>\(points)</trkseg></trk></gpx>
                """.utf8)
        }
        let hike = try #require(try GPXReader.read(gpx(""), file: "hike.gpx").workouts.first)
        #expect(Self.error(hike.distanceMeters ?? 0, track.trueLength) < 0.02, "\(hike.distanceMeters ?? 0)")
        let stats = "<extensions><gpxtrkx:TrackStatsExtension xmlns:gpxtrkx=\"http://www.garmin.com/xmlschemas/TrackStatsExtension/v1\"><gpxtrkx:Distance>10012</gpxtrkx:Distance></gpxtrkx:TrackStatsExtension></extensions>"
        #expect(try GPXReader.read(gpx(stats), file: "hike.gpx").workouts.first?.distanceMeters == 10_012)
    }

    @Test("a TCX whose Lap has DistanceMeters uses it, not its jittering trackpoints")
    func tcxUsesTheLapDistance() throws {
        let track = Self.hike(interval: 5, seed: 6)
        let points = track.route.map { p in
            "<Trackpoint><Time>\(Self.iso(p.timeMs!))</Time><Position><LatitudeDegrees>\(p.latitude)</LatitudeDegrees><LongitudeDegrees>\(p.longitude)</LongitudeDegrees></Position></Trackpoint>"
        }.joined(separator: "\n")
        func tcx(_ lapDistance: String) -> [UInt8] {
            Array("""
                <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
                <Activities><Activity Sport="Other"><Id>\(Self.iso(Self.start))</Id>
                <Lap StartTime="\(Self.iso(Self.start))"><TotalTimeSeconds>10200</TotalTimeSeconds>\(lapDistance)<Track>\(points)</Track></Lap>
                </Activity></Activities></TrainingCenterDatabase>
                """.utf8)
        }
        let withLap = try #require(try TCXReader.read(tcx("<DistanceMeters>10034.5</DistanceMeters>"), file: "hike.tcx").workouts.first)
        #expect(withLap.distanceMeters == 10_034.5)
        let without = try #require(try TCXReader.read(tcx(""), file: "hike.tcx").workouts.first)
        #expect(Self.error(without.distanceMeters ?? 0, track.trueLength) < 0.02, "\(without.distanceMeters ?? 0)")
    }

    static func iso(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
