import CarveCore
import Foundation

/// A clock stopped at one instant, in a chosen time zone, for age selection and golden output.
public struct FixedClock: WallClock {
    public var now: Date
    public var timeZone: TimeZone
    public init(now: Date = SnapshotFixtures.epoch, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.now = now; self.timeZone = timeZone
    }
}
