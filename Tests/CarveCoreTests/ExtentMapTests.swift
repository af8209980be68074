@testable import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Set reclaim on synthetic extent maps: subvolume 256 is the live source,
/// 257... its snapshots, sizes in KiB so the sums read easily.
@Suite struct ExtentMapTests {
    let kib: UInt64 = 1024

    func map(_ references: [(UInt64, UInt64, UInt64)], subvolumes: [UInt64] = [256, 257, 258, 259]) -> ExtentMap {
        var map = ExtentMap(subvolumes: subvolumes)
        for (subvolume, bytenr, bytes) in references {
            map.addReference(subvolume: subvolume, diskBytenr: bytenr, diskBytes: bytes * kib)
        }
        return map
    }

    /// Extents are found whichever way the table was made: from keys out of order (a
    /// set's pinned extents, indexed at once), and from the cache's ascending keys
    /// (found by halving until a change needs the index), before and after a change.
    @Test func everyExtentIsFoundInKeysInOrderOrNot() throws {
        let keys = (0..<500).map { ExtentKey(diskBytenr: UInt64(($0 * 7919) % 500 + 1) << 20, diskBytes: 4096) }
        var map = ExtentMap(subvolumes: [5, 256, 257])
        map.addReferences(subvolume: 256, keys)
        map.addReferences(subvolume: 257, Array(keys.prefix(100)))
        let pinned = PinnedExtents(map: map, deleting: [256])
        #expect(pinned.count == 400)
        for key in keys.dropFirst(100) { #expect(pinned.position(of: key, firstHeldBy: 256) != nil, "\(key)") }
        let exact = ExactSizes(map: map, scan: .init(), nodeSize: 16384, treeBytes: [256: 65536, 257: 65536])
        let volumes = [256, 257].map { Volume(id: $0, path: "s\($0)", uuid: "u\($0)", generation: 9, created: .init()) }
        var cache = try ExactSizesCache(
            decoding: ExactSizesCache(filesystem: "f", keeping: volumes, of: exact).encoded())
        var seeded = cache.seed(subvolumes: [5, 256, 257], reused: [256: 0, 257: 1]).map
        for key in keys { #expect(seeded.references(key, subvolume: 256), "\(key)") }
        seeded.addReferences(subvolume: 5, [keys[7]])
        #expect(seeded.references(keys[7], subvolume: 5) && seeded.references(keys[8], subvolume: 257))
    }

    /// A cache seeded in its own numbering hands its sets over as they are; seeded with a
    /// tree left out, each set is renumbered: both give the sizes of a map built anew.
    @Test func aSeedKeepsOrRenumbersTheSetsAsTheTreesAsk() throws {
        let references: [(UInt64, UInt64, UInt64)] = [
            (256, 1_000, 64), (257, 1_000, 64), (258, 1_000, 64), (257, 2_000, 8), (258, 3_000, 16),
            (256, 4_000, 32), (258, 4_000, 32),
        ]
        let whole = map(references, subvolumes: [256, 257, 258])
        let volumes = [256, 257, 258].map {
            Volume(id: $0, path: "s\($0)", uuid: "u\($0)", generation: 9, created: .init())
        }
        let exact = ExactSizes(
            map: whole, scan: .init(), nodeSize: 16384, treeBytes: [256: 16384, 257: 16384, 258: 16384])
        let file = ExactSizesCache(filesystem: "f", keeping: volumes, of: exact).encoded()
        var cache = try ExactSizesCache(decoding: file)
        #expect(IndexTranslation([0, 1, 2]).isIdentity && !IndexTranslation([0, 2]).isIdentity)
        let same = cache.seed(subvolumes: [256, 257, 258], reused: [256: 0, 257: 1, 258: 2]).map
        #expect(same.exclusiveBytes() == whole.exclusiveBytes())
        #expect(same.referencedBytes() == whole.referencedBytes())
        cache = try ExactSizesCache(decoding: file)
        let without257 = cache.seed(subvolumes: [256, 258], reused: [256: 0, 258: 2]).map
        let anew = map(references.filter { $0.0 != 257 }, subvolumes: [256, 258])
        #expect(without257.exclusiveBytes() == anew.exclusiveBytes())
        #expect(without257.referencedBytes() == anew.referencedBytes())
    }

    /// A set counts the runs it walks (the cache's writer asks the count, then walks them).
    @Test func aSetCountsTheRunsItWalks() {
        var set = SubvolumeSet(2, 4)
        for (lower, upper) in [(5, 5), (8, 9), (10, 10), (13, 20)] as [(UInt32, UInt32)] {
            var walked = 0
            set.forEachRun { _, _ in walked += 1 }
            #expect(set.runCount == walked && set.runCount == set.runs.count)
            set.append(lower, upper)
        }
        #expect(set.runs == [2...5, 8...10, 13...20] && set.runCount == 3)
    }

    /// The top level and the read-only trees by id, each once, then the writable ones by
    /// id; the top level stays first even when it is writable, and a writable id the
    /// listing does not hold is not invented.
    @Test func theOrderIsTheReadOnlyTreesByIdThenTheWritableOnes() {
        #expect(
            ExtentMap.order([300, 5, 257, 256, 300, 258, 256], writable: [5, 256, 300, 999])
                == [5, 257, 258, 256, 300])
        #expect(ExtentMap.order([], writable: [256]) == [])
        #expect(ExtentMap.order([259, 258], writable: []) == [258, 259])
        #expect(ExtentMap.order([259, 258], writable: [258, 259]) == [258, 259])
    }

    @Test func anExtentSharedByAllIsFreedOnlyWithAll() {
        let shared = map([(256, 1_000, 64), (257, 1_000, 64), (258, 1_000, 64), (259, 1_000, 64)])
        #expect(shared.exclusiveBytes() == [256: 0, 257: 0, 258: 0, 259: 0])
        #expect(shared.reclaim(deleting: [257, 258, 259]) == 0)
        #expect(shared.reclaim(deleting: [256, 257, 258, 259]) == 64 * kib)
        #expect(shared.referencedBytes() == [256: 64 * kib, 257: 64 * kib, 258: 64 * kib, 259: 64 * kib])
    }

    @Test func anExtentSharedByTwoIsFreedByThePairNotBySumOfSingles() {
        let two = map([(257, 1_000, 100), (258, 1_000, 100), (257, 2_000, 10), (258, 3_000, 20)])
        #expect(two.exclusiveBytes()[257] == 10 * kib)
        #expect(two.exclusiveBytes()[258] == 20 * kib)
        #expect(two.reclaim(deleting: [257]) == 10 * kib)
        #expect(two.reclaim(deleting: [257, 258]) == 130 * kib)
        #expect(two.reclaim(deleting: [256, 259]) == 0)
    }

    @Test func aPartlyReferencedExtentStaysUntilNoPartIsReferenced() {
        // 257 keeps the first half of the 128 KiB extent, 258 the second half:
        // the same extent key, whatever the offsets inside it.
        let partial = map([(257, 5_000, 128), (258, 5_000, 128)])
        #expect(partial.reclaim(deleting: [257]) == 0)
        #expect(partial.reclaim(deleting: [258]) == 0)
        #expect(partial.reclaim(deleting: [257, 258]) == 128 * kib)
    }

    @Test func reflinksInsideOneSubvolumeCountOnce() {
        let reflinked = map([(257, 7_000, 256), (257, 7_000, 256), (257, 7_000, 256)])
        #expect(reflinked.exclusiveBytes()[257] == 256 * kib)
        #expect(reflinked.referencedBytes()[257] == 256 * kib)
        #expect(reflinked.reclaim(deleting: [257]) == 256 * kib)
        #expect(reflinked.extentCount == 1)
    }

    @Test func aCompressedExtentCountsItsOnDiskSize() {
        // 128 KiB of file data compressed into 12 KiB: the key carries disk_num_bytes.
        let compressed = map([(258, 9_000, 12)])
        #expect(compressed.exclusiveBytes()[258] == 12 * kib)
        #expect(compressed.totalBytes == 12 * kib)
    }

    @Test func inlineExtentsAreMetadataStatedApart() {
        var inline = map([(257, 1_000, 4)])
        inline.addInline(subvolume: 257, bytes: 300)
        inline.addInline(subvolume: 257, bytes: 200)
        #expect(inline.exclusiveBytes()[257] == 4 * kib)
        #expect(inline.inlineBytes[257] == 500)
        let exact = ExactSizes(map: inline, scan: ExtentScanReport(), nodeSize: 16 * kib)
        let reclaim = exact.reclaim(deleting: [257])
        #expect(reclaim.data == 4 * kib)
        #expect(reclaim.inline == 500)
        #expect(reclaim.metadataAtLeast == 16 * kib)
    }

    @Test func holesFreeNothing() {
        let holes = map([(257, 0, 0), (257, 0, 64), (258, 0, 128)])
        #expect(holes.extentCount == 0)
        #expect(holes.reclaim(deleting: [257, 258]) == 0)
    }

    @Test func theEmptySetFreesNothing() {
        let some = map([(257, 1_000, 64), (258, 2_000, 64)])
        #expect(some.reclaim(deleting: []) == 0)
        #expect(some.reclaimCurve(deleting: []) == [])
        #expect(
            ExactSizes(map: some, scan: ExtentScanReport(), nodeSize: 16 * kib).reclaim(deleting: [])
                == SetReclaim(data: 0, metadataAtLeast: 0, metadataAtMost: 0, inline: 0))
    }

