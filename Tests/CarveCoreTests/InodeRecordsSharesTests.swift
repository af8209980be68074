@testable import CarveCore
import CarveTestSupport
import Testing

/// Cutting packed records into runs of about equal leaf bytes (what the searches of a
/// changed tree share out) cuts where the plain records say, keeps every run near its
/// share, and gives up on records whose numbers do not hold.
@Suite struct InodeRecordsSharesTests {
    /// About `count` records, some directories far heavier than the files (a directory
    /// weighs its entries), some with inline bytes, drawn from `random`.
    func records(_ count: Int, _ random: inout SplitMix) -> [InodeRecord] {
        var result: [InodeRecord] = []
        var inode: UInt64 = 256
        for _ in 0..<count {
            inode += UInt64.random(in: 1...3, using: &random)
            var record = InodeRecord(
                inode: inode, parents: [256], leafBytes: UInt64.random(in: 100...400, using: &random))
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                record.isDirectory = true
                record.leafBytes = UInt64.random(in: 1_000...200_000, using: &random)
            case 1: record.inlineBytes = UInt64.random(in: 0...3000, using: &random)
            default: break
            }
            result.append(record)
        }
        return result
    }

    /// The cuts the plain records give, by the same rule: a mark at every `step`-th
    /// record, each cut at the first mark with its share of the bytes before it.
    func plainCuts(_ records: [InodeRecord], parts: Int) -> [UInt64] {
        let step = max(1, records.count / (parts * 64))
        var before: UInt64 = 0
        var marks: [(inode: UInt64, before: UInt64)] = []
        for (index, record) in records.enumerated() {
            if index % step == 0 { marks.append((record.inode, before)) }
            before += record.leafBytes
        }
        var cuts: [UInt64] = []
        for part in 1..<parts {
            let share = UInt64(Double(before) * Double(part) / Double(parts))
            guard let mark = marks.first(where: { $0.before >= share }) else { break }
            if mark.inode > (cuts.last ?? records[0].inode) { cuts.append(mark.inode) }
        }
        return cuts
    }

    @Test(arguments: 0..<40)
    func cutsAreThosePlainRecordsGiveAndRunsHoldTheirShare(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let plain = records(Int.random(in: 2...3000, using: &random), &random)
        let packed = InodeRecords(plain)
        for parts in [2, 3, 16, 64] {
            let cuts = try #require(packed.inodes(splittingLeafBytesInto: parts))
            #expect(cuts == plainCuts(plain, parts: parts), "seed \(seed), \(parts) parts")
            #expect(cuts.count < parts)
            #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $0 < $1 }, "ascending, each once")
            #expect(cuts.allSatisfy { cut in plain.dropFirst().contains { $0.inode == cut } })
            // No run holds more than its share and the heaviest stretch of `step` records
            // that a cut may fall after.
            let total = plain.reduce(0) { $0 + $1.leafBytes }
            let step = max(1, plain.count / (parts * 64))
            let heaviest = (0..<plain.count).map {
                plain[$0..<min(plain.count, $0 + step)].reduce(0) { $0 + $1.leafBytes }
            }
            .max()!
            var runs: [UInt64] = [0]
            for record in plain {
                if cuts.contains(record.inode) { runs.append(0) }
                runs[runs.count - 1] += record.leafBytes
            }
            #expect(runs.allSatisfy { $0 <= total / UInt64(parts) + heaviest + 1 }, "seed \(seed): \(runs)")
        }
    }

    @Test func oneRecordHeavierThanTheRestIsOneRunNotSeveralCutsAtIt() throws {
        var plain = (0..<100).map { InodeRecord(inode: 300 + UInt64($0), parents: [256], leafBytes: 200) }
        plain[10].leafBytes = 1_000_000
        let cuts = try #require(InodeRecords(plain).inodes(splittingLeafBytesInto: 8))
        #expect(cuts == [311], "the heavy record's run ends where it does")
    }

    @Test func fewRecordsOrOnePartAreNotCut() {
        let plain = [InodeRecord(inode: 300, leafBytes: 500)]
        #expect(InodeRecords(plain).inodes(splittingLeafBytesInto: 4) == [])
        var random = SplitMix(seed: 7)
        #expect(InodeRecords(records(50, &random)).inodes(splittingLeafBytesInto: 1) == [])
        #expect(InodeRecords().inodes(splittingLeafBytesInto: 4) == [])
    }

    /// Records straight from a cache file, not yet checked: short, or claiming more than
    /// they hold, they give no cuts rather than a read past their bytes.
    @Test(arguments: 0..<20)
    func recordsWhoseNumbersDoNotHoldGiveNone(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let packed = InodeRecords(records(Int.random(in: 2...400, using: &random), &random))
        let cut = Int.random(in: 1..<packed.bytes.count, using: &random)
        let short = InodeRecords(bytes: packed.bytes.prefix(cut), count: packed.count, checked: false)
        #expect(short.inodes(splittingLeafBytesInto: 2) == nil, "seed \(seed): \(cut) of \(packed.bytes.count) bytes")
        let more = InodeRecords(bytes: packed.bytes, count: packed.count + 1, checked: false)
        #expect(more.inodes(splittingLeafBytesInto: 2) == nil)
        // A body that ends before its leaf bytes: a record of one byte, flagged inline.
        let flagsOnly = InodeRecords(bytes: [1, 1, InodeRecords.inlineFlag][...], count: 1, checked: false)
        let twoFlagsOnly = InodeRecords(bytes: [1, 1, InodeRecords.inlineFlag, 1, 1, 0][...], count: 2, checked: false)
        #expect(flagsOnly.inodes(splittingLeafBytesInto: 2) == [])
        #expect(twoFlagsOnly.inodes(splittingLeafBytesInto: 2) == nil)
    }
}
