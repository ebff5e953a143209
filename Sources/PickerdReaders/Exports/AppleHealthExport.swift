import Foundation
public import PickerdImport
import PickerdWire

/// Apple Health's export (Health → profile → Export All Health Data): `export.zip`, holding
/// `apple_health_export/export.xml` and `workout-routes/*.gpx`, or that folder unpacked.
///
/// `export.xml` is read with ``XMLTagStream``, one tag at a time (real exports are hundreds of MB to
/// several GB; memory stays at a chunk, the step samples kept for walks, and the workouts). Inside
/// `export.zip` it is inflated as it is read, never unpacked whole (``ZipArchive/StreamedMember``):
/// - `<Workout>`: `workoutActivityType` (`HKWorkoutActivityTypeRunning` → 37, see
///   ``activityType(_:)``), `startDate`/`endDate` (`2024-05-04 07:05:00 -0400`), `totalDistance`
///   with `totalDistanceUnit` (km, mi, m, yd, ft), `totalEnergyBurned` with its unit (kcal, Cal, kJ);
///   its `<WorkoutStatistics>` (newer exports put distance, energy, average heart rate and steps
///   there instead), its `<MetadataEntry key="HKIndoorWorkout">` (for the name: "Indoor Run"),
///   and its `<WorkoutRoute>`'s `<FileReference path="/workout-routes/….gpx"/>`, read with
///   ``GPXReader`` from the export's folder. A route file that is missing or unreadable leaves the
///   workout without a route and is counted (`workout routes not found in the export`), never fatal.
///   `<WorkoutEvent>`s (pauses, laps, segments) are read past.
/// - `<Record type="HKQuantityTypeIdentifierStepCount">`: step samples, folded into each run, walk
///   and hike's steps and into walks and runs outside workouts (``StepSamples``).
/// - State of Mind (iOS 18's `HKStateOfMind`, logged in the Health app or the Mindfulness app):
///   see ``readStateOfMind(_:)`` for the form read, which Apple does not document for the export.
/// - Everything else (heart rate, energy, sleep, `<ActivitySummary>`, `<Correlation>`, `<Me>`…) is
///   read past.
///
/// Bounds (the reader runs in pickerd-reader, whose time grows with the bytes it inflates from the
/// zip, and whose memory pickerd watches): a tag of 1 MiB, 64 deep
/// (``XMLTagStream``), ``maximumWorkouts`` workouts, ``StepSamples/maximumSamples`` step samples,
/// ``maximumRouteFiles`` route files per workout of ``maximumRouteFile`` each, a route kept thinned
/// to ``ExportItems/maximumRoutePoints``. A malformed or truncated `export.xml` is an
/// ``ImportError`` with its line, and nothing of it is imported.
public enum AppleHealthExport {
    /// The format name items carry.
    public static let format = "apple-health"
    /// The most workouts read from one export.
    static let maximumWorkouts = 100_000
    /// The most route files one workout may name (Apple's name one).
    static let maximumRouteFiles = 16
    /// The largest route GPX read.
    static let maximumRouteFile = 64 << 20
    /// How often progress is told, in records.
    static let progressEvery = 50_000

