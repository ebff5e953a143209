// The one rule of when a play counts, shared by live listening (PickerdBroker's PlayTracker) and the
// exports that say how long each play lasted (Spotify's history).

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
