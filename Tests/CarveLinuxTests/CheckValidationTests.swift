import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The validation harness: carve's verdicts on real loop devices, each `fits`
/// confirmed by actually shrinking the filesystem and then the partition on the test
/// image, each `does not fit` checked for a real blocker. The distance between carve's
/// minimum and the smallest size that worked is recorded in /tmp/carve-check-calibration.txt.
@Suite(.serialized, .integration())
struct CheckValidationTests {
    static let mebibyte: UInt64 = 1 << 20
    static let gptOnePartition = "label: gpt\nsize=1000MiB, type=L\n"

    /// btrfs with half its files deleted: chunks left part empty.
    @Test func btrfsShrinkAroundTheMinimumHoldsInPractice() throws {
        try withMountedBtrfs { disk, part, mountpoint in
            try CheckHarness.writeFiles(mountpoint, count: 40, mebibytes: 10)
            try Shell.check(["sh", "-c", "rm \(mountpoint)/f*[13579] && sync"])
            try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
            try confirmBtrfsBoundary(disk: disk, part: part, mountpoint: mountpoint, scenario: "btrfs, half deleted")
        }
    }

    /// btrfs written full and compact: every chunk used.
    @Test func btrfsCompactShrinkAroundTheMinimumHoldsInPractice() throws {
        try withMountedBtrfs { disk, part, mountpoint in
            try CheckHarness.writeFiles(mountpoint, count: 1, mebibytes: 300)
            try CheckHarness.writeFiles(mountpoint, count: 20, mebibytes: 4, prefix: "small")
            try confirmBtrfsBoundary(disk: disk, part: part, mountpoint: mountpoint, scenario: "btrfs, compact")
        }
    }

    /// More layouts, each checked at carve's minimum: a quarter left of small files, one
    /// 600 MiB file filling the disk (64 MiB extents that cannot be split), big files after
    /// many small ones were deleted, and a snapshot pinning deleted files.
    static let layouts: [(name: String, script: String)] = [
        (
            "quarter left",
            "i=0; while [ $i -lt 80 ]; do head -c 5M /dev/urandom > M/f$i; i=$((i+1)); done; sync; rm M/f*[123567]"
        ),
        ("one large file", "head -c 600M /dev/urandom > M/big"),
        (
            "big after small",
            "i=0; while [ $i -lt 100 ]; do head -c 2M /dev/urandom > M/s$i; i=$((i+1)); done; "
                + "head -c 150M /dev/urandom > M/b1; head -c 150M /dev/urandom > M/b2; sync; rm M/s*"
        ),
        (
            "snapshot pinning",
            "i=0; while [ $i -lt 40 ]; do head -c 10M /dev/urandom > M/f$i; i=$((i+1)); done; sync; "
                + "btrfs -q subvolume snapshot -r M M/snap; rm M/f*; i=0; while [ $i -lt 20 ]; do head -c 10M /dev/urandom > M/g$i; i=$((i+1)); done"
        ),
    ]

