import Foundation
import PickerdImport

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
