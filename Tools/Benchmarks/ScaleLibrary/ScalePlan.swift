import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

// MARK: - The plan

/// The skeleton of the life, made before any item: days, visits, workouts and photo occasions. It
/// is small (a few hundred bytes a day); the photo counts are spread over it before any month is made.
struct ScalePlan {
    /// A stay somewhere, in hours after its day's local midnight.
    struct Visit {
        var place: Place
        var start: Double
        var end: Double
        /// The camera cluster of photos taken there, if any.
        var cluster: Int?
        var friends: [Int] = []
        /// The chance of a momentary mood afterwards.
        var moodChance = 0.0
        /// Whether it is one of a trip's places (not a hotel or an airport).
        var stop = false
    }

    enum Sport { case run, walk, ride, hike, yoga }

    struct Session {
        var sport: Sport
        var start: Double
        var minutes: Double
        var place: Place?
    }

    enum Context: Equatable {
        case home, departure, arrival
        case trip(Int)
        case tripEnd(Int)
    }

    /// Photos taken without a visit of their own (at home, in the evening).
    struct Shoot {
        var place: Place
        var start: Double
        var end: Double
        var cluster: Int
    }

    /// One local day in one place: a home day, the morning of a departure, a day abroad, the evening of a return.
    struct Day {
        var date: Int
        var offset: Int32
        var context: Context
        var workday = false
        var weekend = false
        /// When the person leaves where they spent the night.
        var morning: Double
        /// The hours items like songs and moods may fall in.
        var awakeFrom: Double
        var awakeTo: Double
        /// Where the night is spent and from when, if it is spent.
        var night: (place: Place, start: Double)?
        var visits: [Visit] = []
        var sessions: [Session] = []
        var shoots: [Shoot] = []
        var screenshots: [(hour: Double, event: Int)] = []
        var scan: (hour: Double, session: Int)?
        var intros: [Int] = []
        var lastOfDate = true
    }

    /// A photo-taking occasion and how many photos it got.
    struct Cluster {
        var weight: Double
        var gps: Bool
        var count = 0
        var burst = 0
    }

    struct Trip {
        var depart: Int
        var destination: Int
        var length: Int
    }
}
