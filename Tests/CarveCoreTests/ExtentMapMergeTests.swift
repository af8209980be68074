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

    /// A tree's references changed (files rewritten, deleted, reflinked): merged while
    /// the extents are in order, looked up through the index otherwise, the same map,
    /// the same answer (false for a reference the tree did not have) and the same count
    /// of references repeated within the tree.
    @Test(arguments: 0..<80)
    func changedReferencesMergedGiveWhatTheIndexGives(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let indexed = map(&random, settled: false)
        var settled = indexed
        settled.settle()
        let subvolume = UInt64.random(in: 256...260, using: &random)
        let member = indexed.subvolumeIDs.firstIndex(of: subvolume).map(UInt32.init)
        let held =
            member.map { member in zip(indexed.keys, indexed.sets).filter { $0.1.contains(member) }.map(\.0) } ?? []
        func key() -> ExtentKey {
            ExtentKey(
                diskBytenr: 4096 * UInt64.random(in: 0...700, using: &random),
                diskBytes: 4096 * UInt64.random(in: 1...2, using: &random))
        }
        var added = (0..<Int.random(in: 0...40, using: &random)).map { _ in key() }
        if let some = held.randomElement(using: &random) { added += [some, some] }
        // Mostly what the tree holds (once, or twice where it was added again), now and
        // then something it does not.
        var removed = held.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
        if let some = added.randomElement(using: &random), Bool.random(using: &random) { removed.append(some) }
        if seed % 4 == 0 { removed.append(key()) }
        // Named twice: the second finds the extent gone, or the tree gone from it.
        if let some = removed.first, seed % 3 == 1 { removed.append(some) }
        added.shuffle(using: &random)
        removed.shuffle(using: &random)
        var repeatedIndexed: [ExtentKey: UInt32] = [:], repeatedSettled: [ExtentKey: UInt32] = [:]
        if let some = held.first, seed % 5 == 0 { (repeatedIndexed[some], repeatedSettled[some]) = (1, 1) }
        var (afterIndexed, afterSettled) = (indexed, settled)
        let byIndex = afterIndexed.changeReferences(
            subvolume: subvolume, added: added, removed: removed, repeated: &repeatedIndexed)
        let merged = afterSettled.changeReferences(
            subvolume: subvolume, added: added, removed: removed, repeated: &repeatedSettled)
        #expect(merged == byIndex, "seed \(seed)")
        #expect(afterSettled.isSettled, "merging builds no index")
        guard merged && byIndex else { return }
        #expect(afterSettled == afterIndexed, "seed \(seed)")
        #expect(repeatedSettled == repeatedIndexed)
        #expect(zip(afterSettled.keys, afterSettled.keys.dropFirst()).allSatisfy { $0 < $1 })
        #expect(afterSettled.exclusiveBytes() == afterIndexed.exclusiveBytes())
    }
}
