/// `--until-available SIZE|N%`: the available space `thin` brings the filesystem up
/// to, in bytes or as a share of the filesystem's size.
public struct AvailabilityTarget: Sendable, Equatable {
    public enum Amount: Sendable, Equatable {
        case bytes(UInt64)
        /// Hundredths of a percent (20% is 2000), so 12.5% needs no floating point.
        case percent(hundredths: UInt64)
    }
    public var amount: Amount
    /// The value as given, for messages.
    public var text: String

    public init(_ amount: Amount, text: String) { self.amount = amount; self.text = text }

    /// Reads `10G`, `512M`, `20%`, `12.5%`. Refuses 0, negative values, more than
    /// 100%, blanks anywhere (`20 %` may be a typo for `20%` or for `20 M`) and
    /// anything else, naming the value.
    public static func parse(_ text: String) throws(UsageError) -> AvailabilityTarget {
        func fail(_ why: String) -> UsageError { UsageError("invalid value '\(text)' for --until-available: \(why)") }
        let expected = "expected a size (512M, 20G, 1.5GiB) or a percentage of the filesystem (20%)"
        if text.isEmpty { throw fail(expected) }
        if text.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            throw fail("no blanks inside the value: write 20% or 20G")
        }
        if text.hasPrefix("-") { throw fail("available space cannot be negative") }
        guard text.hasSuffix("%") else {
            let bytes: UInt64
            do { bytes = try ByteSize.parse(text) } catch { throw fail(expected) }
            guard bytes > 0 else { throw fail("0 is always available; give a size above 0") }
            return AvailabilityTarget(.bytes(bytes), text: text)
        }
        guard let hundredths = Self.hundredths(text.dropLast()) else {
            throw fail("a percentage is a number from 0 to 100 with at most two decimals, then %: 20%")
        }
        guard hundredths > 0 else { throw fail("0% is always available; give more than 0%") }
        guard hundredths <= 100_00 else { throw fail("more than 100% of the filesystem cannot be available") }
        return AvailabilityTarget(.percent(hundredths: hundredths), text: text)
    }

    /// "12.5" as 1250; nil unless digits with at most two decimals.
    private static func hundredths(_ number: Substring) -> UInt64? {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 4,
            whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.count <= 2,
            fraction.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        let padded = fraction + String(repeating: "0", count: 2 - fraction.count)
        guard let wholeValue = UInt64(whole), let fractionValue = UInt64(padded) else { return nil }
        return wholeValue * 100 + fractionValue
    }

    /// The target in bytes on a filesystem of `size` bytes (a percentage rounded up).
    /// A size larger than the filesystem is bad input: no deletion can make it available.
    public func bytes(ofSize size: UInt64, filesystem: String) throws(UsageError) -> UInt64 {
        switch amount {
        case .bytes(let bytes):
            guard bytes <= size else {
                throw UsageError(
                    "invalid value '\(text)' for --until-available: larger than \(filesystem) "
                        + "(\(ByteSize.format(size)))")
            }
            return bytes
        case .percent(let hundredths):
            let (high, low) = size.multipliedFullWidth(by: hundredths)
            let (quotient, remainder) = UInt64(10_000).dividingFullWidth((high, low))
            return quotient + (remainder > 0 ? 1 : 0)
        }
    }
}
