public import Foundation

/// A kind of content a suggestion item can hold (Apple's `JournalingSuggestionAsset`).
public protocol JournalingSuggestionAsset: Sendable {}

// MARK: Linux stand-ins for CoreLocation, HealthKit and SwiftUI types

/// A place on Earth with its measurement details (CoreLocation's `CLLocation`).
public struct GeoLocation: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// Metres above sea level, if known.
    public var altitude: Double?
    /// The radius of uncertainty in metres, if known.
    public var horizontalAccuracy: Double?
    /// When the location was measured, if known.
    public var timestamp: Date?
}

/// An amount with its unit (HealthKit's `HKQuantity`); units are HealthKit's strings ("kcal", "m",
/// "count/min").
public struct HealthQuantity: Sendable, Hashable {
    /// The amount.
    public var value: Double
    /// The unit.
    public var unit: String
}

/// A workout activity type, with HealthKit's `HKWorkoutActivityType` raw values.
public struct WorkoutActivityType: RawRepresentable, Sendable, Hashable {
    /// HealthKit's raw value.
    public var rawValue: UInt
    /// Wraps a raw value.
    /// - Parameter rawValue: HealthKit's raw value.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Cycling (13).
    public static let cycling = WorkoutActivityType(rawValue: 13)
    /// Hiking (24).
    public static let hiking = WorkoutActivityType(rawValue: 24)
    /// Running (37).
    public static let running = WorkoutActivityType(rawValue: 37)
    /// Swimming (46).
    public static let swimming = WorkoutActivityType(rawValue: 46)
    /// Traditional strength training (50).
    public static let traditionalStrengthTraining = WorkoutActivityType(rawValue: 50)
    /// Walking (52).
    public static let walking = WorkoutActivityType(rawValue: 52)
    /// Yoga (57).
    public static let yoga = WorkoutActivityType(rawValue: 57)
}

/// An sRGB colour (SwiftUI's `Color`), components in 0…1.
public struct SuggestionColor: Sendable, Hashable {
    /// Red.
    public var red: Double
    /// Green.
    public var green: Double
    /// Blue.
    public var blue: Double
    /// Opacity.
    public var alpha: Double
}

/// A gradient (SwiftUI's `Gradient`): colours at locations in 0…1.
public struct SuggestionGradient: Sendable, Hashable {
    /// One colour at one place along the gradient.
    public struct Stop: Sendable, Hashable {
        /// The colour.
        public var color: SuggestionColor
        /// Where, 0…1.
        public var location: Double
    }
    /// The stops, in order.
    public var stops: [Stop]
}

/// A generic image representation, as Apple's image-bearing assets also offer `UIImage`/`Image`.
public struct JournalingSuggestionImage: JournalingSuggestionAsset, Hashable {
    /// The image file, in the app's cache directory.
    public var url: URL
}

extension JournalingSuggestion {
    /// A photo.
    public struct Photo: JournalingSuggestionAsset, Hashable {
        /// The image file, in the app's cache directory.
        public var photo: URL
        /// When it was taken.
        public var date: Date?
    }

    /// A Live Photo: a still image and a short video.
    public struct LivePhoto: JournalingSuggestionAsset, Hashable {
        /// The still image.
        public var image: URL
        /// The video.
        public var video: URL
        /// When it was taken.
        public var date: Date?
    }

    /// A video.
    public struct Video: JournalingSuggestionAsset, Hashable {
        /// The video file.
        public var url: URL
        /// When it was taken.
        public var date: Date?
    }

    /// A workout the person completed.
    public struct Workout: JournalingSuggestionAsset, Hashable {
        /// The workout's specifics.
        public struct Details: Sendable, Hashable {
            /// The kind of workout.
            public var activityType: WorkoutActivityType
            /// Energy burned.
            public var activeEnergyBurned: HealthQuantity?
            /// Distance covered.
            public var distance: HealthQuantity?
            /// Average heart rate.
            public var averageHeartRate: HealthQuantity?
            /// When.
            public var date: DateInterval?
            /// The activity's name for people ("Outdoor Run").
            public var localizedName: String?
        }
        /// The specifics.
        public var details: Details?
        /// An image for the type of workout.
        public var icon: URL?
        /// The path travelled; `nil` unless the person kept a place in the same suggestion (a route
        /// is location data, and never leaves while Significant Locations is off).
        public var route: [GeoLocation]?
    }

    /// Several workouts the person chose together.
    public struct WorkoutGroup: JournalingSuggestionAsset, Hashable {
        /// The workouts.
        public var workouts: [JournalingSuggestion.Workout]
        /// An image for the types of workout.
        public var icon: URL?
        /// The time the workouts span, in seconds.
        public var duration: TimeInterval?
        /// Total energy burned.
        public var activeEnergyBurned: HealthQuantity?
        /// Average heart rate.
        public var averageHeartRate: HealthQuantity?
    }

    /// Someone the person spent time with.
    public struct Contact: JournalingSuggestionAsset, Hashable {
        /// Their name.
        public var name: String
        /// Their photo (or an image of their initials).
        public var photo: URL?
    }

