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
