import CarveTestSupport
import Testing
@testable import CarveLinux

/// The walk along sorted keys answers as a set of them does, for keys asked in order:
/// runs of keys not in it, keys in it, repeats, and past the last.
@Suite struct SortedKeyWalkTests {
    @Test(arguments: 0..<8)
    func itAnswersAsASetDoes(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        func key() -> TreeSearch.Key {
            TreeSearch.Key(objectid: rng.next() % 20, type: UInt32(rng.next() % 3) + 0xfb, offset: rng.next() % 5)
        }
        // Dense keys asked sparsely: several of them lie between two asked.
        let wanted = Set((0..<(seed * 25)).map { _ in key() })
        let asked = ((0..<60).map { _ in key() } + Array(wanted).prefix(seed)).sorted()
        var walk = SortedKeyWalk(wanted.sorted())
        for key in asked { #expect(walk.contains(key) == wanted.contains(key), "\(key)") }
    }
}
