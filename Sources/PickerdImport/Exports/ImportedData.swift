public import PickerdStore

/// What an export file held, before it becomes library items: workouts with their routes, visits to
/// places, and raw location points. Every reader produces these; ``ExportImporter`` turns them into
/// items (Workout, Location, LocationGroup, MotionActivity) in one transaction per file.
public struct ImportedData: Sendable, Hashable {
    /// Workouts (GPX tracks, TCX activities, FIT sessions, Takeout activity segments).
    public var workouts: [ImportedWorkout] = []
    /// Visits to places (Takeout's placeVisit / Timeline visits, or found from raw points).
    public var visits: [ImportedVisit] = []
    /// Raw location points (Records.json, OwnTracks), when the reader does not turn them into visits.
    public var points: [LocationPoint] = []
    /// Places the person keeps going back to, clustered from the visits found in raw points
    /// (Records.json, OwnTracks), with `home` inferred when the export has no label; empty for the
    /// formats that carry their own places. See ``StayDetector/significantPlaces(from:radiusMeters:)``.
    public var places: [SignificantPlace] = []
    /// Songs and podcast episodes listened to (ListenBrainz, Last.fm).
    public var listens: [ImportedListen] = []
    /// Moods logged (Daylio), as State of Mind samples.
    public var moods: [ImportedMood] = []
    /// What the file held but was left out, by a plural noun a person reads (`custom moods left out`).
    public var leftOut: [String: Int] = [:]
    /// Contacts (vCard), each once.
    public var contacts: [ImportedContact] = []
    /// Calendar events (.ics), one per VEVENT, recurrences expanded into their occurrences.
    public var events: [ImportedEvent] = []
    /// Walks and runs found in step counts (Apple Health, Gadgetbridge), outside the workouts.
    public var motion: [ImportedMotion] = []
    /// What else the file held that is told, not imported, by a plural noun a person reads
    /// (`health records`): a count for the import's report.
    public var read: [String: Int] = [:]

    /// Creates an empty result.
    public init(workouts: [ImportedWorkout] = [], visits: [ImportedVisit] = [], points: [LocationPoint] = [], places: [SignificantPlace] = []) {
        self.workouts = workouts
        self.visits = visits
        self.points = points
        self.places = places
    }
}

/// One point of a route or of location history.
public struct LocationPoint: Sendable, Hashable {
    /// When, ms since 1970 (`nil` when the file has no time for it, as a GPX route may not).
    public var timeMs: Int64?
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// Metres above sea level.
    public var elevation: Double?
    /// Horizontal accuracy in metres.
    public var accuracy: Double?
    /// Heart rate at that point, beats per minute.
    public var heartRate: Double?

    /// Creates a point.
    public init(timeMs: Int64?, latitude: Double, longitude: Double, elevation: Double? = nil, accuracy: Double? = nil, heartRate: Double? = nil) {
        self.timeMs = timeMs
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.accuracy = accuracy
        self.heartRate = heartRate
    }
}

/// A workout from an export.
public struct ImportedWorkout: Sendable, Hashable {
    /// HealthKit's `HKWorkoutActivityType` raw value (running 37, walking 52, cycling 13, hiking 24,
    /// swimming 46, other 3000).
    public var activityType: UInt32
    /// When it started, ms since 1970.
    public var startMs: Int64
    /// When it ended, ms since 1970.
    public var endMs: Int64
    /// Distance in metres.
    public var distanceMeters: Double?
    /// Active energy in kilocalories.
    public var energyKilocalories: Double?
    /// Average heart rate, beats per minute.
    public var averageHeartRate: Double?
    /// Steps, when the file has them.
    public var steps: Int?
    /// Its route, in time order.
    public var route: [LocationPoint]
    /// The name the file gives it ("Morning Run"), if any.
    public var name: String?
    /// The format it came from: `gpx`, `tcx`, `fit`, `takeout`.
    public var format: String
    /// Whether ``distanceMeters`` is the device's own summary (a TCX lap's `DistanceMeters`, a FIT
    /// session's `total_distance`, a GPX TrackStatsExtension's `Distance`) rather than measured
    /// here along the route: when two copies merge, the device's figure is kept.
    public var distanceIsDevices = false

    /// Creates a workout.
    public init(activityType: UInt32, startMs: Int64, endMs: Int64, distanceMeters: Double? = nil, energyKilocalories: Double? = nil,
                averageHeartRate: Double? = nil, steps: Int? = nil, route: [LocationPoint] = [], name: String? = nil, format: String) {
        self.activityType = activityType
        self.startMs = startMs
        self.endMs = endMs
        self.distanceMeters = distanceMeters
        self.energyKilocalories = energyKilocalories
        self.averageHeartRate = averageHeartRate
        self.steps = steps
        self.route = route
        self.name = name
        self.format = format
    }
}

/// A visit to a place from an export (or found in raw points).
public struct ImportedVisit: Sendable, Hashable {
    /// When it began, ms since 1970.
    public var startMs: Int64
    /// When it ended, ms since 1970.
    public var endMs: Int64
    /// Where.
    public var coordinate: Coordinate
    /// The place's name, when the export has one ("Riverside Park").
    public var placeName: String?
    /// Its address, when the export has one.
    public var address: String?
    /// `home` or `work` when the export labels it so.
    public var semantic: String?
    /// The export's own id for the place (Google's placeId), for telling the same visit twice.
    public var placeID: String?

    /// Creates a visit.
    public init(startMs: Int64, endMs: Int64, coordinate: Coordinate, placeName: String? = nil, address: String? = nil,
                semantic: String? = nil, placeID: String? = nil) {
        self.startMs = startMs
        self.endMs = endMs
        self.coordinate = coordinate
        self.placeName = placeName
        self.address = address
        self.semantic = semantic
        self.placeID = placeID
    }
}

/// Why an export file could not be read: which file, where in it, and what was wrong. Nothing of a
/// file that fails is imported.
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// Where in it ("line 1204", "record 37", "byte 5120"), when known.
    public var location: String?
    /// What was wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, location: String? = nil, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    /// "Records.json, line 1204: a latitudeE7 out of range".
    public var description: String { location.map { "\(file), \($0): \(message)" } ?? "\(file): \(message)" }
}
