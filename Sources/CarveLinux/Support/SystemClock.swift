import CarveCore
import Glibc

/// The system clock, in the local time zone (`TZ` honoured as the C library reads it).
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { .now }
    public var timeZone: TimeZone { .current }
}

extension Date {
    /// CLOCK_REALTIME, to the nanosecond.
    public static var now: Date {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// The time now (as Foundation's `Date()`).
    public init() { self = .now }
}

extension TimeZone {
    /// The local zone: `TZ` as the C library reads it (a zone name, `:name`, a
    /// POSIX rule or unset for /etc/localtime), offsets from `localtime_r`, so
    /// carve shows the times `date` shows.
    public static var current: TimeZone { LocalZone.zone }
}

private enum LocalZone {
    static let zone: TimeZone = {
        tzset()
        let name = getenv("TZ").map { String(cString: $0) } ?? "localtime"
        return TimeZone(identifier: name) { seconds in
            var time = time_t(seconds)
            var parts = tm()
            guard localtime_r(&time, &parts) != nil else { return 0 }
            return Int(parts.tm_gmtoff)
        }
    }()
}
