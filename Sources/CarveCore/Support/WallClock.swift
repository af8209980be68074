/// The current time, behind a protocol so that age-based selection can be tested.
public protocol WallClock: Sendable {
    var now: Date { get }
    /// The time zone local times are read and shown in.
    var timeZone: TimeZone { get }
}
