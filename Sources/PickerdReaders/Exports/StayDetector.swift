import Foundation
import PickerdStore
public import PickerdImport

/// Finds visits in raw location points (Records.json, OwnTracks), one point at a time in time order,
/// so a million points stream through it into a few thousand visits without being held.
///
/// A visit is a stay of at least ``Parameters/minimumDurationMs`` (10 minutes) whose points all lie
/// within ``Parameters/radiusMeters`` (100 m) of their running centroid; its coordinate is that
/// centroid, its start the first point's time and its end the last's. The choices, tuned on
/// phone-recorded history (fixes every 1–5 minutes, 10–60 m accuracy indoors):
/// - 100 m holds a building and its garden with indoor Wi-Fi fixes wandering; a walk at 5 km/h
///   leaves it within 2–3 minutes, far short of 10 minutes, so walking is never a stay.
/// - One point outside the radius followed by one back inside is a bad fix and is dropped; two in a
///   row end the stay.
/// - Points less accurate than ``Parameters/maximumAccuracyMeters`` (200 m: cell-tower fixes) are
///   skipped, as are points without a time and points older than the last one (out of order).
/// - A gap longer than ``Parameters/maximumGapMs`` (12 h: the phone was off) ends the stay at its
///   last point.
/// - Two stays at the same place (centroids within the radius) less than
///   ``Parameters/mergeGapMs`` (10 minutes) apart are one visit (a trip to the letterbox).
///
/// The centroid is the mean of latitudes and longitudes, which is exact enough within 100 m away
/// from the poles and the antimeridian.
public struct StayDetector: Sendable {
    /// How stays are told.
    public struct Parameters: Sendable, Hashable {
        /// How far from the stay's centroid a point may be, metres.
        public var radiusMeters: Double
        /// The shortest stay that is a visit, ms.
        public var minimumDurationMs: Int64
        /// The longest gap between two points of one stay, ms.
        public var maximumGapMs: Int64
        /// Points less accurate than this (metres) are skipped.
        public var maximumAccuracyMeters: Double
        /// Stays at one place closer in time than this (ms) are one visit.
        public var mergeGapMs: Int64

        /// Creates parameters (the defaults are the documented ones).
        public init(radiusMeters: Double = 100, minimumDurationMs: Int64 = 10 * 60_000, maximumGapMs: Int64 = 12 * 3_600_000,
                    maximumAccuracyMeters: Double = 200, mergeGapMs: Int64 = 10 * 60_000) {
            self.radiusMeters = radiusMeters
            self.minimumDurationMs = minimumDurationMs
            self.maximumGapMs = maximumGapMs
            self.maximumAccuracyMeters = maximumAccuracyMeters
            self.mergeGapMs = mergeGapMs
        }
    }

    /// A stay being built: sums for its centroid.
    private struct Stay {
        var startMs: Int64
        var endMs: Int64
        var sumLatitude: Double
        var sumLongitude: Double
        var count: Int

        init(_ p: LocationPoint, _ t: Int64) {
            startMs = t
            endMs = t
            sumLatitude = p.latitude
            sumLongitude = p.longitude
            count = 1
        }

        var latitude: Double { sumLatitude / Double(count) }
        var longitude: Double { sumLongitude / Double(count) }

        mutating func add(_ p: LocationPoint, _ t: Int64) {
            sumLatitude += p.latitude
            sumLongitude += p.longitude
            count += 1
            endMs = t
        }

        mutating func merge(_ other: Stay) {
            sumLatitude += other.sumLatitude
            sumLongitude += other.sumLongitude
            count += other.count
            endMs = max(endMs, other.endMs)
        }

        var visit: ImportedVisit {
            ImportedVisit(startMs: startMs, endMs: endMs, coordinate: Coordinate(latitude: latitude, longitude: longitude))
        }
    }

    /// The parameters.
    public let parameters: Parameters
    private var current: Stay?
    private var outlier: (point: LocationPoint, time: Int64)?
    /// A finished stay held back in case the next one is at the same place soon after.
    private var held: Stay?
    private var lastTime = Int64.min
    /// Points left out: without a time, out of order, or too inaccurate.
    public private(set) var skippedPoints = 0
    /// Points used.
    public private(set) var usedPoints = 0

