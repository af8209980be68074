@testable import CarveLinux
import CarveTestSupport
import Testing

/// The open-addressing set of a changed tree's read answers as `Set` does.
@Suite struct InodeSetTests {
    private struct Pair: Hashable {
        var first: UInt64
        var second: UInt64
    }

    /// Random pairs, drawn near each other as a directory's inodes are, and at the ends
    /// of the range (0, and UInt64.max, which the set keeps apart), inserted and asked
    /// as the set grows from its first sixteen slots.
    @Test(arguments: 0..<12)
    func insertsAndLooksUpAsASetDoes(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var set = InodeSet()
        var reference = Set<Pair>()
        let base = UInt64.random(in: 256...1 << 40, using: &random)
        func draw() -> UInt64 {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return 0
            case 1: return .max
            case 2: return .max - 1
            case 3: return .random(in: 0...UInt64.max, using: &random)
            default: return base + .random(in: 0..<4096, using: &random)
            }
        }
        for _ in 0..<Int.random(in: 1...6000, using: &random) {
            let pair = Pair(first: draw(), second: Bool.random(using: &random) ? 0 : draw())
            let inserted = set.insert(pair.first, pair.second)
            #expect(inserted == reference.insert(pair).inserted)
            let asked = Pair(first: draw(), second: Bool.random(using: &random) ? 0 : draw())
            #expect(set.contains(asked.first, asked.second) == reference.contains(asked), "seed \(seed)")
        }
        #expect(set.count == reference.count)
        for pair in reference { #expect(set.contains(pair.first, pair.second)) }
    }

    /// One number is the pair (number, 0).
    @Test func aNumberIsItsPairWithZero() {
        var set = InodeSet()
        let (first, again, top) = (set.insert(257), set.insert(257), set.insert(.max))
        #expect(first && !again && top)
        #expect(set.contains(257) && set.contains(257, 0))
        #expect(!set.contains(257, 1) && !set.contains(258))
        #expect(set.contains(.max) && !set.contains(.max, 1))
        #expect(set.count == 2)
    }
}
