/// A length of time given on the command line, such as `--older-than 30d`.
///
/// Accepted: a whole number followed by one unit, `s`, `m`, `h`, `d` or `w`
/// (`90m`, `36h`, `30d`, `8w`). A bare number is refused rather than guessed as
/// seconds or days: the unit is what makes a deletion filter safe to read.
public struct TimeSpan: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int64

    public init(seconds: Int64) { self.seconds = seconds }

    static let units: [(suffix: Character, seconds: Int64)] = [
        ("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    public static func parse(_ text: String) throws(UsageError) -> TimeSpan {
        func fail(_ reason: String) -> UsageError {
            UsageError("invalid duration '\(echoed(text))': \(reason) (expected a number and a unit s, m, h, d or w, e.g. 30d)")
        }
        let trimmed = text.trimmingSpaces
        guard let unitCharacter = trimmed.last else { throw fail("empty") }
        guard let unit = units.first(where: { $0.suffix == unitCharacter }) else {
            if unitCharacter.isASCII && unitCharacter.isNumber { throw fail("no unit") }
            throw fail("unknown unit '\(echoed(String(unitCharacter)))'")
        }
        let digits = trimmed.dropLast()
        guard !digits.isEmpty else { throw fail("no number") }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            if digits.first == "-" { throw fail("negative") }
            throw fail("not a whole number")
        }
        guard let count = Int64(digits) else { throw fail("too large") }
        let (product, overflow) = count.multipliedReportingOverflow(by: unit.seconds)
        // Dates are Doubles: keep spans well inside the range where seconds stay exact.
        guard !overflow, product <= maximumSeconds else { throw fail("too large") }
        return TimeSpan(seconds: product)
    }

    /// About 100,000 years: any age beyond it is a typo, not a retention policy.
    public static let maximumSeconds: Int64 = 3_155_760_000_000

    /// The largest unit that divides the span exactly: 172800 seconds is "2d".
    public var description: String {
        for unit in Self.units where seconds != 0 && seconds % unit.seconds == 0 {
            return "\(seconds / unit.seconds)\(unit.suffix)"
        }
        return "\(seconds)s"
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