    /// Reads `export.xml` at `path`; route files are looked for beside it.
    /// - Parameters:
    ///   - path: the `export.xml`.
    ///   - name: its name, for errors.
    ///   - records: told how many top-level records and workouts were read so far (every 50,000).
    /// - Returns: its workouts, walks and runs, and what was left out.
    /// - Throws: ``ImportError`` when the document is not an export, malformed or truncated.
    public static func read(path: String, name: String, records: (Int) -> Void = { _ in }) throws(ImportError) -> ImportedData {
        let folder = (path as NSString).deletingLastPathComponent
        let stream = try XMLTagStream(path: path, file: name)
        var data = ImportedData()
        var steps = StepSamples()
        var count = 0
        var workout: Draft?
        var inRoute = false
        var moodMinutes = Set<Int64>()

        while let token = try stream.next() {
            let depth = stream.depth
            switch token {
            case .open:
                if depth == 1 {
                    guard stream.nameIs("HealthData") else {
                        throw stream.error("not an Apple Health export (its root is <\(stream.name)>, not <HealthData>)")
                    }
                } else if depth == 2 {
                    count += 1
                    if count % progressEvery == 0 { records(count) }
                    if stream.nameIs("Record") {
                        if stream.attribute("type", is: "HKQuantityTypeIdentifierStepCount") {
                            try readSteps(stream, into: &steps)
                        } else if let type = stream.rawAttribute("type"), contains(type, "StateOfMind") {
                            addStateOfMind(stream, into: &data, minutes: &moodMinutes)
                        }
                    } else if stream.nameIs("StateOfMind") {
                        addStateOfMind(stream, into: &data, minutes: &moodMinutes)
                    } else if stream.nameIs("Workout") {
                        guard data.workouts.count < maximumWorkouts else { throw stream.error("more than \(maximumWorkouts) workouts") }
                        workout = try Draft(stream)
                    }
                } else if workout != nil, depth == 3 {
                    if stream.nameIs("WorkoutStatistics") {
                        workout!.statistics(stream)
                    } else if stream.nameIs("MetadataEntry"), stream.attribute("key", is: "HKIndoorWorkout") {
                        workout!.indoor = stream.attribute("value") == "1"
                    } else if stream.nameIs("WorkoutRoute") {
                        inRoute = true
                    }
                } else if workout != nil, inRoute, depth == 4, stream.nameIs("FileReference"), let reference = stream.attribute("path") {
                    guard workout!.routeFiles.count < maximumRouteFiles else {
                        throw stream.error("a workout with more than \(maximumRouteFiles) route files")
                    }
                    workout!.routeFiles.append(reference)
                }
            case .close:
                if depth == 1, stream.nameIs("Workout"), let draft = workout {
                    workout = nil
                    inRoute = false
                    data.workouts.append(finish(draft, folder: folder, into: &data))
                } else if depth == 2, stream.nameIs("WorkoutRoute") {
                    inRoute = false
                }
            }
        }
        records(count)
        steps.fold(into: &data, format: format)
        data.read["health records"] = count
        return data
    }

    /// Why a State of Mind sample was left out, as the import's summary says it.
    static let stateOfMindLeftOut = "State of Mind samples left out (no date or valence pickerd reads)"
    /// A State of Mind sample in a minute that already has one (a mood's id is its minute).
    static let stateOfMindRepeated = "State of Mind samples left out (another in the same minute)"

    /// Reads a State of Mind sample into `data.moods`, or counts it as left out: never fatal, as
    /// its form is not documented (``readStateOfMind(_:)``).
    private static func addStateOfMind(_ stream: XMLTagStream, into data: inout ImportedData, minutes: inout Set<Int64>) {
        guard let mood = readStateOfMind(stream) else {
            data.leftOut[stateOfMindLeftOut, default: 0] += 1
            return
        }
        guard minutes.insert(mood.startMs / 60_000).inserted else {
            data.leftOut[stateOfMindRepeated, default: 0] += 1
            return
        }
        data.moods.append(mood)
    }

