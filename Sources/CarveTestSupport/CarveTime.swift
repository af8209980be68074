import CarveCore
import Foundation

// The tests import Foundation (for files, processes, formatters) and CarveCore,
// which has its own Date and TimeZone so that the product links no Foundation.
// These names make the bare words mean carve's types in every test; Foundation's
// are spelt out (`Foundation.Date`) where a test needs them.
public typealias Date = CarveCore.Date
public typealias TimeZone = CarveCore.TimeZone
public typealias TimeInterval = CarveCore.TimeInterval

extension CarveCore.TimeZone {
    /// A named zone ("Europe/Berlin", "UTC"), offsets from the tz database as
    /// Foundation reads it: tests compare carve's calendar arithmetic across DST.
    public init?(identifier: String) {
        guard let zone = Foundation.TimeZone(identifier: identifier) else { return nil }
        self.init(identifier: identifier) { seconds in
            zone.secondsFromGMT(for: Foundation.Date(timeIntervalSince1970: Double(seconds)))
        }
    }
}

extension CarveCore.Date {
    public init(_ date: Foundation.Date) { self.init(timeIntervalSince1970: date.timeIntervalSince1970) }
    public var foundation: Foundation.Date { Foundation.Date(timeIntervalSince1970: timeIntervalSince1970) }
}
