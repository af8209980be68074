import CarveCore
import CarveTestSupport
import Foundation
import Testing

extension CheckValidationTests {
    /// ntfs (ntfs-3g): mounted, carve names the mount as the blocker and gives no
    /// minimum; unmounted, the minimum is ntfsresize's, and ntfsresize then shrinks the
    /// filesystem to it and the partition follows, with ntfsfix finding nothing wrong.
    @Test func ntfsShrinkAtTheMinimumHoldsInPractice() throws {
        try withLoopDisk(size: "600M", sfdisk: "label: gpt\nsize=500MiB, type=L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkntfs", "-Q", "-F", "-q", part])
            let mountpoint = try disk.mount(part)
            #expect(try Shell.check(["findmnt", "-n", "-o", "FSTYPE", mountpoint]).hasPrefix("fuseblk"))
            try CheckHarness.writeFiles(mountpoint, count: 12, mebibytes: 10)
            let mounted = try CheckHarness.check(part, .shrinkBy(100 * Self.mebibyte))
            #expect(mounted.verdict == .doesNotFit && mounted.minimumSize == nil)
            #expect(
                mounted.blockers.contains { $0.kind == .mustUnmount && $0.detail.contains(mountpoint) },
                "\(mounted.blockers)")
            try disk.unmount(mountpoint)

            let report = try CheckHarness.check(part, .shrinkBy(100 * Self.mebibyte))
            let minimum = try #require(report.minimumSize, "\(report.notes)")
            #expect(report.verdict == .fits)
            // The reference, read here from ntfsresize's own sentence.
            let info = try Shell.check(["ntfsresize", "--info", "--no-action", "--force", part])
            let sentence = try #require(info.split(separator: "\n").first { $0.hasPrefix("You might resize at ") })
            let bytes = try #require(UInt64(sentence.dropFirst("You might resize at ".count).prefix { $0.isNumber }))
            #expect(minimum == (bytes + Self.mebibyte - 1) / Self.mebibyte * Self.mebibyte)
            #expect(minimum > 120 * Self.mebibyte, "the 120 MiB of files must fit")
            let below = try CheckHarness.check(part, .shrinkTo(minimum - 8 * Self.mebibyte))
            #expect(below.blockers.contains { $0.kind == .belowMinimum })
            let at = try CheckHarness.check(part, .shrinkTo(minimum))
            #expect(at.verdict == .fits, "\(at.blockers)")

            let resize = try Shell.run(["ntfsresize", "--force", "--size", "\(minimum)", part], input: "y\n")
            #expect(resize.status == 0, "ntfsresize refused carve's minimum: \(resize.stdout)\(resize.stderr)")
            try CheckHarness.resizePartition(disk, number: 1, sectors: try #require(at.shrunkPartition).range.sectors)
            let verify = try Shell.run(["ntfsfix", "--no-action", part])
            #expect(verify.status == 0, "ntfsfix after the shrink: \(verify.stdout)")
            CheckHarness.record("ntfs: carve minimum \(minimum / Self.mebibyte) MiB, ntfsresize shrank to it")
        }
    }
}