    /// A State of Mind sample (`HKStateOfMind`, iOS 18 and later) as a mood; `nil` when it has no
    /// date or valence this reads.
    ///
    /// **What is known, and what is assumed.** Apple documents the sample (HealthKit's
    /// `HKStateOfMind`: `kind` `.momentaryEmotion` or `.dailyMood`, `valence` from −1 to 1, its
    /// `valenceClassification`, `labels` such as `.happy`, `associations` such as `.work`; its type's
    /// identifier is `HKDataTypeStateOfMind`, `HKObjectType.stateOfMindType()`), but not how the Health
    /// app's "Export All Health Data" writes it: `export.xml`'s DTD (HealthKit Export Version 14)
    /// lists `Record`, `Correlation`, `Workout`, `ActivitySummary`, `ClinicalRecord`, `Audiogram` and
    /// `VisionPrescription`, and no public export sample, Apple documentation or open-source reader
    /// (searched November 2026) shows State of Mind in one; open-source readers ask for it or skip it
    /// (the-momentum/open-wearables issue 1251, wkaisertexas/HealthLens issue 28). So this reads the
    /// form the export gives every other sample, and names the rest after HealthKit's properties:
    /// ```
    /// <Record type="HKDataTypeStateOfMind" sourceName="Health" startDate="2024-10-02 21:10:00 +0100"
    ///         endDate="2024-10-02 21:10:00 +0100" kind="HKStateOfMindKindDailyMood" valence="0.62"
    ///         labels="HKStateOfMindLabelHappy,HKStateOfMindLabelGrateful" associations="HKStateOfMindAssociationFamily"/>
    /// ```
    /// - any element at the top level whose `type` contains `StateOfMind`, or a `<StateOfMind>` element
    ///   (the element name an export of its own would most likely take);
    /// - `startDate` (required), in the export's date form;
    /// - `valence` (required; `value`, as every other record writes its number, when there is no
    ///   `valence`): a number from −1 to 1;
    /// - `kind`: `HKStateOfMindKindDailyMood`, `dailyMood` or `2` is a daily mood; anything else, or
    ///   none, a momentary emotion (HealthKit's raw values: 1 momentary, 2 daily);
    /// - `labels` and `associations`: names separated by commas, `|`, `;` or spaces, with or without
    ///   HealthKit's `HKStateOfMindLabel`/`HKStateOfMindAssociation` prefix, in any case, or
    ///   HealthKit's raw numbers; names not known are dropped.
    ///
    /// The valence classification is the one ``StateOfMindStyle/classification(valence:)`` gives, as
    /// for Daylio's moods (HealthKit derives it from the valence the same way). A sample without a
    /// date or a valence in range is left out and counted, never fatal: if Apple's form turns out to
    /// differ, the import says how many samples it could not read instead of failing.
    static func readStateOfMind(_ stream: XMLTagStream) -> ImportedMood? {
        guard let start = stream.rawAttribute("startDate").flatMap(HealthDates.parse),
              let text = stream.attribute("valence") ?? stream.attribute("value"),
              let valence = Double(text.trimmingCharacters(in: .whitespaces)), valence.isFinite, (-1...1).contains(valence) else { return nil }
        let kindText = (stream.attribute("kind") ?? "").lowercased()
        let kind: StateOfMindKind = kindText.hasSuffix("dailymood") || kindText == "2" ? .dailyMood : .momentaryEmotion
        let labels = names(stream.attribute("labels"), prefix: "hkstateofmindlabel").compactMap { name -> StateOfMindLabel? in
            if let raw = Int32(name) { return StateOfMindLabel.allKnown.first { $0.rawValue == raw && $0 != .unspecified } }
            return StateOfMindLabel.byName[name]
        }
        let associations = names(stream.attribute("associations"), prefix: "hkstateofmindassociation").compactMap { name -> StateOfMindAssociation? in
            if let raw = Int32(name) { return StateOfMindAssociation.allKnown.first { $0.rawValue == raw && $0 != .unspecified } }
            return StateOfMindAssociation.byName[name]
        }
        return ImportedMood(startMs: start.ms, kind: kind, valence: valence, labels: unique(labels), associations: unique(associations), format: format)
    }

    /// The names in a list (lowercased, HealthKit's prefix removed).
    private static func names(_ text: String?, prefix: String) -> [String] {
        guard let text else { return [] }
        return text.lowercased().split(whereSeparator: { $0 == "," || $0 == "|" || $0 == ";" || $0 == " " }).map {
            $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : String($0)
        }
    }

