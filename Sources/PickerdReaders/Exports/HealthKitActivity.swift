import PickerdImport

/// HealthKit's `HKWorkoutActivityType` raw values for the activities the export readers see, and the
/// one mapping from the names files use ("running", "Biking", "trail_running", Strava's "Ride") to
/// them. GPX, TCX and FIT all go through it, so a run is 37 whichever file it came from.
public enum HealthKitActivity {
    /// `HKWorkoutActivityType.running`.
    public static let running: UInt32 = 37
    /// `HKWorkoutActivityType.cycling`.
    public static let cycling: UInt32 = 13
    /// `HKWorkoutActivityType.walking`.
    public static let walking: UInt32 = 52
    /// `HKWorkoutActivityType.hiking`.
    public static let hiking: UInt32 = 24
    /// `HKWorkoutActivityType.swimming`.
    public static let swimming: UInt32 = 46
    /// `HKWorkoutActivityType.other`.
    public static let other: UInt32 = 3000

    /// The raw value for an activity's name, case-insensitive, with spaces and hyphens read as `_`:
    /// - 37 running: "run", "running", "trail_running", "treadmill_running", "street_running",
    ///   "track_running", "indoor_running", "virtualrun", "virtual_run";
    /// - 13 cycling: "ride", "cycling", "biking", "bike", "virtualride", "virtual_ride", "road_biking",
    ///   "mountain_biking", "gravel_cycling", "indoor_cycling", "road_cycling", "ebikeride", "e_bike_ride",
    ///   "mountainbikeride", "gravelride";
    /// - 52 walking: "walk", "walking", "casual_walking", "speed_walking";
    /// - 24 hiking: "hike", "hiking";
    /// - 46 swimming: "swim", "swimming", "lap_swimming", "open_water_swimming";
    /// - 3000 other: anything else (and the empty string).
    public static func rawValue(for name: String) -> UInt32 {
        let key = String(name.workoutTrimmed().lowercased().map { $0.isWhitespace || $0 == "-" ? "_" : $0 })
        return table[key] ?? other
    }

    /// The raw value for Strava's numeric GPX `<type>` (1 Ride, 4 Hike, 9 Run, 10 Walk, 16 Swim,
    /// 17 VirtualRide, 18 EBikeRide; anything else is other), `nil` when `text` is not a number.
    public static func rawValue(stravaType text: String) -> UInt32? {
        guard let number = Int(text.workoutTrimmed()) else { return nil }
        switch number {
        case 1, 17, 18: return cycling
        case 4: return hiking
        case 9: return running
        case 10: return walking
        case 16: return swimming
        default: return other
        }
    }

    /// The raw value for a FIT `sport` enum (and its `sub_sport`, unused for now): running (1) → 37,
    /// cycling (2) → 13, walking (11) → 52, hiking (17) → 24, swimming (5) → 46, anything else
    /// (generic 0, training 10, an invalid 255…) → 3000.
    public static func rawValue(fitSport sport: UInt8) -> UInt32 {
        switch sport {
        case 1: return running
        case 2: return cycling
        case 11: return walking
        case 17: return hiking
        case 5: return swimming
        default: return other
        }
    }

    private static let table: [String: UInt32] = {
        var table: [String: UInt32] = [:]
        for name in ["run", "running", "trail_running", "treadmill_running", "street_running", "track_running",
                     "indoor_running", "virtualrun", "virtual_run"] { table[name] = running }
        for name in ["ride", "cycling", "biking", "bike", "virtualride", "virtual_ride", "road_biking", "mountain_biking",
                     "gravel_cycling", "indoor_cycling", "road_cycling", "ebikeride", "e_bike_ride", "mountainbikeride",
                     "gravelride"] { table[name] = cycling }
        for name in ["walk", "walking", "casual_walking", "speed_walking"] { table[name] = walking }
        for name in ["hike", "hiking"] { table[name] = hiking }
        for name in ["swim", "swimming", "lap_swimming", "open_water_swimming"] { table[name] = swimming }
        return table
    }()
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks (no Foundation needed).
    func workoutTrimmed() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}
