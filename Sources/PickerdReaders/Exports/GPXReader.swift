public import PickerdImport

/// Reads GPX 1.0 and 1.1 files (Strava, Garmin Connect, phone apps; gzip-compressed too) into
/// workouts: one per `trk` whose points have times.
///
/// - Points: `trk/trkseg/trkpt` with `lat`/`lon`, `ele`, `time`, and the heart rate of Garmin's
///   TrackPointExtension (`gpxtpx:hr`, any `hr` element in the point's `extensions`).
/// - Activity: `trk/type` through ``HealthKitActivity/rawValue(for:)`` ("running", "cycling",
///   Garmin's "trail_running"), or Strava's numbers (9 run, 1 ride… see
///   ``HealthKitActivity/rawValue(stravaType:)``); without a type, other (3000).
/// - Start and end: the earliest and latest point times. Distance: Garmin's TrackStatsExtension
///   `Distance` when the track has one (the device's own), else the length of each segment (not
///   across the gaps between segments) with the jitter of stops left out
///   (``WorkoutFiles/length(of:)``). Energy: TrackStatsExtension `Calories`. Average heart rate: the mean of
///   the points' rates.
/// - A track without any timed point is skipped; a file with tracks but no times at all is an
///   error ("a GPX without times cannot be a workout"), as is a file without a track. Routes
///   (`rte`) and waypoints are not read.
/// - A coordinate out of range is an error naming the point and its line; so is an unreadable time.
public enum GPXReader {
    /// Reads a GPX document. `file` names it in errors.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedData {
        let bytes = try WorkoutFiles.inflatedIfGzip(bytes, file: file)
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw ImportError(file: file, "the file is empty")
        }
        let root = try ExportXML.parse(bytes, file: file)
        guard root.name == "gpx" else {
            throw ImportError(file: file, location: "line \(ExportXML.line(of: root.offset, in: bytes))", "not a GPX file (its root is <\(root.name)>)")
        }
        let tracks = root.children("trk")
        guard !tracks.isEmpty else { throw ImportError(file: file, "the GPX has no track (trk)") }

        var data = ImportedData()
        var pointNumber = 0
        for track in tracks {
            var route: [LocationPoint] = []
            var distance = 0.0
            var heartRates: [Double] = []
            for segment in track.children("trkseg") {
                var points: [LocationPoint] = []
                for element in segment.children("trkpt") {
                    pointNumber += 1
                    let point = try readPoint(element, number: pointNumber, bytes: bytes, file: file)
                    if let rate = point.heartRate { heartRates.append(rate) }
                    points.append(point)
                }
                distance += WorkoutFiles.length(of: points)
                route += points
            }
            let times = route.compactMap(\.timeMs)
            guard let start = times.min(), let end = times.max() else { continue }
            let stats = track.child("extensions")?.descendant("TrackStatsExtension")
            let type = track.childValue("type") ?? ""
            let activity = HealthKitActivity.rawValue(stravaType: type) ?? HealthKitActivity.rawValue(for: type)
            let devices = stats?.childValue("Distance").flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            var workout = ImportedWorkout(
                activityType: activity, startMs: start, endMs: end,
                distanceMeters: devices ?? distance,
                energyKilocalories: stats?.childValue("Calories").flatMap(Double.init),
                averageHeartRate: WorkoutFiles.mean(heartRates),
                route: route, name: track.childValue("name"), format: "gpx")
            workout.distanceIsDevices = devices != nil
            data.workouts.append(workout)
        }
        guard !data.workouts.isEmpty else { throw ImportError(file: file, "a GPX without times cannot be a workout") }
        return data
    }

    private static func readPoint(_ element: ExportXML.Element, number: Int, bytes: [UInt8], file: String) throws(ImportError) -> LocationPoint {
        // Only computed for an error: counting lines for every point would be quadratic.
        var location: String { "line \(ExportXML.line(of: element.offset, in: bytes))" }
        let what = "trkpt \(number)"
        guard let latText = element.attribute("lat"), let lonText = element.attribute("lon") else {
            throw ImportError(file: file, location: location, "\(what) has no lat or lon")
        }
        guard let latitude = Double(latText.workoutTrimmed()), let longitude = Double(lonText.workoutTrimmed()) else {
            throw ImportError(file: file, location: location, "\(what)'s lat \"\(latText)\" or lon \"\(lonText)\" is not a number")
        }
        try WorkoutFiles.checkCoordinate(latitude: latitude, longitude: longitude, file: file, location: location, what: what)
        var time: Int64?
        if let text = element.childValue("time") {
            guard let parsed = WorkoutFiles.parseISO8601(text) else {
                throw ImportError(file: file, location: location, "\(what)'s time \"\(text)\" is not an ISO 8601 time")
            }
            time = parsed
        }
        let elevation = element.childValue("ele").flatMap(Double.init)
        let heartRate = element.child("extensions")?.descendant("hr").flatMap { Double($0.value) }
        return LocationPoint(timeMs: time, latitude: latitude, longitude: longitude,
                             elevation: elevation?.isFinite == true ? elevation : nil, heartRate: heartRate)
    }
}
