@testable import CarveCore
import CarveTestSupport
import Testing

/// The packed records' fast walks held to the plain ones: changes applied by copying
/// unchanged stretches give the bytes of records packed from scratch, a directory's
/// children found in place are those each entry's parents name, and records a check
/// accepts can be walked whole, whatever byte was altered.
@Suite struct InodeRecordsWalkTests {
    /// Records of about `count` inodes from 300 up, with gaps, drawn from `random`.
    func records(_ count: Int, _ random: inout SplitMix) -> [InodeRecord] {
        var result: [InodeRecord] = [InodeRecord(inode: 256, isDirectory: true, parents: [256], leafBytes: 400)]
        var inode: UInt64 = 299
        for _ in 0..<count {
            inode += UInt64.random(in: 1...3, using: &random)
            result.append(record(inode, &random))
        }
        return result
    }

    func record(_ inode: UInt64, _ random: inout SplitMix) -> InodeRecord {
        var record = InodeRecord(
            inode: inode, parents: [256 + UInt64.random(in: 0...3, using: &random)],
            leafBytes: UInt64.random(in: 100...400, using: &random))
        switch Int.random(in: 0..<6, using: &random) {
        case 0: record.isDirectory = true
        case 1: record.inlineBytes = UInt64.random(in: 0...3000, using: &random)
        // A far parent: a walk among it and the others searches, not a bit span.
        case 2: record.parents.append(Bool.random(using: &random) ? 9000 : 1 << 40)
        default:
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                record.references.append(
                    ExtentKey(
                        diskBytenr: UInt64.random(in: 1...1 << 30, using: &random) * 4096,
                        diskBytes: UInt64.random(in: 1...64, using: &random) * 4096))
            }
        }
        return record
    }

    @Test(arguments: 0..<40)
    func anyChangesGiveTheRecordsPackedFromScratch(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let before = records(Int.random(in: 1...80, using: &random), &random)
        var after = Dictionary(uniqueKeysWithValues: before.map { ($0.inode, $0) })
        var changes: [UInt64: InodeRecord?] = [:]
        // Runs of changes and of untouched records alike: a stretch copied whole must
        // begin only after a record written as it was.
        let share = Int.random(in: 1...6, using: &random)
        for old in before where Int.random(in: 0..<share, using: &random) == 0 {
            let gone = Bool.random(using: &random)
            let new = gone ? nil : record(old.inode, &random)
            changes[old.inode] = .some(new)
            after[old.inode] = new
        }
        let last = before.last!.inode
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let inode = UInt64.random(in: 257...(last + 5), using: &random)
            guard after[inode] == nil, changes[inode] == nil else { continue }
            let new = record(inode, &random)
            changes[inode] = .some(new)
            after[inode] = new
        }
        let sorted = changes.map { (inode: $0.key, record: $0.value) }.sorted { $0.inode < $1.inode }
        var replaced: [UInt64] = []
        let applied = InodeRecords(before).applying(sorted) { replaced.append($0.inode) }
        let scratch = InodeRecords(after.values.sorted { $0.inode < $1.inode })
        #expect(applied == scratch, "seed \(seed): \(sorted.count) changes to \(before.count) records")
        #expect(applied.all == scratch.all)
        #expect(replaced == sorted.map(\.inode).filter { inode in before.contains { $0.inode == inode } })
    }

    @Test(arguments: 0..<20)
    func theChildrenFoundInPlaceAreThoseTheirEntriesName(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let packed = InodeRecords(records(200, &random))
        let directories = [UInt64](
            Set(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    [256, 257, 258, 259, 9000, 12, 1 << 40].randomElement(using: &random)!
                })
        ).sorted()
        var found: [[UInt64]] = []
        packed.forEachChild(of: directories) { found.append([$0, $1, UInt64($2), $3 ? 1 : 0]) }
        var named: [[UInt64]] = []
        packed.forEach { entry in
            entry.forEachParent { parent in
                if let position = directories.firstIndex(of: parent) {
                    named.append([entry.inode, parent, UInt64(position), entry.isDirectory ? 1 : 0])
                }
            }
        }
        #expect(found == named, "seed \(seed), directories \(directories)")
    }

    @Test func recordsACheckAcceptsAreWalkedWholeWhateverByteChanged() {
        var random = SplitMix(seed: 11)
        let good = InodeRecords(records(40, &random))
        let bytes = Array(good.bytes)
        var accepted = 0, refused = 0
        for at in bytes.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] where value != bytes[at] {
                var altered = bytes
                altered[at] = value
                let records = InodeRecords(bytes: altered[...], count: good.count, checked: false)
                guard let checked = records.checked() else { refused += 1; continue }
                accepted += 1
                #expect(checked.all.count == good.count)
                var visited = 0
                checked.forEachChild(of: [256, 257, 258, 259, 9000]) { _, _, _, _ in visited += 1 }
                _ = checked.applying([(inode: 1 << 40, record: InodeRecord(inode: 1 << 40))])
            }
        }
        #expect(accepted > 0 && refused > 0, "accepted \(accepted), refused \(refused)")
    }
}
