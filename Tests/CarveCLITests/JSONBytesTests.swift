@testable import CarveCLI
import Testing

/// The byte writer used for long listings must print exactly what `rendered` prints.
@Suite struct JSONBytesTests {
    /// A small deterministic generator (SplitMix64): the same values on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let pieces = ["", "a", "snapshot", "\"", "\\", "\n", "\t", "\r", "\u{01}", "\u{1f}", "\u{7f}", "é", "日本", "🦀", " ", "<FS_TREE>/x", "\u{2028}"]

    func value(_ rng: inout SplitMix, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .uint(UInt64.random(in: 0 ... .max, using: &rng))
        case 4: return .double([0.5, -1e300, .infinity, .nan, 3][Int.random(in: 0..<5, using: &rng)])
        case 5: return .string((0..<Int.random(in: 0..<5, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined())
        case 6: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            return .object((0..<Int.random(in: 0..<4, using: &rng)).map { index in
                (Self.pieces.randomElement(using: &rng)! + "\(index)", value(&rng, depth: depth + 1))
            })
        }
    }

    @Test func bytesEqualTheRenderedText() {
        var rng = SplitMix(state: 42)
        for _ in 0..<2_000 {
            let json = value(&rng, depth: 0)
            let level = Int.random(in: 0..<4, using: &rng)
            var bytes: [UInt8] = []
            json.append(to: &bytes, level: level)
            #expect(String(decoding: bytes, as: UTF8.self) == json.rendered(level: level))
        }
    }
}
