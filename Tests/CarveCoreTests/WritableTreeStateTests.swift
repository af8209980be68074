import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// A writable tree's kept state on synthetic records: the packed records give back what
/// was put in, changes made to them and to the extent map leave both as a state and a
/// map built from scratch would be, and a cache file whose records were altered behind
/// a recomputed checksum is found out before any record is read.
@Suite struct WritableTreeStateTests {
    /// Records of `count` inodes from 300 up, drawn from `seed`: files with extents
    /// (some shared, some unaligned, some repeated), inline files, directories, an
    /// unlinked file, a file with two parents and a special object.
    func records(_ count: Int, seed: UInt64) -> [InodeRecord] {
        var random = SplitMix(seed: seed)
        var result: [InodeRecord] = [InodeRecord(inode: 256, isDirectory: true, parents: [256], leafBytes: 400)]
        for inode in UInt64(300)..<UInt64(300 + count) {
            var record = InodeRecord(inode: inode, parents: [256 + inode % 3], leafBytes: 160 + inode % 90)
            switch Int.random(in: 0..<10, using: &random) {
            case 0: record.isDirectory = true
            case 1: record.inlineBytes = UInt64.random(in: 0...2048, using: &random)
            case 2: record.unlinked = true; record.parents = []
            case 3: record.parents = [260, 9000]
            default:
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let unit: UInt64 = Int.random(in: 0..<8, using: &random) == 0 ? 512 : 4096
                    record.references.append(
                        ExtentKey(
                            diskBytenr: UInt64.random(in: 1...1 << 30, using: &random) * unit,
                            diskBytes: UInt64.random(in: 1...64, using: &random) * unit))
                }
                if inode % 7 == 0 { record.references.append(record.references[0]) }
            }
            result.append(record)
        }
        result.append(InodeRecord(inode: InodeRecord.lastInode + 251, leafBytes: 58))
        return result
    }

    @Test func packedRecordsGiveBackWhatWasPutIn() {
        let all = records(500, seed: 1)
        let packed = InodeRecords(all)
        #expect(packed.count == all.count)
        #expect(packed.all == all)
        #expect(packed.bytes.count < all.count * 24, "\(packed.bytes.count) bytes for \(all.count) records")
        var cursor = InodeRecords.Cursor(packed)
        #expect(cursor.peek(atLeast: 400)?.inode == 400)
        #expect(cursor.next()?.inode == 400)
        #expect(cursor.peek(atLeast: 100_000)?.inode == InodeRecord.lastInode + 251)
    }

    @Test func changesGiveTheRecordsAndTotalsOfAStateBuiltFromScratch() {
        let before = records(400, seed: 2)
        let state = WritableTreeState(readFrom: 10, readUntil: 12, records: InodeRecords(before))
        var after = Dictionary(uniqueKeysWithValues: before.map { ($0.inode, $0) })
        let changed = records(300, seed: 3).filter { $0.inode % 5 == 0 }
        var changes: [(inode: UInt64, record: InodeRecord?)] = []
        for record in changed { changes.append((record.inode, record)); after[record.inode] = record }
        for inode in stride(from: UInt64(303), to: 700, by: 11) where after[inode] != nil && inode % 5 != 0 {
            changes.append((inode, nil)); after[inode] = nil
        }
        changes.append((900, InodeRecord(inode: 900, inlineBytes: 77, leafBytes: 200)))
        after[900] = changes.last!.record
        changes.sort { $0.inode < $1.inode }
        var replaced: [UInt64] = []
        let next = state.applying(changes, readFrom: 20, readUntil: 21, repeated: [:]) { replaced.append($0.inode) }
        let scratch = WritableTreeState(
            readFrom: 20, readUntil: 21, records: InodeRecords(after.values.sorted { $0.inode < $1.inode }))
        #expect(next == scratch)
        #expect(next.leafBytes == scratch.leafBytes && next.inline == scratch.inline)
        #expect(next.readEachRun == scratch.readEachRun)
        #expect(replaced == changes.map(\.inode).filter { inode in before.contains { $0.inode == inode } })
    }

    @Test func changedReferencesLeaveTheMapOfOneBuiltFromScratch() {
        let before = records(300, seed: 4), after = records(300, seed: 5)
        let snapshot = records(300, seed: 6)
        func map(_ records: [InodeRecord]) -> (ExtentMap, [ExtentKey: UInt32]) {
            var map = ExtentMap(subvolumes: [5, 257, 256])
            map.addReferences(subvolume: 257, snapshot.flatMap(\.references))
            var repeated: [ExtentKey: UInt32] = [:]
            map.addReferences(subvolume: 256, PackedReferences(records.flatMap(\.references)), repeated: &repeated)
            return (map, repeated)
        }
        var (changing, repeated) = map(before)
        #expect(!repeated.isEmpty, "some extents referenced twice")
        // Every record replaced: added first, so extents kept by both stay the tree's.
        let ok = changing.changeReferences(
            subvolume: 256, added: after.flatMap(\.references), removed: before.flatMap(\.references),
            repeated: &repeated)
        #expect(ok)
        let (scratch, scratchRepeated) = map(after)
        #expect(changing == scratch)
        #expect(changing.exclusiveBytes() == scratch.exclusiveBytes())
        #expect(changing.referencedBytes() == scratch.referencedBytes())
        #expect(repeated == scratchRepeated)
        // A reference the tree never had: the state was not this map's.
        var wrong: [ExtentKey: UInt32] = [:]
        #expect(
            !changing.changeReferences(
                subvolume: 256, added: [], removed: [ExtentKey(diskBytenr: 12_345 * 4096, diskBytes: 4096)],
                repeated: &wrong))
    }

    @Test func aCacheFileWhoseRecordsWereAlteredIsFoundOutBeforeTheyAreRead() throws {
        let all = records(200, seed: 7)
        var map = ExtentMap(subvolumes: [256])
        map.addReferences(subvolume: 256, all.flatMap(\.references))
        let exact = ExactSizes(map: map, scan: .init(), nodeSize: 16384, treeBytes: [256: 65536])
        let state = WritableTreeState(readFrom: 5, readUntil: 6, records: InodeRecords(all))
        let kept = ExactSizesCache.KeptState(id: 256, uuid: "u256", generation: 6, state: state)
        let good = ExactSizesCache(filesystem: "f", keeping: [], of: exact, states: [kept]).encoded()
        let decoded = try ExactSizesCache(decoding: good)
        #expect(decoded.trees.map(\.id) == [256])
        #expect(decoded.trees[0].state?.records.checked()?.all == all)
        // A record's length made to run past the records, the checksum recomputed: decoded
        // (records are read lazily) but refused when checked.
        let records = state.records.bytes
        let at = try #require(
            (good.startIndex..<(good.count - records.count)).first {
                good[$0..<($0 + records.count)].elementsEqual(records)
            })
        var forged = good
        // The first record's body length (after its two-byte inode, 256) past the end.
        forged[at + 2] = 0xFF
        forged[at + 3] = 0x7F
        let payload = Array(forged[32...])
        let checksum = ExactSizesCache.checksum(payload)
        for byte in 0..<8 { forged[24 + byte] = UInt8(truncatingIfNeeded: checksum >> (8 * byte)) }
        let opened = try ExactSizesCache(decoding: forged)
        #expect(opened.trees[0].state?.records.checked() == nil)
    }

    @Test func aSetLosesAndGainsMembersInAnyOrder() {
        var map = ExtentMap(subvolumes: [5, 300, 301, 302, 303, 256])
        let key = ExtentKey(diskBytenr: 1 << 20, diskBytes: 4096)
        for id: UInt64 in [300, 301, 256, 303, 302] { map.addReferences(subvolume: id, [key]) }
        var repeated: [ExtentKey: UInt32] = [:]
        #expect(map.changeReferences(subvolume: 302, added: [], removed: [key], repeated: &repeated))
        #expect(map.changeReferences(subvolume: 256, added: [], removed: [key], repeated: &repeated))
        #expect(map.referencedBytes() == [5: 0, 300: 4096, 301: 4096, 302: 0, 303: 4096, 256: 0])
        for id: UInt64 in [300, 301, 303] {
            #expect(map.changeReferences(subvolume: id, added: [], removed: [key], repeated: &repeated))
        }
        #expect(map.extentCount == 0, "no member left: the extent is gone")
        #expect(map.changeReferences(subvolume: 5, added: [key, key], removed: [], repeated: &repeated))
        #expect(repeated == [key: 1])
        #expect(map.exclusiveBytes()[5] == 4096)
    }
}
