/// A wall-clock time in a time zone: what calendar rules (months, days, ISO weeks)
/// are counted in. Conversions use only the zone's offset at an instant, so they
/// need no calendar library, and they follow Go's `time.Date` and `AddDate`, the
/// arithmetic restic and btrbk-compatible tools use: fields out of range are
/// normalised (March 31 minus one month is "February 31", that is March 3 or 2),
/// and a wall time that a DST change skips or repeats is resolved as Go resolves it.
public struct CivilTime: Sendable, Hashable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year; self.month = month; self.day = day; self.hour = hour; self.minute = minute;
        self.second = second
    }

    /// The wall time at `date` in `zone` (whole seconds, rounded down).
    public init(_ date: Date, in zone: TimeZone) {
        let parts = DateText.civil(date, offset: zone.secondsFromGMT(for: date))
        self.init(
            year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute,
            second: parts.second)
    }

    /// The instant this wall time names in `zone`, after normalising the fields.
    public func date(in zone: TimeZone) -> Date {
        // Months first, then everything else as seconds from the normalised first of the month.
        let monthIndex = year * 12 + (month - 1)
        let normalisedYear = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        let normalisedMonth = monthIndex - normalisedYear * 12 + 1
        let days = Self.daysFromCivil(year: normalisedYear, month: normalisedMonth, day: 1) + (day - 1)
        let wall = Int64(days) * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
        // Go's time.Date: guess the offset at the wall time read as UTC; when the
        // instant that guess gives lies in another offset, use that one.
        var offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall))))
        let other = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall - offset))))
        if other != offset { offset = other }
        return Date(timeIntervalSince1970: TimeInterval(wall - offset))
    }

    /// The same wall time `years`, `months` and `days` later (earlier when negative).
    public func adding(years: Int = 0, months: Int = 0, days: Int = 0) -> CivilTime {
        var moved = self
        moved.year += years; moved.month += months; moved.day += days
        return moved
    }

    /// ISO 8601 week-numbering year and week (weeks start on Monday; week 1 holds the year's first Thursday).
    public var isoWeek: (year: Int, week: Int) {
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let weekday = Self.isoWeekday(days)
        let thursday = days - weekday + 4
        let thursdayYear = Self.civilYear(thursday)
        let week = (thursday - Self.daysFromCivil(year: thursdayYear, month: 1, day: 1)) / 7 + 1
        return (thursdayYear, week)
    }

    public static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1 for Monday … 7 for Sunday; 1970-01-01 was a Thursday.
    static func isoWeekday(_ days: Int) -> Int {
        let fromMonday = ((days + 3) % 7 + 7) % 7
        return fromMonday + 1
    }

    static func civilYear(_ days: Int) -> Int {
        DateText.civil(Date(timeIntervalSince1970: TimeInterval(days) * 86_400), offset: 0).year
    }
}
