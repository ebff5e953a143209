public import Foundation

/// The time pickerd's reminders follow: the system clock, or one that starts at a chosen moment and
/// runs on at the normal rate from there (`pickerd --clock-start`, for tests and demos that must see a
/// reminder fire without waiting for the evening).
public struct PickerdClock: Sendable {
    private let offset: TimeInterval

    /// A clock.
    /// - Parameter start: what the clock reads now; `nil` for the system clock.
    public init(startingAt start: Date? = nil) {
        offset = start.map { $0.timeIntervalSinceNow } ?? 0
    }

    /// The current time by this clock.
    public func now() -> Date { Date().addingTimeInterval(offset) }
}
