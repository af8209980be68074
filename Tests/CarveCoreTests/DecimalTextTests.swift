import CarveCore
import CarveTestSupport
import Testing

/// Digits written in place read as Swift's own `String(value)` reads.
@Suite struct DecimalTextTests {
    @Test func everyPowerOfTenAndItsNeighboursAndRandomValues() {
        var values: [UInt64] = [0, 1, 9, 10, 11, 99, 100, .max, .max - 1, 256, 257]
        var power: UInt64 = 1
        for _ in 0..<19 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        var random = SplitMix(seed: 5)
        values += (0..<2_000).map { _ in
            UInt64.random(in: 0 ... .max, using: &random) >> UInt64.random(in: 0..<64, using: &random)
        }
        for value in values { #expect(String(decimal: value) == String(value), "\(value)") }
    }
}
