/// A length of time as backup tools write it, for `--older-than` and `--keep-within`.
///
/// One or more counts with a unit: `y` years, `m` months, `w` weeks, `d` days,
/// `h` hours, `min` minutes (`6m`, `1y6m`, `2w3d`, `36h`, `90min`). `m` is months,
/// as in btrbk's `snapshot_preserve 6m` and restic's `--keep-within 1y6m`.
/// Years, months, weeks and days are calendar steps in the local time zone (March 31
/// minus a month is "February 31", as Go and so restic count); hours and minutes are
/// elapsed time. Seconds and bare numbers are refused rather than guessed: the unit
/// is what makes a deletion filter safe to read.
public struct TimeSpan: Sendable, Hashable, CustomStringConvertible {
    public var years = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0) {
        self.years = years; self.months = months; self.weeks = weeks
        self.days = days; self.hours = hours; self.minutes = minutes
    }

    static let units = ["y", "m", "w", "d", "h", "min"]
    static let unitHelp = "units: y years, m months, w weeks, d days, h hours, min minutes; e.g. 30d, 6m, 1y6m"

    /// Each count at most this: a million days is 2,700 years, any more is a typo.
    static let maximumCount = 1_000_000

    public static func parse(_ text: String) throws(UsageError) -> TimeSpan {
        func fail(_ reason: String) -> UsageError {
            UsageError("invalid duration '\(echoed(text))': \(reason) (\(unitHelp))")
        }
        let bytes = Array(text.trimmingSpaces.utf8)
        guard !bytes.isEmpty else { throw fail("empty") }
        var span = TimeSpan(), seen = Set<String>(), index = 0
        while index < bytes.count {
            let digitsStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else {
                if bytes[index] == UInt8(ascii: "-") { throw fail("negative") }
                throw fail(
                    digitsStart == 0
                        ? "no number" : "no number before '\(echoed(String(decoding: bytes[index...], as: UTF8.self)))'"
                )
            }
            let unitStart = index
            while index < bytes.count, !(0x30...0x39).contains(bytes[index]) { index += 1 }
            let unit = String(decoding: bytes[unitStart..<index], as: UTF8.self)
            guard !unit.isEmpty else { throw fail("no unit") }
            guard units.contains(unit) else {
                if unit == "s" || unit == "sec" { throw fail("seconds are not a unit here") }
                throw fail("unknown unit '\(echoed(unit))'")
            }
            guard seen.insert(unit).inserted else { throw fail("'\(unit)' given twice") }
            let digits = String(decoding: bytes[digitsStart..<unitStart], as: UTF8.self)
            guard let count = Int(digits), count <= maximumCount else { throw fail("too large") }
            span[unit] = count
        }
        return span
    }

    /// Reads and writes the count of one unit by its suffix.
    subscript(unit: String) -> Int {
        get {
            switch unit {
            case "y": years
            case "m": months
            case "w": weeks
            case "d": days
            case "h": hours
            default: minutes
            }
        }
        set {
            switch unit {
            case "y": years = newValue
            case "m": months = newValue
            case "w": weeks = newValue
            case "d": days = newValue
            case "h": hours = newValue
            default: minutes = newValue
            }
        }
    }

    public var isZero: Bool { Self.units.allSatisfy { self[$0] == 0 } }

    /// The instant this long before `date`: calendar steps on the wall time in `zone`,
    /// then hours and minutes as elapsed time (restic's `AddDate(-y, -m, -d).Add(-h)`).
    public func before(_ date: Date, in zone: TimeZone) -> Date {
        let calendarPart = years != 0 || months != 0 || weeks != 0 || days != 0
        let start =
            calendarPart
            ? CivilTime(date, in: zone).adding(years: -years, months: -months, days: -(weeks * 7 + days)).date(in: zone)
                .addingTimeInterval(date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down))
            : date
        return start.addingTimeInterval(-Double(hours * 3_600 + minutes * 60))
    }

    /// Written back as parsed, largest unit first: "1y6m", "2w3d", "0d" for nothing.
    public var description: String {
        let text = Self.units.filter { self[$0] != 0 }.map { "\(self[$0])\($0)" }.joined()
        return text.isEmpty ? "0d" : text
    }
}

/// User input echoed in a one-line error: control characters written as `\xHH`
/// so a pasted newline cannot split the message.
func echoed(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7f {
            let hex = String(scalar.value, radix: 16)
            out += "\\x" + (hex.count == 1 ? "0" : "") + hex
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
