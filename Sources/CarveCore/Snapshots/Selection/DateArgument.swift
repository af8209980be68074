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

/// Dates as carve prints them, by arithmetic on the civil calendar: a formatter
/// per row costs more than listing the snapshot (ICU), and this is exact for the
/// proleptic Gregorian calendar btrfs and snapper use.
public enum DateText {
    /// ISO 8601 with the zone's offset: "2026-11-01T13:00:30+01:00", "…Z" in UTC.
    public static func iso8601(_ date: Date, timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        // Written digit by digit: listings format one date per snapshot, and building
        // it from interpolated pieces cost more than reading the snapshot.
        let written = String(unsafeUninitializedCapacity: 25) { iso8601(date, offset: offset, into: $0) ?? 0 }
        if !written.isEmpty { return written }
        let parts = civil(date, offset: offset)
        var text =
            "\(pad(parts.year, 4))-\(pad(parts.month))-\(pad(parts.day))T\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second))"
        if offset == 0 { return text + "Z" }
        let minutes = abs(offset) / 60
        text += (offset < 0 ? "-" : "+") + pad(minutes / 60) + ":" + pad(minutes % 60)
        return text
    }

    /// `iso8601` at `offset` seconds east of UTC, written into `text` (room for 25 bytes):
    /// its length, or nil for a year that is not four digits (then nothing is written).
    public static func iso8601(_ date: Date, offset: Int, into text: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let parts = civil(date, offset: offset)
        guard (0..<10_000).contains(parts.year), text.count >= 25 else { return nil }
        var writer = DigitWriter(text: text)
        writer.put(parts.year, 4); writer.put("-"); writer.put(parts.month); writer.put("-"); writer.put(parts.day)
        writer.put("T"); writer.put(parts.hour); writer.put(":"); writer.put(parts.minute); writer.put(":");
        writer.put(parts.second)
        if offset == 0 {
            writer.put("Z")
        } else {
            let minutes = abs(offset) / 60
            writer.put(offset < 0 ? "-" : "+"); writer.put(minutes / 60 % 100); writer.put(":");
            writer.put(minutes % 60)
        }
        return writer.position
    }

    /// "2026-11-01 13:00" in the zone, for tables.
    public static func short(_ date: Date, timeZone: TimeZone) -> String {
        let parts = civil(date, offset: timeZone.secondsFromGMT(for: date))
        guard (0..<10_000).contains(parts.year) else {
            return "\(pad(parts.year, 4))-\(pad(parts.month))-\(pad(parts.day)) \(pad(parts.hour)):\(pad(parts.minute))"
        }
        return String(unsafeUninitializedCapacity: 16) { text in
            var writer = DigitWriter(text: text)
            writer.put(parts.year, 4); writer.put("-"); writer.put(parts.month); writer.put("-"); writer.put(parts.day)
            writer.put(" "); writer.put(parts.hour); writer.put(":"); writer.put(parts.minute)
            return writer.position
        }
    }

    /// Zero-padded fields into a string's uninitialised bytes.
    private struct DigitWriter {
        let text: UnsafeMutableBufferPointer<UInt8>
        var position = 0

        mutating func put(_ value: Int, _ width: Int = 2) {
            var rest = value
            for digit in (0..<width).reversed() {
                text[position + digit] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            position += width
        }

        mutating func put(_ separator: Unicode.Scalar) {
            text[position] = UInt8(ascii: separator)
            position += 1
        }
    }

    static func civil(
        _ date: Date, offset: Int
    ) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, time / 3_600, time % 3_600 / 60, time % 60)
    }

    static func pad(_ value: Int, _ width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
