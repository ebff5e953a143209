/// Tells the name a person gave a workout ("Sunday long run to Treptower Park") from the one an
/// app gave it by default, so that when two files of the same workout merge, the person's stays.
///
/// App defaults, as they write them into exports: Strava's "Morning Run", "Lunch Ride", "Night
/// Hike"; Apple's "Outdoor Walk"; Polar's, Suunto's and Coros's bare sport ("Running", "Run");
/// numbered or dated ones ("Run 2024-05-04", "Activity 1234"); Garmin Connect's "<city> <sport>"
/// ("Berlin Running", "Lisbon - Trail Running"), which names a place but not what the person
/// called it. The same idea as the engine's test for a title (`SuggestionBuilder.isOwnName`), kept
/// here so the importer does not depend on the engine's wording.
public enum WorkoutNames {
    /// Words that appear in apps' default names (lower-cased): parts of the day, sports, settings.
    static let genericWords: Set<String> = [
        "morning", "afternoon", "evening", "night", "lunch", "early", "late", "outdoor", "indoor", "run", "running", "ride",
        "cycling", "bike", "biking", "walk", "walking", "hike", "hiking", "swim", "swimming", "pool", "open", "water",
        "workout", "activity", "yoga", "treadmill", "easy", "long", "trail", "road", "mountain", "gravel", "virtual", "e-bike",
        "track", "street", "training", "session", "strength", "cardio", "elliptical", "rowing", "other", "sport", "-", "–",
    ]

    /// Sports Garmin Connect puts after a city in its default names (lower-cased, last words).
    static let garminSports: [[String]] = [
        ["running"], ["trail", "running"], ["treadmill", "running"], ["cycling"], ["road", "cycling"], ["mountain", "biking"],
        ["walking"], ["hiking"], ["swimming"], ["open", "water", "swimming"], ["pool", "swim"],
    ]

    /// How much a name is the person's own, for choosing between two copies' names: 0 for none,
    /// 1 for an app's default made of ``genericWords`` and numbers, 2 for Garmin's "<city> <sport>"
    /// (one or two words, then one of ``garminSports``), 3 for anything else: the person's own.
    /// - Parameter name: a workout's name.
    /// - Returns: 0…3; higher wins.
    public static func rank(_ name: String) -> Int {
        let words = name.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "_" }).map(String.init)
        guard !words.isEmpty else { return 0 }
        let isNumber: (String) -> Bool = { word in word.allSatisfy { $0.isNumber || "-/:.,#".contains($0) } }
        if words.allSatisfy({ genericWords.contains($0) || isNumber($0) }) { return 1 }
        let meaningful = words.filter { $0 != "-" && $0 != "–" }
        if let sport = garminSports.first(where: { meaningful.count > $0.count && meaningful.suffix($0.count).elementsEqual($0) }),
           (1...2).contains(meaningful.count - sport.count), name.first?.isUppercase == true {
            return 2
        }
        return 3
    }
}