    @Test(arguments: 0..<layouts.count)
    func btrfsLayoutsShrinkAtCarvesMinimum(_ index: Int) throws {
        let layout = Self.layouts[index]
        try withMountedBtrfs { disk, part, mountpoint in
            try Shell.check([
                "sh", "-c", layout.script.replacingOccurrences(of: "M/", with: mountpoint + "/") + "; sync",
            ])
            try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
            let report = try CheckHarness.check(part, .shrinkTo(999 * Self.mebibyte))
            let minimum = try #require(report.minimumSize), size = try #require(report.currentSize)
            #expect(try CheckHarness.check(part, .shrinkTo(minimum)).verdict == .fits)
            // Tight: one MiB less does not fit. At the kernel's 256 MiB floor (carve's minimum
            // then is that floor) one MiB less fails for the floor's sake, which shows nothing.
            if minimum > BtrfsAllocation.smallestDevice {
                #expect(try CheckHarness.check(part, .shrinkTo(minimum - Self.mebibyte)).verdict == .doesNotFit)
            }
            guard minimum < size else {
                // Nothing can move (one large file leaves no free chunk to relocate into): that
                // no shrink fits must then hold in practice, beyond the usual 16 MiB of margin.
                #expect(minimum == size)
                #expect(
                    try !CheckHarness.btrfsResize(mountpoint, to: size - 16 * Self.mebibyte),
                    "carve's minimum is the whole filesystem, yet btrfs shrank it (\(layout.name))")
                return
            }
            try #require(
                try CheckHarness.btrfsResize(mountpoint, to: minimum),
                "carve said \(minimum) fits but btrfs refused it (\(layout.name))")
            try CheckHarness.btrfsGrowBack(mountpoint)
            let realFloor = try CheckHarness.btrfsFloor(mountpoint, from: minimum, step: 4 * Self.mebibyte) ?? minimum
            CheckHarness.record(
                "btrfs, \(layout.name): carve minimum \(minimum / Self.mebibyte) MiB, smallest that worked "
                    + "\(realFloor / Self.mebibyte) MiB, gap \(String(format: "%.1f", Double(minimum - realFloor) / Double(size) * 100))%"
            )
        }
    }

    /// A 1200 MiB GPT loop disk with btrfs on its one 1000 MiB partition, mounted.
    func withMountedBtrfs(_ body: (LoopDisk, _ part: String, _ mountpoint: String) throws -> Void) throws {
        try withLoopDisk(size: "1200M", sfdisk: Self.gptOnePartition) { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.btrfs", "-q", "-f", part])
            try body(disk, part, try disk.mount(part))
        }
    }

    /// Checks above, at and below carve's minimum; shrinks at the minimum and steps down
    /// to find what really works; then shrinks filesystem and partition for good.
    func confirmBtrfsBoundary(disk: LoopDisk, part: String, mountpoint: String, scenario: String) throws {
        let report = try CheckHarness.check(part, .shrinkTo(900 * Self.mebibyte))
        let minimum = try #require(report.minimumSize, "carve gave no minimum: \(report.notes)")
        let size = try #require(report.currentSize)

        let above = try CheckHarness.check(part, .shrinkTo(minimum + 64 * Self.mebibyte))
        #expect(above.verdict == .fits, "\(above.blockers)")
        let below = try CheckHarness.check(part, .shrinkTo(minimum - 16 * Self.mebibyte))
        #expect(below.verdict == .doesNotFit)
        #expect(below.blockers.contains { $0.kind == .belowMinimum })
        let at = try CheckHarness.check(part, .shrinkTo(minimum))
        #expect(at.verdict == .fits, "\(at.blockers)")

        // Every `fits` must hold: the kernel shrinks at carve's minimum.
        try #require(
            try CheckHarness.btrfsResize(mountpoint, to: minimum), "carve said \(minimum) fits but btrfs refused it")
        try CheckHarness.btrfsGrowBack(mountpoint)
        let realFloor = try CheckHarness.btrfsFloor(mountpoint, from: minimum, step: 4 * Self.mebibyte) ?? minimum
        let gap = Double(minimum - realFloor) / Double(size) * 100
        CheckHarness.record(
            "\(scenario): carve minimum \(minimum / Self.mebibyte) MiB, smallest that worked "
                + "\(realFloor / Self.mebibyte) MiB, gap \(String(format: "%.1f", gap))% of the \(size / Self.mebibyte) MiB filesystem"
        )

        // Shrink for good at the (re-checked) minimum, then the partition, then verify the filesystem.
        let rechecked = try #require(try CheckHarness.check(part, .shrinkTo(size - Self.mebibyte)).minimumSize)
        let final = try CheckHarness.check(part, .shrinkTo(rechecked))
        #expect(final.verdict == .fits)
        let planned = try #require(final.shrunkPartition)
        #expect(try CheckHarness.btrfsResize(mountpoint, to: final.targetSize))
        try CheckHarness.resizePartition(disk, number: 1, sectors: planned.range.sectors)
        #expect(try CheckHarness.sfdiskPartitions(disk.image).first?.size == planned.range.sectors)
        try disk.unmount(mountpoint)
        let verify = try Shell.run(["btrfs", "check", "--readonly", part])
        #expect(verify.status == 0, "btrfs check after the shrink: \(verify.stderr)")
    }

    /// ext4 unmounted: resize2fs -P's figure, confirmed by resize2fs and sfdisk.
    @Test func ext4ShrinkAtTheMinimumHoldsInPractice() throws {
        try withLoopDisk(size: "1200M", sfdisk: Self.gptOnePartition) { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.ext4", "-q", "-F", part])
            let mountpoint = try disk.mount(part)
            try CheckHarness.writeFiles(mountpoint, count: 30, mebibytes: 10)
            try Shell.check(["sh", "-c", "rm \(mountpoint)/f*[02468] && sync"])
            try disk.unmount(mountpoint)

            let report = try CheckHarness.check(part, .shrinkBy(100 * Self.mebibyte))
            let minimum = try #require(report.minimumSize, "\(report.notes)")
            #expect(report.verdict == .fits)
            let below = try CheckHarness.check(part, .shrinkTo(minimum - 8 * Self.mebibyte))
            #expect(below.blockers.contains { $0.kind == .belowMinimum })
            let at = try CheckHarness.check(part, .shrinkTo(minimum))
            #expect(at.verdict == .fits, "\(at.blockers)")

            try Shell.check(["e2fsck", "-f", "-y", part])
            var realFloor = minimum
            while try Shell.run(["resize2fs", part, "\((realFloor - 4 * Self.mebibyte) / 1024)K"]).status == 0 {
                realFloor -= 4 * Self.mebibyte
                try Shell.check(["resize2fs", part])
            }
            CheckHarness.record(
                "ext4: carve minimum \(minimum / Self.mebibyte) MiB, smallest that worked \(realFloor / Self.mebibyte) MiB"
            )
            let resize = try Shell.run(["resize2fs", part, "\(minimum / 1024)K"])
            #expect(resize.status == 0, "resize2fs refused carve's minimum: \(resize.stderr)")
            try CheckHarness.resizePartition(disk, number: 1, sectors: try #require(at.shrunkPartition).range.sectors)
            let verify = try Shell.run(["e2fsck", "-f", "-n", part])
            #expect(verify.status == 0, "e2fsck after the shrink: \(verify.stdout)")
        }
    }

    /// The seed's story, with carve itself: `carve check` says a new partition does not
    /// fit because a snapshot pins deleted data and prints the command; that command
    /// frees it; `carve check` then says it fits; the shrink and the new partition are
    /// then made on the test image without error.
    @Test func snapshotsPinningDeletedDataBlockANewPartitionUntilRemoved() throws {
        try withLoopDisk(size: "1600M", sfdisk: "label: gpt\n,,L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.btrfs", "-q", "-f", part])
            let mountpoint = try disk.mount(part)
            try Shell.check(["btrfs", "quota", "enable", mountpoint])
            try CheckHarness.writeFiles(mountpoint, count: 45, mebibytes: 10, prefix: "old")
            try Shell.check(["btrfs", "subvolume", "snapshot", "-r", mountpoint, mountpoint + "/snap-1"])
            try Shell.check(["sh", "-c", "rm \(mountpoint)/old* && sync"])
            try CheckHarness.writeFiles(mountpoint, count: 10, mebibytes: 10, prefix: "new")
            try Shell.check(["btrfs", "subvolume", "snapshot", "-r", mountpoint, mountpoint + "/snap-2"])
            try Shell.check(["btrfs", "quota", "rescan", "-w", mountpoint])
            // The real backend's sizes agree with the reference tools' on what pins the space.
            let reference = ReferenceSnapshotBackend(mountpoint: mountpoint, device: part)

            let probe = try CheckHarness.check(part, .shrinkTo(1 << 30))
            let size = try #require(probe.currentSize)
            let minimum = try #require(probe.minimumSize), without = try #require(probe.minimumSizeWithoutSnapshots)
            #expect(without < minimum)
            #expect(
                try CheckHarness.check(part, .shrinkTo(1 << 30), snapshots: reference).minimumSizeWithoutSnapshots
                    == without)
            // A new partition that leaves the btrfs partition between the two minima.
            let wanted = (size - (minimum + without) / 2) / Self.mebibyte * Self.mebibyte
            let arguments = ["check", disk.device, "--new-partition", String(wanted)]

            let blocked = CheckHarness.carve(arguments)
            #expect(blocked.status == 3, "\(blocked.stdout)\(blocked.stderr)")
            #expect(
                blocked.stdout.contains(
                    "snapshots (450M): 1 snapshot(s) pin 450M the shrink needs: \(mountpoint)/snap-1"))
            #expect(blocked.stdout.contains("carve snapshots thin \(mountpoint) --free "))

            // The printed remedy, run as printed (with --yes: no terminal here), then the balance.
            let lines = blocked.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let delete = try #require(lines.first { $0.hasPrefix("carve snapshots delete ") })
            // The thin remedy would choose the same snapshot.
            let thin = try #require(lines.first { $0.hasPrefix("carve snapshots thin ") })
            let planArguments =
                thin.split(separator: " ").dropFirst().map(String.init).filter { $0 != "--wait" } + ["--dry-run"]
            let plan = try Shell.run([try CheckHarness.carveExecutable()] + planArguments)
            #expect(plan.status == 0, "\(plan.stdout)\(plan.stderr)")
            #expect(plan.stdout.contains("snap-1") && !plan.stdout.contains("snap-2"), "\(plan.stdout)")
            // As a separate process, as the user runs it (in-process, the delete leaves a
            // descriptor of the mountpoint open, which keeps it from unmounting later).
            let deleted = try Shell.run(
                [try CheckHarness.carveExecutable()] + delete.split(separator: " ").dropFirst().map(String.init) + [
                    "--yes"
                ])
            #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: mountpoint + "/snap-1"))
            #expect(FileManager.default.fileExists(atPath: mountpoint + "/snap-2"))
            let balance = try #require(lines.first { $0.hasPrefix("btrfs balance start") })
            try Shell.check(["sh", "-c", balance])

            let fits = try CheckHarness.check(disk.device, .newPartition(wanted))
            #expect(fits.verdict == .fits, "\(fits.blockers) \(fits.notes)")
            #expect(CheckHarness.carve(arguments).status == 0)
            let shrunk = try #require(fits.shrunkPartition), new = try #require(fits.newPartition)
            #expect(
                try CheckHarness.btrfsResize(mountpoint, to: shrunk.range.bytes),
                "btrfs refused the size carve said fits")
            try CheckHarness.resizePartition(disk, number: 1, sectors: shrunk.range.sectors)
            try CheckHarness.appendPartition(disk, number: 2, new)
            let layout = try CheckHarness.sfdiskPartitions(disk.image)
            #expect(layout.map(\.start) == [shrunk.range.start, new.start])
            #expect(layout.map(\.size) == [shrunk.range.sectors, new.sectors])
            try Shell.check(["mkfs.ext4", "-q", "-F", disk.partition(2)])
            try disk.unmount(mountpoint)
            let verify = try Shell.run(["btrfs", "check", "--readonly", part])
            #expect(verify.status == 0, "btrfs check after the shrink: \(verify.stderr)")
        }
    }

    @Test func aNewPartitionGoesIntoAFreeGapExactlyWhereCarveSays() throws {
        try withLoopDisk(size: "600M", sfdisk: "label: gpt\nsize=200MiB, type=L\n") { disk in
            let report = try CheckHarness.check(disk.device, .newPartition(300 * Self.mebibyte))
            #expect(report.verdict == .fits)
            let range = try #require(report.newPartition)
            #expect(report.shrunkPartition == nil)
            try CheckHarness.appendPartition(disk, number: 2, range)
            #expect(
                try CheckHarness.sfdiskPartitions(disk.image).last.map { [$0.start, $0.size] } == [
                    range.start, range.sectors,
                ])
            #expect(range.start % 2048 == 0 && range.bytes == 300 * Self.mebibyte)
            let tooBig = try CheckHarness.check(disk.device, .newPartition(500 * Self.mebibyte))
            #expect(tooBig.verdict == .doesNotFit)
        }
    }

    @Test func xfsCannotShrink() throws {
        try withLoopDisk(size: "700M", sfdisk: "label: gpt\nsize=600MiB, type=L\n") { disk in
            try Shell.check(["mkfs.xfs", "-q", "-f", disk.partition(1)])
            let report = try CheckHarness.check(disk.partition(1), .shrinkBy(100 * Self.mebibyte))
            #expect(report.filesystem == "xfs")
            #expect(report.blockers.map(\.kind) == [.cannotShrink])
        }
    }

    @Test func mountedExt4MustBeUnmounted() throws {
        try withLoopDisk(size: "400M", sfdisk: "label: gpt\nsize=300MiB, type=L\n") { disk in
            try Shell.check(["mkfs.ext4", "-q", "-F", disk.partition(1)])
            let mountpoint = try disk.mount(disk.partition(1))
            let report = try CheckHarness.check(disk.partition(1), .shrinkBy(100 * Self.mebibyte))
            #expect(report.blockers.first?.kind == .mustUnmount)
            #expect(report.remedies.map(\.command) == ["umount \(mountpoint)"])
            try disk.unmount(mountpoint)
            #expect(try CheckHarness.check(disk.partition(1), .shrinkBy(100 * Self.mebibyte)).verdict == .fits)
        }
    }

    @Test func unmountedBtrfsMustBeMounted() throws {
        try withLoopDisk(size: "400M", sfdisk: "label: gpt\nsize=300MiB, type=L\n") { disk in
            try Shell.check(["mkfs.btrfs", "-q", "-f", disk.partition(1)])
            let report = try CheckHarness.check(disk.partition(1), .shrinkBy(40 * Self.mebibyte))
            #expect(report.blockers.map(\.kind) == [.mustMount, .minimumUnknown])
            let mountpoint = try disk.mount(disk.partition(1))
            let mounted = try CheckHarness.check(disk.partition(1), .shrinkBy(40 * Self.mebibyte))
            #expect(mounted.verdict == .fits, "\(mounted.blockers)")
            #expect(try CheckHarness.btrfsResize(mountpoint, to: mounted.targetSize))
            // The kernel refuses any btrfs device below 256 MiB, however empty.
            let tooSmall = try CheckHarness.check(disk.partition(1), .shrinkTo(250 * Self.mebibyte))
            #expect(tooSmall.blockers.map(\.kind) == [.belowMinimum])
            #expect(!(try CheckHarness.btrfsResize(mountpoint, to: 250 * Self.mebibyte)))
        }
    }
}
