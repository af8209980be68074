import Foundation

/// The current time, behind a protocol so that age-based selection can be tested.
public protocol WallClock: Sendable {
    var now: Date { get }
    /// The time zone local times are read and shown in.
    var timeZone: TimeZone { get }
}

extension WallClock {
    public var timeZone: TimeZone { .current }
}

/// The system clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}