    @Test func allSnapshotsFreeNothingTheLiveSubvolumeStillReferences() {
        let live = map([
            (256, 1_000, 100), (257, 1_000, 100), (258, 1_000, 100), (259, 1_000, 100),
            (257, 2_000, 30), (258, 2_000, 30), // overwritten in 256 after 258 was taken
            (259, 3_000, 5),
        ])
        #expect(live.reclaim(deleting: [257, 258, 259]) == 35 * kib)
        #expect(live.exclusiveBytes().filter { $0.key != 256 }.values.reduce(0, +) == 5 * kib)
    }

    @Test func theCurveIsTheReclaimOfEachPrefixTogether() {
        let churn = map([
            (257, 1_000, 10), (258, 1_000, 10), // freed once 257 and 258 are gone
            (257, 2_000, 1), (258, 3_000, 2), (259, 4_000, 4),
            (257, 5_000, 50), (259, 5_000, 50), // freed with 257 and 259
            (256, 6_000, 7), (259, 6_000, 7), // never: the live one keeps it
        ])
        let order: [UInt64] = [257, 258, 259]
        let curve = churn.reclaimCurve(deleting: order)
        #expect(curve == (1...3).map { churn.reclaim(deleting: order.prefix($0)) })
        #expect(curve == [1 * kib, 13 * kib, 67 * kib])
    }

