/// Byte counts as users type them and as lsblk prints them.
public enum ByteSize {
    private static let letters: [Character] = ["B", "K", "M", "G", "T", "P", "E"]

    /// Formats like lsblk: IEC powers of 1024, one letter, at most one decimal
    /// rounded half up and dropped when zero: `512B`, `1G`, `12.3G`.
    public static func format(_ bytes: UInt64) -> String {
        var exponent = 0
        while exponent < 60, bytes >= (UInt64(1) << UInt64(exponent + 10)) { exponent += 10 }
        guard exponent > 0 else { return "\(bytes)B" }
        var whole = bytes >> UInt64(exponent)
        let remainder = bytes & ((UInt64(1) << UInt64(exponent)) - 1)
        // Thousandths of the unit, as util-linux computes them, then rounded to tenths.
        let thousandths =
            remainder >= UInt64.max / 1000
            ? (remainder / 1024) * 1000 / (UInt64(1) << UInt64(exponent - 10))
            : remainder * 1000 / (UInt64(1) << UInt64(exponent))
        var tenths = (thousandths + 50) / 100
        if tenths == 10 { whole += 1; tenths = 0 }
        let letter = letters[exponent / 10]
        return tenths == 0 ? "\(whole)\(letter)" : "\(whole).\(tenths)\(letter)"
    }

    /// Parses `512`, `10M`, `1.5G`, `2GiB` (powers of 1024) and `10GB` (powers of 1000).
    /// A bare letter or `xiB` is binary; `xB` is decimal, as in parted and GParted.
    public static func parse(_ text: String) throws(UsageError) -> UInt64 {
        let trimmed = text.trimmingSpaces
        func fail(_ reason: String) -> UsageError { UsageError("invalid size '\(text)': \(reason)") }
        guard !trimmed.isEmpty else { throw fail("empty") }
        if trimmed.hasPrefix("-") { throw fail("a size cannot be negative") }
        let numberEnd = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
        let number = String(trimmed[..<numberEnd])
        let unit = String(trimmed[numberEnd...]).trimmingSpaces
        guard let multiplier = multiplier(of: unit) else {
            throw fail("unknown unit '\(unit)' (use K, M, G, T, P, E, optionally with iB or B)")
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty || parts.count == 2 }),
            !(parts.count == 2 && parts[0].isEmpty && parts[1].isEmpty)
        else { throw fail("expected a number followed by an optional unit") }
        let wholeDigits = parts[0].isEmpty ? "0" : String(parts[0])
        let fractionDigits = parts.count == 2 ? String(parts[1]) : ""
        guard fractionDigits.count <= 9 else { throw fail("too many decimals") }
        guard let whole = UInt64(wholeDigits), let fraction = UInt64(fractionDigits.isEmpty ? "0" : fractionDigits)
        else { throw fail("number too large") }
        let (wholeBytes, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw fail("larger than 16 EiB") }
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits.count { scale *= 10 }
        // Fraction of the unit in bytes, rounded down: 1.1K is 1126 bytes.
        let fractionBytes = fraction.multipliedFullWidth(by: multiplier)
        let (fractionPart, _) = scale.dividingFullWidth(fractionBytes)
        guard fractionDigits.isEmpty || multiplier > 1 || fraction == 0 else {
            throw fail("a byte count must be whole")
        }
        let (total, overflow2) = wholeBytes.addingReportingOverflow(fractionPart)
        guard !overflow2 else { throw fail("larger than 16 EiB") }
        return total
    }

    private static func multiplier(of unit: String) -> UInt64? {
        if unit.isEmpty || unit == "B" || unit == "b" { return 1 }
        let upper = unit.uppercased()
        guard let letter = upper.first, let power = letters.firstIndex(of: letter), power > 0 else { return nil }
        let rest = upper.dropFirst()
        switch rest {
        case "", "IB": return UInt64(1) << UInt64(10 * power)
        case "B":
            var value: UInt64 = 1
            for _ in 0..<power { value *= 1000 }
            return value
        default: return nil
        }
    }
}
