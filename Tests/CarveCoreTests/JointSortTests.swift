@testable import CarveCore
import CarveTestSupport
import Testing

/// `sortJointly` against the standard sort: the keys come out as `sorted()` gives them,
/// and each value still sits beside the key it came with.
struct JointSortTests {
    /// Sorts `keys` jointly with their original positions and checks both outcomes.
    func expectSortsLikeTheStandardSort(_ keys: [Int], depthLimit: Int? = nil) {
        var sorted = keys
        var positions = Array(keys.indices)
        sorted.withUnsafeMutableBufferPointer { sortedKeys in
            positions.withUnsafeMutableBufferPointer { values in
                sortJointly(sortedKeys, values, depthLimit: depthLimit)
            }
        }
        #expect(sorted == keys.sorted())
        #expect(positions.sorted() == Array(keys.indices), "every value kept once")
        let together = zip(sorted, positions).allSatisfy { key, position in keys[position] == key }
        #expect(together, "a value moved without its key")
    }

    @Test(arguments: [0, 1, 2, 3, 15, 16, 17, 100, 1_000, 20_000])
    func randomKeysOfEveryShortLength(count: Int) {
        var random = SplitMix(seed: UInt64(count) + 7)
        expectSortsLikeTheStandardSort((0..<count).map { _ in Int.random(in: -1_000_000...1_000_000, using: &random) })
    }

    @Test func keysMostlyEqualAlreadySortedReversedAndSawtoothed() {
        var random = SplitMix(seed: 3)
        expectSortsLikeTheStandardSort((0..<5_000).map { _ in Int.random(in: 0...2, using: &random) })
        expectSortsLikeTheStandardSort(Array(repeating: 42, count: 3_000))
        expectSortsLikeTheStandardSort(Array(0..<4_000))
        expectSortsLikeTheStandardSort(Array((0..<4_000).reversed()))
        expectSortsLikeTheStandardSort((0..<4_000).map { $0 % 37 })
        // Organ pipe: ascending then descending, a classic bad case for a median pivot.
        expectSortsLikeTheStandardSort(Array(0..<2_000) + Array((0..<2_000).reversed()))
    }

    @Test(arguments: [1, 10, 200, 2_000])
    func keysNearlyInOrderAreMergedBackOrQuicksorted(outOfPlace: Int) {
        var random = SplitMix(seed: UInt64(outOfPlace))
        // In order, then some swapped far apart, some moved to the end, some new at the end:
        // as a map seeded from the cache looks after a few changes.
        var keys = Array(stride(from: 0, to: 60_000, by: 3))
        for _ in 0..<outOfPlace {
            keys.swapAt(Int.random(in: 0..<keys.count, using: &random), Int.random(in: 0..<keys.count, using: &random))
        }
        keys += (0..<outOfPlace).map { _ in Int.random(in: -10...70_000, using: &random) }
        expectSortsLikeTheStandardSort(keys)
        // Out of place at the ends, and two adjacent ones.
        expectSortsLikeTheStandardSort([9] + Array(0..<100) + [-1])
        expectSortsLikeTheStandardSort(Array(0..<50) + [80, 70] + Array(51..<60))
    }

    @Test(arguments: [0, 1, 3])
    func heapSortTakesOverWhenTheSplitsGoBad(depthLimit: Int) {
        var random = SplitMix(seed: 99)
        let keys = (0..<3_000).map { _ in Int.random(in: 0...500, using: &random) }
        expectSortsLikeTheStandardSort(keys, depthLimit: depthLimit)
        expectSortsLikeTheStandardSort(Array((0..<700).reversed()), depthLimit: depthLimit)
    }

    @Test func extentKeysSortAsTheCacheOrdersThem() {
        var random = SplitMix(seed: 5)
        var keys = (0..<10_000).map { _ in
            ExtentKey(
                diskBytenr: 4096 * UInt64.random(in: 0...3_000, using: &random),
                diskBytes: 4096 * UInt64.random(in: 1...4, using: &random))
        }
        keys = Array(Set(keys))
        var sets = keys.indices.map { SubvolumeSet(UInt32($0)) }
        let before: (ExtentKey, ExtentKey) -> Bool = { ($0.diskBytenr, $0.diskBytes) < ($1.diskBytenr, $1.diskBytes) }
        let original = keys
        keys.withUnsafeMutableBufferPointer { k in sets.withUnsafeMutableBufferPointer { sortJointly(k, $0) } }
        #expect(keys == original.sorted(by: before))
        #expect(zip(keys, sets).allSatisfy { key, set in original[Int(set.lower)] == key })
    }
}