    /// Creates a detector.
    public init(_ parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Metres between two points, by the equirectangular approximation (exact to well under 1 % at
    /// the distances compared here, and cheap for a million points).
    @inline(__always) private static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let rad = Double.pi / 180
        let x = (lon2 - lon1) * rad * cos((lat1 + lat2) * 0.5 * rad)
        let y = (lat2 - lat1) * rad
        return (x * x + y * y).squareRoot() * 6_371_000
    }

    private func inside(_ p: LocationPoint, _ stay: Stay) -> Bool {
        Self.metres(stay.latitude, stay.longitude, p.latitude, p.longitude) <= parameters.radiusMeters
    }

    /// Feeds the next point (in time order).
    /// - Returns: a visit that is now final, if one is.
    public mutating func add(_ point: LocationPoint) -> ImportedVisit? {
        guard let t = point.timeMs, t >= lastTime, (point.accuracy ?? 0) <= parameters.maximumAccuracyMeters else {
            skippedPoints += 1
            return nil
        }
        lastTime = t
        usedPoints += 1
        guard var stay = current else {
            current = Stay(point, t)
            return nil
        }
        if t - stay.endMs > parameters.maximumGapMs {
            outlier = nil
            current = Stay(point, t)
            return close(stay)
        }
        if inside(point, stay) {
            outlier = nil
            stay.add(point, t)
            current = stay
            return nil
        }
        guard let first = outlier else {
            outlier = (point, t)
            return nil
        }
        // Two points in a row outside: the stay ended at its last point inside.
        outlier = nil
        var next = Stay(first.point, first.time)
        if inside(point, next) { next.add(point, t) } else { next = Stay(point, t) }
        current = next
        return close(stay)
    }

    /// Ends the points: the last stays become final.
    /// - Returns: the visits still held.
    public mutating func finish() -> [ImportedVisit] {
        var out: [ImportedVisit] = []
        if let stay = current, let v = close(stay) { out.append(v) }
        current = nil
        outlier = nil
        if let h = held { out.append(h.visit) }
        held = nil
        return out
    }

    /// A stay that ended: kept (merged or held back) when long enough.
    private mutating func close(_ stay: Stay) -> ImportedVisit? {
        if var h = held, stay.startMs - h.endMs <= parameters.mergeGapMs,
           Self.metres(h.latitude, h.longitude, stay.latitude, stay.longitude) <= parameters.radiusMeters {
            // The same place again soon after: one visit (even when this part alone is short).
            h.merge(stay)
            held = h
            return nil
        }
        guard stay.endMs - stay.startMs >= parameters.minimumDurationMs else { return nil }
        let released = held?.visit
        held = stay
        return released
    }

    /// The visits in `points` (in time order).
    public static func visits(from points: [LocationPoint], parameters: Parameters = Parameters()) -> [ImportedVisit] {
        var detector = StayDetector(parameters)
        var out: [ImportedVisit] = []
        for p in points { if let v = detector.add(p) { out.append(v) } }
        return out + detector.finish()
    }

    /// The places a person keeps going back to: visits whose coordinates lie within `radiusMeters`
    /// (150 m) of a place's centroid (time-weighted) are that place. A place is `home` or `work`
    /// when most of its labelled visits say so (the export's own labels); when no visit says
    /// `home`, the place with the most time in all is home. Work is never guessed.
    /// - Returns: the places, most time first.
    public static func significantPlaces(from visits: [ImportedVisit], radiusMeters: Double = 150) -> [SignificantPlace] {
        struct Cluster {
            var sumLatitude = 0.0, sumLongitude = 0.0, weight = 0.0
            var totalMs: Int64 = 0
            var count = 0
            var labels: [String: Int] = [:]
            var names: [String: Int64] = [:]
            var ids: [String: Int64] = [:]
            var coordinate: Coordinate { Coordinate(latitude: sumLatitude / weight, longitude: sumLongitude / weight) }
        }
        var clusters: [Cluster] = []
        // Longest visits first, so places form around where the time was spent.
        for v in visits.sorted(by: { ($0.endMs - $0.startMs, $0.startMs) > ($1.endMs - $1.startMs, $1.startMs) }) {
            let duration = max(0, v.endMs - v.startMs)
            let w = Double(max(duration, 60_000))
            var best: Int?
            var bestDistance = radiusMeters
            for (i, c) in clusters.enumerated() {
                let d = c.coordinate.distance(to: v.coordinate)
                if d <= bestDistance { best = i; bestDistance = d }
            }
            let i = best ?? clusters.count
            if best == nil { clusters.append(Cluster()) }
            clusters[i].sumLatitude += v.coordinate.latitude * w
            clusters[i].sumLongitude += v.coordinate.longitude * w
            clusters[i].weight += w
            clusters[i].totalMs += duration
            clusters[i].count += 1
            if let s = v.semantic { clusters[i].labels[s, default: 0] += 1 }
            if let n = v.placeName { clusters[i].names[n, default: 0] += duration }
            if let id = v.placeID { clusters[i].ids[id, default: 0] += duration }
        }
        func top<K: Comparable>(_ d: [K: Int64]) -> K? { d.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key }
        var places = clusters.map { c in
            SignificantPlace(coordinate: c.coordinate, totalMs: c.totalMs, visitCount: c.count,
                             semantic: c.labels.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key,
                             placeName: top(c.names), placeID: top(c.ids))
        }
        places.sort { ($0.totalMs, $0.visitCount) > ($1.totalMs, $1.visitCount) }
        if !places.contains(where: { $0.semantic == "home" }), let i = places.firstIndex(where: { $0.semantic == nil }) {
            places[i].semantic = "home"
            places[i].semanticInferred = true
        }
        return places
    }

    /// `visits` with the labels (`home`/`work`) of the places they belong to, where they had none.
    /// - Parameters:
    ///   - visits: visits.
    ///   - places: their ``significantPlaces(from:radiusMeters:)``.
    ///   - radiusMeters: how near a place's centroid a visit must be.
    public static func labeled(_ visits: [ImportedVisit], by places: [SignificantPlace], radiusMeters: Double = 150) -> [ImportedVisit] {
        let labelled = places.filter { $0.semantic != nil }
        guard !labelled.isEmpty else { return visits }
        return visits.map { v in
            guard v.semantic == nil,
                  let place = labelled.min(by: { $0.coordinate.distance(to: v.coordinate) < $1.coordinate.distance(to: v.coordinate) }),
                  place.coordinate.distance(to: v.coordinate) <= radiusMeters else { return v }
            var labelledVisit = v
            labelledVisit.semantic = place.semantic
            return labelledVisit
        }
    }
}

