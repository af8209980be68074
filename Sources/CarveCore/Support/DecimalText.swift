extension String {
    /// `value` in decimal, its digits written in place: `String(value)` goes through the
    /// generic `description` (250 instructions a number), and a table of ten thousand
    /// snapshots writes an id in every row.
    public init(decimal value: UInt64) {
        let digits = value.decimalDigitCount
        self.init(unsafeUninitializedCapacity: digits) { text in
            var rest = value
            for position in (0..<digits).reversed() {
                text[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return digits
        }
    }
}

extension UInt64 {
    /// How many digits the value has in decimal (1 to 20).
    @inlinable public var decimalDigitCount: Int {
        var digits = 1
        var bound: UInt64 = 10
        // 10^19 is the last power of ten a UInt64 holds.
        while digits < 20 && self >= bound {
            digits += 1
            bound &*= 10
        }
        return digits
    }
}
