/// Seconds, as the dates below count them.
public typealias TimeInterval = Double

/// An instant: seconds since 1970-01-01 00:00:00 UTC. carve's own, so that the
/// product links no Foundation (and with it no ICU); the names follow Foundation's
/// so that the code reads the same.
public struct Date: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var timeIntervalSince1970: TimeInterval

    public init(timeIntervalSince1970: TimeInterval) {
        self.timeIntervalSince1970 = timeIntervalSince1970
    }

    /// Long before any snapshot (year 1).
    public static let distantPast = Date(timeIntervalSince1970: -62_135_596_800)

    public func timeIntervalSince(_ other: Date) -> TimeInterval {
        timeIntervalSince1970 - other.timeIntervalSince1970
    }

    public func addingTimeInterval(_ interval: TimeInterval) -> Date {
        Date(timeIntervalSince1970: timeIntervalSince1970 + interval)
    }

    /// Whole seconds since 1970, rounded down (negative instants included).
    public var wholeSeconds: Int64 {
        Int64(timeIntervalSince1970.rounded(.down))
    }

    public static func < (a: Date, b: Date) -> Bool { a.timeIntervalSince1970 < b.timeIntervalSince1970 }

    public var description: String { DateText.iso8601(self, timeZone: .utc) }
}
