public import PickerdStore
public import PickerdWire

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
    /// formats that carry their own places. See PickerdReaders' `StayDetector.significantPlaces(from:radiusMeters:)`.
    public var places: [SignificantPlace] = []
    /// Songs and podcast episodes listened to (ListenBrainz, Last.fm, Spotify).
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

/// A place a person keeps going back to, from their visits.
public struct SignificantPlace: Sendable, Hashable {
    /// Its centroid (weighted by time spent).
    public var coordinate: Coordinate
    /// Time spent there in all, ms.
    public var totalMs: Int64
    /// How many visits.
    public var visitCount: Int
    /// `home` or `work`, from the export's labels or (home only) inferred.
    public var semantic: String?
    /// Whether ``semantic`` was inferred (the place with the most time) rather than the export's.
    public var semanticInferred: Bool
    /// The name its visits carry most, if any.
    public var placeName: String?
    /// The export's place id its visits carry most, if any.
    public var placeID: String?

    /// Creates a place.
    public init(coordinate: Coordinate, totalMs: Int64, visitCount: Int, semantic: String? = nil, semanticInferred: Bool = false,
                placeName: String? = nil, placeID: String? = nil) {
        self.coordinate = coordinate
        self.totalMs = totalMs
        self.visitCount = visitCount
        self.semantic = semantic
        self.semanticInferred = semanticInferred
        self.placeName = placeName
        self.placeID = placeID
    }
}

/// One listen from a listening-history export (ListenBrainz, Last.fm, Spotify): a song, or a podcast
/// episode when the export says so. ``ExportItems`` makes it a Song or a Podcast item whose id
/// comes from the artist, the track and the minute it was played, so the same listen from two
/// exports is one item.
public struct ImportedListen: Sendable, Hashable {
    /// When it was played (ListenBrainz: playback start; Spotify: the play's end less its time played), ms since 1970.
    public var startMs: Int64
    /// How long the track is, when the export says (ListenBrainz `duration_ms` / `duration`).
    public var durationMs: Int64?
    /// The artist (for a podcast, whoever the scrobbler named as artist: usually the show).
    public var artist: String
    /// The track's title (for a podcast, the episode's).
    public var track: String
    /// The album (release), empty when the export has none.
    public var album: String
    /// Whether the export marks it a podcast episode (see PickerdReaders' `ListenBrainzExport`).
    public var isPodcast: Bool
    /// The format it came from: `listenbrainz`, `lastfm`, `spotify`.
    public var format: String

    /// Creates a listen.
    public init(startMs: Int64, durationMs: Int64? = nil, artist: String, track: String, album: String = "", isPodcast: Bool = false, format: String) {
        self.startMs = startMs
        self.durationMs = durationMs
        self.artist = artist
        self.track = track
        self.album = album
        self.isPodcast = isPodcast
        self.format = format
    }
}

extension ImportedData {
    /// What a listening-history or mood export held, for ``ExportImporter/FileResult/counts``:
    /// `songs`, `podcasts`, `moods` and what was left out (`custom moods left out`), each only
    /// when not zero.
    var listeningCounts: [String: Int] {
        var counts = leftOut
        let podcasts = listens.count { $0.isPodcast }
        if listens.count > podcasts { counts["songs", default: 0] += listens.count - podcasts }
        if podcasts > 0 { counts["podcasts", default: 0] += podcasts }
        if !moods.isEmpty { counts["moods", default: 0] += moods.count }
        return counts.filter { $0.value > 0 }
    }
}

/// A walk or a run found in step counts (Apple Health's `StepCount` samples, a Gadgetbridge
/// device's minute samples): it becomes a MotionActivity item, as Core Motion's activity segments do.
public struct ImportedMotion: Sendable, Hashable {
    /// When it began, ms since 1970.
    public var startMs: Int64
    /// When it ended, ms since 1970.
    public var endMs: Int64
    /// Steps taken.
    public var steps: Int
    /// Whether its pace was a run's (140 steps a minute or more); otherwise a walk.
    public var running: Bool
    /// The format it came from: `apple-health`, `gadgetbridge`.
    public var format: String

    /// Creates a walk or run.
    public init(startMs: Int64, endMs: Int64, steps: Int, running: Bool, format: String) {
        self.startMs = startMs
        self.endMs = endMs
        self.steps = steps
        self.running = running
        self.format = format
    }
}

