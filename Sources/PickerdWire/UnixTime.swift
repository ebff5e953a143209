public import Foundation

extension Date {
    /// Milliseconds since 1970, as the wire (`Timestamp`, `DateInterval`) and the store keep times.
    public var unixMs: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The moment `unixMs` milliseconds after 1970-01-01T00:00:00Z.
    /// - Parameter unixMs: milliseconds since 1970.
    public init(unixMs: Int64) { self.init(timeIntervalSince1970: Double(unixMs) / 1000) }
}