    private static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }


    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        needle.withUTF8Buffer { n in
            guard bytes.count >= n.count else { return false }
            for i in 0...(bytes.count - n.count) where memcmp(bytes.baseAddress! + i, n.baseAddress!, n.count) == 0 { return true }
            return false
        }
    }

    private static func readSteps(_ stream: XMLTagStream, into steps: inout StepSamples) throws(ImportError) {
        guard let start = stream.rawAttribute("startDate").flatMap(HealthDates.parse),
              let end = stream.rawAttribute("endDate").flatMap(HealthDates.parse) else {
            throw stream.error("a step count whose startDate or endDate is not a date")
        }
        guard let text = stream.attribute("value"), let value = Double(text) else {
            throw stream.error("a step count whose value is not a number")
        }
        steps.add(startMs: start.ms, endMs: end.ms, steps: value, source: stream.attribute("sourceName") ?? "")
    }

    /// A workout as it is read: its attributes, then what its children add.
    struct Draft {
        var activity: UInt32
        var startMs: Int64
        var endMs: Int64
        var distance: Double?
        var energy: Double?
        var heartRate: Double?
        var steps: Int?
        var indoor: Bool?
        var routeFiles: [String] = []
        let line: Int

        init(_ stream: XMLTagStream) throws(ImportError) {
            let type = stream.attribute("workoutActivityType") ?? ""
            activity = AppleHealthExport.activityType(type)
            guard let start = stream.rawAttribute("startDate").flatMap(HealthDates.parse),
                  let end = stream.rawAttribute("endDate").flatMap(HealthDates.parse) else {
                throw stream.error("a workout whose startDate or endDate is not a date")
            }
            guard end.ms >= start.ms else { throw stream.error("a workout that ends before it starts") }
            startMs = start.ms
            endMs = end.ms
            line = stream.line
            distance = AppleHealthExport.meters(stream.attribute("totalDistance"), unit: stream.attribute("totalDistanceUnit"))
            energy = AppleHealthExport.kilocalories(stream.attribute("totalEnergyBurned"), unit: stream.attribute("totalEnergyBurnedUnit"))
        }

        /// A `<WorkoutStatistics>` child: distance, energy, heart rate and steps where the workout's
        /// own attributes have none.
        mutating func statistics(_ stream: XMLTagStream) {
            let type = stream.attribute("type") ?? ""
            let unit = stream.attribute("unit")
            if type.hasPrefix("HKQuantityTypeIdentifierDistance") {
                if distance == nil { distance = AppleHealthExport.meters(stream.attribute("sum"), unit: unit) }
            } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned" {
                if energy == nil { energy = AppleHealthExport.kilocalories(stream.attribute("sum"), unit: unit) }
            } else if type == "HKQuantityTypeIdentifierHeartRate" {
                heartRate = stream.attribute("average").flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 && $0 < 300 ? $0 : nil }
            } else if type == "HKQuantityTypeIdentifierStepCount" {
                steps = stream.attribute("sum").flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 && $0 < 1e7 ? Int($0.rounded()) : nil }
            }
        }
    }

    /// The workout a draft becomes, with its route read from the export's folder.
    private static func finish(_ draft: Draft, folder: String, into data: inout ImportedData) -> ImportedWorkout {
        var workout = ImportedWorkout(activityType: draft.activity, startMs: draft.startMs, endMs: draft.endMs,
                                      distanceMeters: draft.distance, energyKilocalories: draft.energy,
                                      averageHeartRate: draft.heartRate, steps: draft.steps,
                                      name: name(for: draft.activity, indoor: draft.indoor), format: format)
        workout.distanceIsDevices = draft.distance != nil
        for reference in draft.routeFiles {
            let parts = reference.split(separator: "/")
            guard !parts.isEmpty, !parts.contains(".."), !parts.contains(".") else {
                data.leftOut["workout routes whose path leaves the export's folder", default: 0] += 1
                continue
            }
            let path = folder + "/" + parts.joined(separator: "/")
            guard ReaderFiles.exists(path) else {
                data.leftOut["workout routes not found in the export", default: 0] += 1
                continue
            }
            do throws(ImportError) {
                let bytes = try ExportReaders.whole(path, name: String(parts.last!), limit: maximumRouteFile, what: "a route file")
                let route = try GPXReader.read(bytes, file: String(parts.last!)).workouts.flatMap(\.route)
                workout.route += route
            } catch {
                data.leftOut["workout routes unreadable (\(error.description))", default: 0] += 1
            }
        }
        if workout.distanceMeters == nil, workout.route.count > 1 {
            workout.distanceMeters = WorkoutFiles.length(of: workout.route)
        }
        workout.route = thinned(workout.route)
        return workout
    }

    /// `route` evenly thinned to at most `maximum` points (its first and last kept): what the library
    /// keeps of a route anyway (``ExportItems/maximumRoutePoints``), so that a year of daily runs
    /// recorded a point a second is not held whole while the export is read. Distances are measured
    /// before.
    static func thinned(_ route: [LocationPoint], to maximum: Int = ExportItems.maximumRoutePoints) -> [LocationPoint] {
        guard route.count > maximum, maximum >= 2 else { return route }
        let step = Double(route.count - 1) / Double(maximum - 1)
        return (0..<maximum).map { route[Int((Double($0) * step).rounded())] }
    }

    /// Apple's Fitness app's names for the workouts it names after their setting ("Outdoor Run",
    /// "Indoor Walk", "Pool Swim"…), which ``WorkoutNames`` knows as an app's default; `nil` for
    /// the rest, whose names come from the activity alone.
    static func name(for activity: UInt32, indoor: Bool?) -> String? {
        let setting = indoor.map { $0 ? "Indoor " : "Outdoor " } ?? ""
        switch activity {
        case HealthKitActivity.running: return setting + "Run"
        case HealthKitActivity.walking: return setting + "Walk"
        case HealthKitActivity.cycling: return setting + "Cycle"
        case HealthKitActivity.hiking: return "Hiking"
        case HealthKitActivity.swimming: return indoor == true ? "Pool Swim" : indoor == false ? "Open Water Swim" : "Swim"
        case 57: return "Yoga"
        default: return nil
        }
    }

    /// Metres from a distance and its HealthKit unit (`km`, `m`, `mi`, `yd`, `ft`, `cm`); `nil` when
    /// either is missing, not a number, negative, or the unit unknown.
    static func meters(_ text: String?, unit: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite, value >= 0 else { return nil }
        let factor: Double? = switch unit ?? "" {
        case "km": 1000
        case "m": 1
        case "mi": 1609.344
        case "yd": 0.9144
        case "ft": 0.3048
        case "cm": 0.01
        default: nil
        }
        return factor.map { value * $0 }
    }

    /// Kilocalories from an energy and its HealthKit unit (`kcal`, `Cal`, `kJ`, `J`, `cal`).
    static func kilocalories(_ text: String?, unit: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite, value >= 0 else { return nil }
        let factor: Double? = switch unit ?? "" {
        case "kcal", "Cal": 1
        case "kJ": 1 / 4.184
        case "J": 1 / 4184
        case "cal": 0.001
        default: nil
        }
        return factor.map { value * $0 }
    }

    /// HealthKit's `HKWorkoutActivityType` raw value for the name the export writes
    /// (`HKWorkoutActivityTypeRunning` → 37); 3000 (other) for a name it does not know.
    public static func activityType(_ name: String) -> UInt32 {
        let short = name.hasPrefix("HKWorkoutActivityType") ? String(name.dropFirst("HKWorkoutActivityType".count)) : name
        return activityTypes[short] ?? HealthKitActivity.other
    }

    /// HKWorkoutActivityType's cases and raw values, as HealthKit's headers number them.
    static let activityTypes: [String: UInt32] = [
        "AmericanFootball": 1, "Archery": 2, "AustralianFootball": 3, "Badminton": 4, "Baseball": 5, "Basketball": 6,
        "Bowling": 7, "Boxing": 8, "Climbing": 9, "Cricket": 10, "CrossTraining": 11, "Curling": 12, "Cycling": 13,
        "Dance": 14, "DanceInspiredTraining": 15, "Elliptical": 16, "EquestrianSports": 17, "Fencing": 18, "Fishing": 19,
        "FunctionalStrengthTraining": 20, "Golf": 21, "Gymnastics": 22, "Handball": 23, "Hiking": 24, "Hockey": 25,
        "Hunting": 26, "Lacrosse": 27, "MartialArts": 28, "MindAndBody": 29, "MixedMetabolicCardioTraining": 30,
        "PaddleSports": 31, "Play": 32, "PreparationAndRecovery": 33, "Racquetball": 34, "Rowing": 35, "Rugby": 36,
        "Running": 37, "Sailing": 38, "SkatingSports": 39, "SnowSports": 40, "Soccer": 41, "Softball": 42, "Squash": 43,
        "StairClimbing": 44, "SurfingSports": 45, "Swimming": 46, "TableTennis": 47, "Tennis": 48, "TrackAndField": 49,
        "TraditionalStrengthTraining": 50, "Volleyball": 51, "Walking": 52, "WaterFitness": 53, "WaterPolo": 54,
        "WaterSports": 55, "Wrestling": 56, "Yoga": 57, "Barre": 58, "CoreTraining": 59, "CrossCountrySkiing": 60,
        "DownhillSkiing": 61, "Flexibility": 62, "HighIntensityIntervalTraining": 63, "JumpRope": 64, "Kickboxing": 65,
        "Pilates": 66, "Snowboarding": 67, "Stairs": 68, "StepTraining": 69, "WheelchairWalkPace": 70,
        "WheelchairRunPace": 71, "TaiChi": 72, "MixedCardio": 73, "HandCycling": 74, "DiscSports": 75,
        "FitnessGaming": 76, "CardioDance": 77, "SocialDance": 78, "Pickleball": 79, "Cooldown": 80,
        "SwimBikeRun": 82, "Transition": 83, "UnderwaterDiving": 84, "Other": 3000,
    ]
}

extension StateOfMindLabel {
    /// HealthKit's labels by their lowercased names (`happy`, `stressed`): what Daylio's activities
    /// and Apple Health's State of Mind samples are matched against.
    static let byName: [String: StateOfMindLabel] = Dictionary(
        uniqueKeysWithValues: allKnown.filter { $0 != .unspecified }.map { ($0.description.lowercased(), $0) })
}

extension StateOfMindAssociation {
    /// HealthKit's associations by their lowercased names (`work`, `selfcare`).
    static let byName: [String: StateOfMindAssociation] = Dictionary(
        uniqueKeysWithValues: allKnown.filter { $0 != .unspecified }.map { ($0.description.lowercased(), $0) })
}
