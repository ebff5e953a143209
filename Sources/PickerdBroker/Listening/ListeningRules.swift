import Foundation

/// When listening counts, as scrobblers count it (Last.fm's rule).
///
/// - Only time in `Playing` counts, measured by the monotonic clock that stops while the machine
///   sleeps (`SuspendingClock`, CLOCK_MONOTONIC): pauses, stops and sleep do not add up.
/// - A track counts once it has been played for half its length or four minutes, whichever is less.
/// - A track shorter than ``minimumTrack`` (30 seconds by default) never counts (jingles, previews).
/// - A track whose player gives no length counts after four minutes.
/// - It is recorded the moment it crosses that line, not when the next track starts: a player
///   closed afterwards loses nothing.
/// - `Stopped`, another track, or the player leaving ends a play; a pause does not. The same track
///   played again after a stop is a new play. A track on repeat without a stop is one play.
/// - When pickerd first sees a player already in the middle of a track (pickerd just started), the
///   player's `Position` counts as played: that is what it will have played, seeks aside.
public struct ListeningRules: Sendable, Hashable {
    /// Tracks shorter than this are never recorded.
    public var minimumTrack: Duration
    /// The most a track needs to be played for, and what a track without a length needs.
    public static let cap: Duration = .seconds(240)

    /// Rules with a minimum track length.
    /// - Parameter minimumTrack: tracks shorter than this are never recorded (30 s by default).
    public init(minimumTrack: Duration = .seconds(30)) {
        self.minimumTrack = minimumTrack
    }

    /// How long a track must be played to count.
    /// - Parameter length: the track's length, `nil` when unknown.
    /// - Returns: half the length or four minutes, whichever is less (four minutes for an unknown
    ///   length); `nil` for a track shorter than ``minimumTrack``, which never counts.
    public func threshold(length: Duration?) -> Duration? {
        guard let length else { return Self.cap }
        guard length >= minimumTrack else { return nil }
        return min(length / 2, Self.cap)
    }
}

/// One player's current play, and when it counts: a pure state machine fed what the player says and
/// the time, so the rules can be checked without a bus.
struct PlayTracker {
    /// A track from the moment it was first seen until it ends.
    struct Play {
        /// What is playing.
        var track: PlayerTrack
        /// When it started playing by the wall clock (less what was already played when first
        /// seen); `nil` until it plays.
        var startedAt: Date?
        /// Time spent in `Playing` up to ``playingSince``.
        var played: Duration
        /// Since when it has been playing without a pause, if it is playing.
        var playingSince: SuspendingClock.Instant?
        /// Whether it was recorded already (a play is recorded once).
        var recorded = false

        /// Time spent playing, up to `now`.
        func played(at now: SuspendingClock.Instant) -> Duration {
            played + (playingSince.map { now - $0 } ?? .zero)
        }
    }

    let rules: ListeningRules
    private(set) var play: Play?

    init(rules: ListeningRules) { self.rules = rules }

    /// Takes in what the player says now.
    /// - Parameters:
    ///   - track: its metadata, `nil` when it could not be read.
    ///   - status: its playback status.
    ///   - now: the monotonic time.
    ///   - wall: the wall-clock time (pickerd's clock).
    ///   - alreadyPlayed: for a player seen for the first time in the middle of a track, its position.
    mutating func observe(track: PlayerTrack?, status: PlaybackStatus, now: SuspendingClock.Instant, wall: Date,
                          alreadyPlayed: Duration = .zero) {
        guard let track, track.isTrack, status != .stopped else {
            play = nil
            return
        }
        if var current = play, current.track.key == track.key {
            current.track = track  // a length or artwork that came late
            play = current
        } else {
            let credit = min(alreadyPlayed, track.length ?? alreadyPlayed)
            play = Play(track: track, startedAt: credit > .zero ? wall.addingTimeInterval(-Self.seconds(credit)) : nil,
                        played: credit, playingSince: nil)
        }
        if status == .playing {
            if play!.playingSince == nil { play!.playingSince = now }
            if play!.startedAt == nil { play!.startedAt = wall.addingTimeInterval(-Self.seconds(play!.played)) }
        } else if let since = play!.playingSince {
            play!.played += now - since
            play!.playingSince = nil
        }
    }

    /// The play to record now, if it has just crossed its threshold (each play is returned once).
    mutating func due(at now: SuspendingClock.Instant) -> Play? {
        guard var current = play, !current.recorded, current.startedAt != nil,
              let threshold = rules.threshold(length: current.track.length), current.played(at: now) >= threshold else { return nil }
        current.recorded = true
        play = current
        return current
    }

    /// When the current play will cross its threshold if it goes on playing; `nil` when it is not
    /// playing, was recorded, or never counts.
    var deadline: SuspendingClock.Instant? {
        guard let play, !play.recorded, let since = play.playingSince, let threshold = rules.threshold(length: play.track.length) else {
            return nil
        }
        return since + max(.zero, threshold - play.played)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
