/// A point in time given on the command line, for `--before` and `--after`.
///
/// Accepted: `2026-11-01` (midnight), `2026-11-01 12:00`, `2026-11-01 12:00:30`,
/// `T` instead of the space, and an optional `Z` or `±HH:MM` / `±HHMM` offset.
/// Without an offset the time is local, as a user at a shell means it.
public enum DateArgument {
    static let expected = "expected YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS] or ISO 8601 such as 2026-11-01T12:00:00Z"

    public static func parse(_ text: String, timeZone: TimeZone) throws(UsageError) -> Date {
        func fail(_ reason: String) -> UsageError {
            UsageError("invalid date '\(echoed(text))': \(reason) (\(expected))")
        }
        var scanner = DigitScanner(Array(text.trimmingSpaces.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2)
        else { throw fail("no date") }
        guard (1...12).contains(month) else { throw fail("month \(month) out of range") }
        guard (1...daysIn(month: month, year: year)).contains(day) else { throw fail("day \(day) out of range") }
        var hour = 0, minute = 0, second = 0
        var zone = timeZone
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take(" ") || scanner.take("t") else {
                throw fail("unexpected text after the date")
            }
            guard let h = scanner.number(digits: 2), scanner.take(":"), let m = scanner.number(digits: 2)
            else { throw fail("no time after the date") }
            hour = h; minute = m
            if scanner.take(":") {
                guard let s = scanner.number(digits: 2) else { throw fail("bad seconds") }
                second = s
            }
            guard hour <= 23 else { throw fail("hour \(hour) out of range") }
            guard minute <= 59 else { throw fail("minute \(minute) out of range") }
            guard second <= 59 else { throw fail("second \(second) out of range") }
            if !scanner.atEnd {
                guard let offset = scanner.offset() else { throw fail("bad time zone offset") }
                guard let fixed = TimeZone(secondsFromGMT: offset) else { throw fail("offset out of range") }
                zone = fixed
            }
            guard scanner.atEnd else { throw fail("unexpected text after the time") }
        }
        return CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).date(in: zone)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Reads fixed-width ASCII numbers and punctuation from the front of a byte string.
struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + digits)] {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += digits
        return value
    }

    /// `Z`, `±HH:MM`, `±HHMM` or `±HH`, in seconds east of UTC; at most ±18:00.
    mutating func offset() -> Int? {
        if take("Z") || take("z") { return 0 }
        let sign: Int
        if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
        guard let hours = number(digits: 2) else { return nil }
        var minutes = 0
        if !atEnd {
            _ = take(":")
            guard let m = number(digits: 2) else { return nil }
            minutes = m
        }
        guard minutes < 60, hours * 60 + minutes <= 18 * 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