/// A contact read from a vCard: its name, email addresses, UID and photo.
public struct ImportedContact: Sendable, Hashable {
    /// The card's UID, if it has one.
    public var uid: String?
    /// The name to show: `FN`, else made from `N`.
    public var name: String
    /// Other exact names ("Given Family" from `N`, when it differs from ``name``).
    public var otherNames: [String]
    /// Its email addresses, as written (a `mailto:` prefix dropped).
    public var emails: [String]
    /// Its photo's bytes: a JPEG or a PNG (told from its bytes), at most a reader's limit (`VCardReader.maximumPhotoBytes`).
    public var photo: [UInt8]?
    /// The photo's MIME type (`image/jpeg`, `image/png`).
    public var photoType: String?
    /// The line its card begins on.
    public var line: Int

    /// What makes it the same contact on a second import: its UID, else its name.
    public var key: String { uid.map { "uid:" + $0 } ?? "name:" + name.lowercased() }

    /// Creates a contact.
    public init(uid: String? = nil, name: String, otherNames: [String] = [], emails: [String] = [], photo: [UInt8]? = nil,
                photoType: String? = nil, line: Int = 0) {
        self.uid = uid
        self.name = name
        self.otherNames = otherNames
        self.emails = emails
        self.photo = photo
        self.photoType = photoType
        self.line = line
    }
}

extension ImportedContact {
    /// A name with its spaces trimmed and runs of whitespace made one space: how a card's names,
    /// a calendar's attendees and a photo's people are compared.
    /// - Parameter name: the name as written.
    /// - Returns: the name, or `nil` when it holds nothing but white space.
    package static func normalized(_ name: String) -> String? {
        let words = name.split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}

/// One mood logged in a mood-tracking app's export (Daylio), as a State of Mind sample.
public struct ImportedMood: Sendable, Hashable {
    /// When it was logged, ms since 1970.
    public var startMs: Int64
    /// `dailyMood` or `momentaryEmotion` (see PickerdReaders' `DaylioExport`).
    public var kind: StateOfMindKind
    /// −1 (very unpleasant) … 1 (very pleasant).
    public var valence: Double
    /// HealthKit labels the entry's activities name exactly (`happy`, `stressed`).
    public var labels: [StateOfMindLabel]
    /// HealthKit associations the entry's activities map to (PickerdReaders' `DaylioExport.associations`).
    public var associations: [StateOfMindAssociation]
    /// The format it came from: `daylio`.
    public var format: String

    /// Creates a mood.
    public init(startMs: Int64, kind: StateOfMindKind, valence: Double, labels: [StateOfMindLabel] = [],
                associations: [StateOfMindAssociation] = [], format: String) {
        self.startMs = startMs
        self.kind = kind
        self.valence = valence
        self.labels = labels
        self.associations = associations
        self.format = format
    }
}

/// A calendar event (one VEVENT) read from an .ics file, its recurrences expanded.
public struct ImportedEvent: Sendable, Hashable {
    /// One time the event happens.
    public struct Occurrence: Sendable, Hashable {
        /// When it starts, ms since 1970.
        public var startMs: Int64
        /// When it ends, ms since 1970.
        public var endMs: Int64
        /// Which occurrence it is: its start as the rule gives it (a moved occurrence keeps the
        /// start it replaces, its RECURRENCE-ID), ms since 1970. The stored id comes from it.
        public var key: Int64

        /// Creates an occurrence.
        package init(startMs: Int64, endMs: Int64, key: Int64) {
            self.startMs = startMs
            self.endMs = endMs
            self.key = key
        }
    }

    /// The event's UID (one made from its summary and start when the file gives none).
    public var uid: String
    /// Its SUMMARY (empty when absent).
    public var summary: String
    /// Its LOCATION (empty when absent).
    public var location: String
    /// Whether it is all-day (DTSTART is a DATE).
    public var allDay: Bool
    /// Its TZID, `UTC`, or empty for a floating time or a DATE (the person's zone).
    public var timeZone: String
    /// Its attendees, those who declined left out.
    public var attendees: [EventAttendee]
    /// When it happens: once, or each recurrence within the horizon; none when it was cancelled.
    public var occurrences: [Occurrence]
    /// For an event that replaces one occurrence of a recurring event (its RECURRENCE-ID), the
    /// start of the occurrence it replaces, ms since 1970.
    public var recurrenceID: Int64?
    /// The line its BEGIN:VEVENT is on.
    public var line: Int

    /// Creates an event.
    package init(uid: String, summary: String, location: String, allDay: Bool, timeZone: String, attendees: [EventAttendee],
                 occurrences: [Occurrence], recurrenceID: Int64? = nil, line: Int) {
        self.uid = uid
        self.summary = summary
        self.location = location
        self.allDay = allDay
        self.timeZone = timeZone
        self.attendees = attendees
        self.occurrences = occurrences
        self.recurrenceID = recurrenceID
        self.line = line
    }
}