    /// A place the person visited.
    public struct Location: JournalingSuggestionAsset, Hashable {
        /// The place's name.
        public var place: String?
        /// The city.
        public var city: String?
        /// Where exactly.
        public var location: GeoLocation?
        /// When.
        public var date: Date?
        /// Whether it is the person's work place.
        public var isWorkLocation: Bool?
    }

    /// Several places, together.
    public struct LocationGroup: JournalingSuggestionAsset, Hashable {
        /// The places.
        public var locations: [JournalingSuggestion.Location]
    }

    /// A song the person listened to.
    public struct Song: JournalingSuggestionAsset, Hashable {
        /// The title.
        public var song: String?
        /// The artist.
        public var artist: String?
        /// The album.
        public var album: String?
        /// Album artwork.
        public var artwork: URL?
        /// When.
        public var date: Date?
    }

    /// A podcast episode the person listened to.
    public struct Podcast: JournalingSuggestionAsset, Hashable {
        /// The episode.
        public var episode: String?
        /// The show.
        public var show: String?
        /// Artwork.
        public var artwork: URL?
        /// When.
        public var date: Date?
    }

    /// Steps and movement.
    public struct MotionActivity: JournalingSuggestionAsset, Hashable {
        /// How the person moved.
        public enum MovementType: Sendable, Hashable {
            /// Walking.
            case walking
            /// Running.
            case running
            /// Some of each.
            case runningWalking
        }
        /// An image for the movement.
        public var icon: URL?
        /// Steps taken.
        public var steps: Int
        /// When.
        public var date: DateInterval?
        /// How.
        public var movementType: MovementType
    }

    /// Media from another app (a book chapter, an audiobook…).
    public struct GenericMedia: JournalingSuggestionAsset, Hashable {
        /// The title.
        public var title: String?
        /// The artist or author.
        public var artist: String?
        /// The album or book.
        public var album: String?
        /// When.
        public var date: Date?
        /// The app's icon.
        public var appIcon: URL?
        /// The media's own picture (a cover), when the donating app gave one.
        public var artwork: URL?

        /// Media to donate (``JournalingSuggestionsDonations/donate(_:identifier:excludedFromSuggestions:)``).
        /// - Parameters:
        ///   - title: the title (a chapter, an episode, a track).
        ///   - artist: the artist or author.
        ///   - album: the album, book or show.
        ///   - date: when the person played or read it (default: now).
        ///   - appIcon: your app's icon, a PNG or JPEG file.
        ///   - artwork: the media's own picture, a PNG or JPEG file.
        public init(title: String?, artist: String? = nil, album: String? = nil, date: Date? = nil, appIcon: URL? = nil, artwork: URL? = nil) {
            self.title = title
            self.artist = artist
            self.album = album
            self.date = date
            self.appIcon = appIcon
            self.artwork = artwork
        }
    }

    /// A reflection prompt.
    public struct Reflection: JournalingSuggestionAsset, Hashable {
        /// The prompt.
        public var prompt: String
        /// Its colour.
        public var color: SuggestionColor?
    }

    /// How the person felt (HealthKit's State of Mind).
    public struct StateOfMind: JournalingSuggestionAsset, Hashable {
        /// The sample (HealthKit's `HKStateOfMind`, reduced).
        public struct State: Sendable, Hashable {
            /// A momentary emotion or a daily mood.
            public enum Kind: Int, Sendable, Hashable {
                /// How the person felt in a moment (HealthKit raw value 1).
                case momentaryEmotion = 1
                /// How the day felt (2).
                case dailyMood = 2
            }
            /// Which kind.
            public var kind: Kind
            /// −1 (very unpleasant) … 1 (very pleasant).
            public var valence: Double
            /// HealthKit's seven levels, 1 (very unpleasant) … 7 (very pleasant).
            public var valenceClassification: Int
            /// HealthKit's labels (raw values 1…38: amazed … satisfied).
            public var labels: [Int]
            /// HealthKit's associations (raw values 1…18: community … weather).
            public var associations: [Int]
            /// When.
            public var date: Date?

            /// A State of Mind sample to donate, in HealthKit's terms.
            /// - Parameters:
            ///   - kind: a momentary emotion or a daily mood.
            ///   - valence: −1 (very unpleasant) … 1 (very pleasant).
            ///   - valenceClassification: HealthKit's 1…7; 0 to have it worked out from `valence`.
            ///   - labels: HealthKit's label raw values (1…38).
            ///   - associations: HealthKit's association raw values (1…18).
            ///   - date: when (default: now).
            public init(kind: Kind, valence: Double, valenceClassification: Int = 0, labels: [Int] = [], associations: [Int] = [], date: Date? = nil) {
                self.kind = kind
                self.valence = valence
                self.valenceClassification = valenceClassification
                self.labels = labels
                self.associations = associations
                self.date = date
            }
        }
        /// The sample.
        public var state: State?
        /// An image for it.
        public var icon: URL?
        /// A gradient for light backgrounds.
        public var lightBackground: SuggestionGradient?
        /// A gradient for dark backgrounds.
        public var darkBackground: SuggestionGradient?
    }
}
