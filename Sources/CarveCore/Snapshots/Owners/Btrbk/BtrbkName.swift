/// btrbk's snapshot names: `SUBVOL.YYYYMMDD`, `SUBVOL.YYYYMMDDTHHMM`,
/// `SUBVOL.YYYYMMDDTHHMMSS` (local time) or long-iso `SUBVOL.YYYYMMDDTHHMMSS+hhmm`,
/// each optionally followed by `_N` when two fall in the same minute.
public enum BtrbkName {
    public struct Parsed: Equatable, Sendable {
        public var subvolume: String
        public var created: Date
    }

    /// True when what follows the name's last '.' is made only of what btrbk writes
    /// there (digits, `T`, an offset sign, `_`): a name btrbk would have made, so a
    /// date that does not parse is worth a warning rather than silence.
    public static func hasStampShape(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        let stamp = name[name.index(after: dot)...].utf8
        return stamp.count >= 8 && stamp.allSatisfy { (0x30...0x39).contains($0) || "T+-_".utf8.contains($0) }
    }

    public static func parse(_ name: String, timeZone: TimeZone) -> Parsed? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        var stamp = Array(name[name.index(after: dot)...].utf8)
        if let underscore = stamp.lastIndex(of: UInt8(ascii: "_")) {
            let counter = stamp[(underscore + 1)...]
            guard !counter.isEmpty, counter.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            stamp = Array(stamp[..<underscore])
        }
        var scanner = DigitScanner(stamp)
        guard let year = scanner.number(digits: 4), let month = scanner.number(digits: 2),
            let day = scanner.number(digits: 2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var zone = timeZone
        if scanner.take("T") {
            guard let h = scanner.number(digits: 2), let m = scanner.number(digits: 2) else { return nil }
            hour = h; minute = m
            if let s = scanner.number(digits: 2) { second = s }
            if !scanner.atEnd {
                guard let offset = scanner.offset(), let fixed = TimeZone(secondsFromGMT: offset) else { return nil }
                zone = fixed
            }
        }
        guard scanner.atEnd, (1...12).contains(month),
            (1...DateArgument.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60,
            let created = localDate(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, in: zone)
        else { return nil }
        return Parsed(subvolume: String(name[..<dot]), created: created)
    }
}
