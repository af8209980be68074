@testable import CarveCore
import CarveTestSupport
import Testing

/// A tree's references added in ascending order (a snapshot taken since the cached run)
/// give the map that adding them one by one gives, whether the map's extents are in
/// order (merged in one pass) or indexed (looked up), with references repeated, holes,
/// and new extents before, among and after the known ones.
@Suite struct ExtentMapMergeTests {
    /// A map of up to five subvolumes over random extents, settled or not.
    func map(_ random: inout SplitMix, settled: Bool) -> ExtentMap {
        var map = ExtentMap(subvolumes: [256, 257, 258, 259, 260])
        for _ in 0..<Int.random(in: 0...400, using: &random) {
            map.addReference(
                subvolume: 256 + UInt64.random(in: 0...4, using: &random),
                diskBytenr: 4096 * UInt64.random(in: 10...600, using: &random),
                diskBytes: 4096 * UInt64.random(in: 1...2, using: &random))
        }
        if settled { map.settle() }
        return map
    }

    @Test(arguments: 0..<60)
    func ascendingReferencesGiveTheMapOneByOneGives(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let settled = seed % 3 != 0
        let before = map(&random, settled: settled)
        #expect(before.isSettled == settled)
        // Known extents, new ones anywhere in the range and past both ends, holes, repeats.
        var references: [ExtentKey] = []
        for _ in 0..<Int.random(in: 0...300, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where before.extentCount > 0: references.append(before.keys.randomElement(using: &random)!)
            case 1: references.append(ExtentKey(diskBytenr: 0, diskBytes: 4096))
            default:
                references.append(
                    ExtentKey(
                        diskBytenr: 4096 * UInt64.random(in: 1...700, using: &random),
                        diskBytes: 4096 * UInt64.random(in: 1...2, using: &random)))
            }
        }
        if let some = references.first, Bool.random(using: &random) { references += [some, some] }
        references.sort()
        let subvolume = UInt64.random(in: 256...261, using: &random)
        var merged = before, oneByOne = before
        merged.addReferences(subvolume: subvolume, ascending: references)
        oneByOne.addReferences(subvolume: subvolume, references)
        #expect(merged == oneByOne, "seed \(seed)")
        #expect(merged.extentCount == oneByOne.extentCount)
        #expect(merged.isSettled == settled, "merging keeps the extents in order, and indexes none")
        if settled { #expect(zip(merged.keys, merged.keys.dropFirst()).allSatisfy { $0 < $1 }) }
        #expect(merged.exclusiveBytes() == oneByOne.exclusiveBytes())
        // And the map still takes changes after it.
        merged.addReference(subvolume: 257, diskBytenr: 4096 * 5_000, diskBytes: 4096)
        oneByOne.addReference(subvolume: 257, diskBytenr: 4096 * 5_000, diskBytes: 4096)
        #expect(merged == oneByOne)
    }
}
