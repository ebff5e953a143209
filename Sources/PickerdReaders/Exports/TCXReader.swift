public import PickerdImport

/// Reads Garmin Training Center XML (TCX v2; gzip-compressed too) into workouts: one per
/// `Activities/Activity`.
///
/// - Activity: the `Sport` attribute ("Running", "Biking", "Other") through
///   ``HealthKitActivity/rawValue(for:)``.
/// - Start: the activity's `Id` (its start time), else the first lap's `StartTime`. End: the latest
///   of each lap's start plus `TotalTimeSeconds` and the last trackpoint's `Time`.
/// - Distance: the device's own: the laps' `DistanceMeters` summed, else the last trackpoint's
///   `DistanceMeters`; else the route's length with the jitter of stops left out
///   (``WorkoutFiles/length(of:)``). Energy: the laps' `Calories` summed. Average heart rate: the laps'
///   `AverageHeartRateBpm` weighted by their times, else the mean of the trackpoints'. Steps: the laps'
///   `Extensions/LX/Steps` summed, when present.
/// - Route: the `Track/Trackpoint`s with a `Position` (`Time`, `LatitudeDegrees`, `LongitudeDegrees`,
///   `AltitudeMeters`, `HeartRateBpm/Value`). Name: the activity's `Notes`, if any.
/// - Errors, each naming the file and the line: a coordinate out of range, an unreadable time, an
///   activity with no time at all; a file with no activity is an error too (a TCX course is not a
///   workout).
public enum TCXReader {
    /// Reads a TCX document. `file` names it in errors.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedData {
        let bytes = try WorkoutFiles.inflatedIfGzip(bytes, file: file)
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw ImportError(file: file, "the file is empty")
        }
        let root = try ExportXML.parse(bytes, file: file)
        guard root.name == "TrainingCenterDatabase" else {
            throw ImportError(file: file, location: "line \(ExportXML.line(of: root.offset, in: bytes))",
                              "not a TCX file (its root is <\(root.name)>)")
        }
        let activities = root.child("Activities")?.children("Activity") ?? []
        guard !activities.isEmpty else { throw ImportError(file: file, "the TCX has no activity") }
        var data = ImportedData()
        for activity in activities {
            data.workouts.append(try readActivity(activity, bytes: bytes, file: file))
        }
        return data
    }

    private static func readActivity(_ activity: ExportXML.Element, bytes: [UInt8], file: String) throws(ImportError) -> ImportedWorkout {
        func line(_ element: ExportXML.Element) -> String { "line \(ExportXML.line(of: element.offset, in: bytes))" }
        func time(_ text: String, of element: ExportXML.Element, _ what: String) throws(ImportError) -> Int64 {
            guard let ms = WorkoutFiles.parseISO8601(text) else {
                throw ImportError(file: file, location: line(element), "\(what) \"\(text)\" is not an ISO 8601 time")
            }
            return ms
        }

        var start: Int64?
        if let id = activity.childValue("Id") { start = try time(id, of: activity, "the activity's Id") }
        var end: Int64?
        var lapDistance: Double?
        var energy: Double?
        var steps: Int?
        var weightedRate = 0.0
        var rateSeconds = 0.0
        var route: [LocationPoint] = []
        var lastTrackDistance: Double?
        var trackRates: [Double] = []
        var pointNumber = 0

        for lap in activity.children("Lap") {
            var lapStart: Int64?
            if let text = lap.attribute("StartTime") {
                lapStart = try time(text, of: lap, "the lap's StartTime")
                if start == nil { start = lapStart }
            }
            let seconds = lap.childValue("TotalTimeSeconds").flatMap(Double.init)
            if let lapStart, let seconds, seconds.isFinite, seconds >= 0 {
                end = max(end ?? lapStart, lapStart + Int64((seconds * 1000).rounded()))
            }
            if let meters = lap.childValue("DistanceMeters").flatMap(Double.init), meters.isFinite {
                lapDistance = (lapDistance ?? 0) + meters
            }
            if let calories = lap.childValue("Calories").flatMap(Double.init), calories.isFinite {
                energy = (energy ?? 0) + calories
            }
            if let rate = lap.child("AverageHeartRateBpm")?.childValue("Value").flatMap(Double.init), let seconds, seconds > 0 {
                weightedRate += rate * seconds
                rateSeconds += seconds
            }
            if let lapSteps = lap.child("Extensions")?.descendant("Steps").flatMap({ Int($0.value) }) {
                steps = (steps ?? 0) + lapSteps
            }
            for track in lap.children("Track") {
                for trackpoint in track.children("Trackpoint") {
                    pointNumber += 1
                    var pointTime: Int64?
                    if let text = trackpoint.childValue("Time") {
                        let ms = try time(text, of: trackpoint, "Trackpoint \(pointNumber)'s Time")
                        pointTime = ms
                        end = max(end ?? ms, ms)
                        if start == nil { start = ms }
                    }
                    let rate = trackpoint.child("HeartRateBpm")?.childValue("Value").flatMap(Double.init)
                    if let rate { trackRates.append(rate) }
                    if let meters = trackpoint.childValue("DistanceMeters").flatMap(Double.init), meters.isFinite {
                        lastTrackDistance = meters
                    }
                    guard let position = trackpoint.child("Position") else { continue }
                    guard let latitude = position.childValue("LatitudeDegrees").flatMap(Double.init),
                          let longitude = position.childValue("LongitudeDegrees").flatMap(Double.init) else {
                        throw ImportError(file: file, location: line(trackpoint), "Trackpoint \(pointNumber)'s Position is not two numbers")
                    }
                    try WorkoutFiles.checkCoordinate(latitude: latitude, longitude: longitude, file: file,
                                                     location: line(trackpoint), what: "Trackpoint \(pointNumber)")
                    let altitude = trackpoint.childValue("AltitudeMeters").flatMap(Double.init)
                    route.append(LocationPoint(timeMs: pointTime, latitude: latitude, longitude: longitude,
                                               elevation: altitude?.isFinite == true ? altitude : nil, heartRate: rate))
                }
            }
        }
        guard let start else {
            throw ImportError(file: file, location: line(activity), "an activity without any time cannot be a workout")
        }
        let sport = activity.attribute("Sport") ?? ""
        let devices = lapDistance ?? lastTrackDistance
        var workout = ImportedWorkout(
            activityType: HealthKitActivity.rawValue(for: sport),
            startMs: start, endMs: max(end ?? start, start),
            distanceMeters: devices ?? (route.count > 1 ? WorkoutFiles.length(of: route) : nil),
            energyKilocalories: energy,
            averageHeartRate: rateSeconds > 0 ? weightedRate / rateSeconds : WorkoutFiles.mean(trackRates),
            steps: steps, route: route, name: activity.childValue("Notes"), format: "tcx")
        workout.distanceIsDevices = devices != nil
        return workout
    }
}
