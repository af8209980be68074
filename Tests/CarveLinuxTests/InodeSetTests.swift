@testable import CarveLinux
import CarveTestSupport
import Testing

/// The open-addressing set of a changed tree's read answers as `Set` does.
@Suite struct InodeSetTests {
    /// Random numbers, drawn near each other as a directory's inodes are, and at the
    /// ends of the range (0, and UInt64.max, which the set keeps apart), inserted and
    /// asked as the set grows from its first sixteen slots.
    @Test(arguments: 0..<12)
    func insertsAndLooksUpAsASetDoes(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var set = InodeSet()
        var reference = Set<UInt64>()
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
            let inode = draw()
            let inserted = set.insert(inode)
            #expect(inserted == reference.insert(inode).inserted)
            let asked = draw()
            #expect(set.contains(asked) == reference.contains(asked), "seed \(seed)")
        }
        #expect(set.count == reference.count)
        for inode in reference { #expect(set.contains(inode)) }
    }

    @Test func theLargestNumberIsHeldApart() {
        var set = InodeSet()
        let (first, again, other) = (set.insert(.max), set.insert(.max), set.insert(0))
        #expect(first && !again && other)
        #expect(set.contains(.max) && set.contains(0) && !set.contains(.max - 1))
        #expect(set.count == 2)
    }
}