    @Test func subvolumesMayArriveInAnyOrder() {
        // Out-of-order inserts split and merge runs; the answers do not change.
        var shuffled = ExtentMap()
        for id: UInt64 in [300, 256, 280, 257, 299, 258] {
            shuffled.addReference(subvolume: id, diskBytenr: 42, diskBytes: kib)
        }
        // All six reference the extent: it is freed with all of them gone, and kept by any one.
        let ids: [UInt64] = [256, 257, 258, 280, 299, 300]
        for id in ids { #expect(shuffled.reclaim(deleting: ids.filter { $0 != id }) == 0, "\(id)") }
        #expect(shuffled.reclaim(deleting: ids) == kib)
    }

    @Test func unknownIdsAreIgnored() {
        let some = map([(257, 1_000, 64)])
        #expect(some.reclaim(deleting: [257, 9_999]) == 64 * kib)
        #expect(some.reclaimCurve(deleting: [9_999, 257]) == [0, 64 * kib])
    }

    @Test func curveAgreesWithSetReclaimOnARandomMap() {
        var generator = SplitMix(seed: 7)
        var random = ExtentMap(subvolumes: Array(256...300))
        for extent in 1...2_000 {
            let first = UInt64(256 + Int(generator.next() % 45))
            let span = generator.next() % 6
            for id in first...min(300, first + span) where generator.next() % 5 != 0 {
                random.addReference(
                    subvolume: id, diskBytenr: UInt64(extent) * 4096, diskBytes: 4096 * (1 + generator.next() % 8))
            }
        }
        let order = Array((256...300).map { UInt64($0) }.reversed())
        let curve = random.reclaimCurve(deleting: order)
        for k in [1, 2, 5, 17, 44, 45] { #expect(curve[k - 1] == random.reclaim(deleting: order.prefix(k))) }
        #expect(curve.last == random.totalBytes)
    }

    @Test func aLargeMapAgreesWithADictionaryModel() {
        // Enough extents to grow the table's index many times, with colliding
        // aligned addresses, one bytenr under two sizes, and references in bulk.
        var generator = SplitMix(seed: 11)
        var bulk = ExtentMap(subvolumes: Array(256...263))
        var model: [ExtentKey: Set<UInt64>] = [:]
        for id in UInt64(256)...263 {
            var references: [ExtentKey] = []
            for _ in 0..<20_000 {
                let bytenr = (generator.next() % 30_000) * 1 << 20
                let key = ExtentKey(
                    diskBytenr: bytenr, diskBytes: 4096 * (1 + bytenr % 3) + (generator.next() % 50 == 0 ? 1 : 0))
                references.append(key)
                if bytenr != 0 { model[key, default: []].insert(id) }
            }
            bulk.addReferences(subvolume: id, references)
        }
        #expect(bulk.extentCount == model.count)
        #expect(bulk.totalBytes == model.keys.reduce(0) { $0 + $1.diskBytes })
        var exclusive: [UInt64: UInt64] = Dictionary(uniqueKeysWithValues: (256...263).map { (UInt64($0), UInt64(0)) })
        for (key, ids) in model where ids.count == 1 { exclusive[ids.first!]! += key.diskBytes }
        #expect(bulk.exclusiveBytes() == exclusive)
        // What a set of subvolumes frees is every extent only they reference: random sets
        // check each extent's referencers against the model.
        for _ in 0..<20 {
            let set = Set((UInt64(256)...263).filter { _ in generator.next() % 2 == 0 })
            #expect(
                bulk.reclaim(deleting: set)
                    == model.filter { $0.value.isSubset(of: set) }.keys.reduce(0) { $0 + $1.diskBytes }, "\(set)")
        }
    }

    @Test func sizesAlikeInTheirLowHalfStayApart() {
        // The index keeps only the low 32 bits of the size beside the bytenr.
        var odd = ExtentMap(subvolumes: [256, 257])
        odd.addReference(subvolume: 256, diskBytenr: 4096, diskBytes: 4096)
        odd.addReference(subvolume: 257, diskBytenr: 4096, diskBytes: 1 << 32 + 4096)
        #expect(odd.extentCount == 2)
        #expect(odd.exclusiveBytes() == [256: 4096, 257: 1 << 32 + 4096])
    }

    @Test func equalityAndCodingIgnoreTheOrderOfArrival() throws {
        var forward = ExtentMap(subvolumes: [256, 257])
        var backward = ExtentMap(subvolumes: [256, 257])
        let references: [(UInt64, UInt64)] = [(256, 4096), (257, 8192), (256, 12_288), (257, 4096)]
        for (id, bytenr) in references { forward.addReference(subvolume: id, diskBytenr: bytenr, diskBytes: 4096) }
        for (id, bytenr) in references.reversed() {
            backward.addReference(subvolume: id, diskBytenr: bytenr, diskBytes: 4096)
        }
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        let decoded = try JSONDecoder().decode(ExtentMap.self, from: try JSONEncoder().encode(backward))
        #expect(decoded == forward)
        #expect(decoded.reclaim(deleting: [257]) == 4096) // the extent at 8192 only
        backward.addReference(subvolume: 257, diskBytenr: 12_288, diskBytes: 4096)
        #expect(forward != backward)
    }

    @Test func aSettledMapAnswersAsBeforeAndStillGrows() {
        // Enough extents that the arrays and the index have grown by doubling.
        var references: [(UInt64, UInt64, UInt64)] = []
        for index in 0..<3_000 as Range<UInt64> {
            references.append((256 + index % 4, 4096 * (index / 2 + 1), index % 7 + 1))
        }
        let grown = map(references)
        var shrunk = grown
        shrunk.settle()
        #expect(shrunk.isSettled && !grown.isSettled)
        #expect(shrunk.keys == shrunk.keys.sorted { ($0.diskBytenr, $0.diskBytes) < ($1.diskBytenr, $1.diskBytes) })
        for (key, set) in zip(grown.keys, grown.sets) {
            #expect(shrunk.set(of: key) == set)
            #expect(shrunk.references(key, subvolume: shrunk.subvolumeIDs[Int(set.lower)]))
        }
        #expect(shrunk == grown)
        #expect(shrunk.exclusiveBytes() == grown.exclusiveBytes())
        #expect(shrunk.referencedBytes() == grown.referencedBytes())
        #expect(shrunk.reclaimCurve(deleting: [257, 258, 259]) == grown.reclaimCurve(deleting: [257, 258, 259]))
        shrunk.addReference(subvolume: 259, diskBytenr: 4096 * 1_000_000, diskBytes: 8 * kib)
        shrunk.addReference(subvolume: 258, diskBytenr: 4096, diskBytes: 1 * kib)
        #expect(shrunk.extentCount == grown.extentCount + 1)
        #expect(shrunk.exclusiveBytes()[259] == grown.exclusiveBytes()[259]! + 8 * kib)
    }

    @Test func treeEstimateIsAtLeastTheRootBlock() {
        #expect(ExactSizes.treeEstimate(leafBytes: 0, nodeSize: 16 * kib) >= 16 * kib)
        #expect(ExactSizes.treeEstimate(leafBytes: 1_000_000, nodeSize: 16 * kib) > 1_000_000)
    }
}
