/// A time zone, as far as carve needs one: its offset from UTC at an instant.
/// The local zone (with `TZ`) comes from the platform (CarveLinux); fixed
/// offsets, as written in ISO 8601 dates, are made here.
public struct TimeZone: Sendable, Hashable, CustomStringConvertible {
    public let identifier: String
    private let offsetAt: @Sendable (_ secondsSince1970: Int64) -> Int

    /// A zone whose offset at an instant `offsetAt` gives; zones with the same
    /// identifier are taken to be the same zone.
    public init(identifier: String, offsetAt: @escaping @Sendable (_ secondsSince1970: Int64) -> Int) {
        self.identifier = identifier
        self.offsetAt = offsetAt
    }

    /// A fixed offset east of UTC; nil beyond ±18 hours, as Foundation's.
    public init?(secondsFromGMT seconds: Int) {
        guard abs(seconds) <= 18 * 3_600 else { return nil }
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        let name = seconds == 0 ? "GMT" : "GMT\(sign)\(Self.twoDigits(minutes / 60))\(Self.twoDigits(minutes % 60))"
        self.init(identifier: name) { _ in seconds }
    }

    public static let utc = TimeZone(secondsFromGMT: 0)!

    public func secondsFromGMT(for date: Date) -> Int {
        offsetAt(date.wholeSeconds)
    }

    public var description: String { identifier }

    public static func == (a: TimeZone, b: TimeZone) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
