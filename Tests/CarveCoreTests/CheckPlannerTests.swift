import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct CheckPlannerTests {
    // MARK: new partitions

    @Test func aFreeGapHoldsANewPartitionAlignedToTheGrain() throws {
        let report = try CheckFixture().run("/dev/sda", .newPartition(1 * .gib))
        #expect(report.verdict == .fits)
        #expect(report.newPartition == SectorRange(start: 12_584_960, end: 12_584_960 + 2_097_152 - 1, sectorSize: 512))
        #expect(report.shrunkPartition == nil)
    }

    @Test func aGapStartingOffTheGrainIsAlignedUp() throws {
        var fixture = CheckFixture()
        fixture.tables.tables["/dev/sda"] = FakePartitionTableReader.gpt(
            totalSectors: CheckFixture.diskSectors, partitions: [(2048, 8_388_608), (8_390_656, 4_194_305)]
        )
        let report = try fixture.run("/dev/sda", .newPartition(100 * .mib))
        let range = try #require(report.newPartition)
        #expect(range.start == 12_587_008) // 12_584_961 rounded up to a 2048-sector boundary
        #expect(range.start % 2048 == 0 && (range.end + 1) % 2048 == 0)
        #expect(range.bytes == 100 * .mib)
    }

    @Test func theGPTBackupAreaAtTheEndIsNeverUsed() throws {
        var fixture = CheckFixture()
        fixture.figures("sda2", "ext4", minimum: 500 * .mib)
        // 4094 MiB is the largest aligned run before the last usable sector (20_971_486).
        let largest = try fixture.run("/dev/sda", .newPartition(4094 * .mib))
        #expect(largest.verdict == .fits)
        #expect(try #require(largest.newPartition).end <= 20_971_486)
        #expect(largest.shrunkPartition == nil)
        // One MiB more no longer fits the gap: sda2 has to shrink to make room.
        let more = try fixture.run("/dev/sda", .newPartition(4095 * .mib))
        #expect(more.verdict == .fits)
        #expect(more.shrunkPartition?.number == 2)
        #expect(try #require(more.newPartition).end <= 20_971_486)
    }

    @Test func aNewPartitionAfterShrinkingThePartitionBeforeTheGap() throws {
        var fixture = CheckFixture()
        fixture.figures("sda2", "ext4", minimum: 500 * .mib)
        let report = try fixture.run("/dev/sda", .newPartition(5 * .gib))
        #expect(report.verdict == .fits)
        #expect(
            report.shrunkPartition
                == PlannedPartition(number: 2, range: SectorRange(start: 8_390_656, end: 10_483_711, sectorSize: 512)))
        #expect(report.newPartition == SectorRange(start: 10_483_712, end: 20_969_471, sectorSize: 512))
        #expect(report.targetSize == 1022 * .mib)
    }

    @Test func noRoomWhenThePartitionBeforeTheGapCannotShrinkEnough() throws {
        var fixture = CheckFixture()
        fixture.figures("sda2", "ext4", minimum: 1900 * .mib)
        let report = try fixture.run("/dev/sda", .newPartition(5 * .gib))
        #expect(report.verdict == .doesNotFit)
        #expect(report.blockers.map(\.kind) == [.noRoom, .belowMinimum])
        #expect(report.blockers[1].bytes == (1900 - 1022) * .mib)
    }

    @Test func noCandidateAtAllWhenNothingCanMakeRoom() throws {
        let report = try CheckFixture().run("/dev/sda", .newPartition(9 * .gib))
        #expect(report.blockers.map(\.kind) == [.noRoom])
    }

    // MARK: what each filesystem allows

    @Test func xfsCannotShrink() throws {
        var fixture = CheckFixture(second: .xfs())
        fixture.figures("sda2", "xfs", minimum: nil)
        let report = try fixture.run("/dev/sda2", .shrinkBy(100 * .mib))
        #expect(report.blockers.map(\.kind) == [.cannotShrink])
        #expect(report.blockers[0].bytes == 100 * .mib)
    }

    @Test(arguments: [FakeFilesystem.crypto(), FakeFilesystem("LVM2_member")])
    func typesCarveDoesNotKnowAreNeverAGuessedYes(_ filesystem: FakeFilesystem) throws {
        var fixture = CheckFixture(second: filesystem)
        fixture.figures("sda2", filesystem.type, minimum: nil)
        let report = try fixture.run("/dev/sda2", .shrinkBy(1 * .mib))
        #expect(report.verdict == .doesNotFit)
        #expect(report.blockers.map(\.kind) == [.cannotTell])
    }

    @Test func aPartitionWithoutAFilesystemCannotTell() throws {
        let fixture = CheckFixture(second: nil)
        let report = try fixture.run("/dev/sda2", .shrinkBy(1 * .mib))
        #expect(report.blockers.map(\.kind) == [.cannotTell])
    }

    @Test func mountedExt4MustBeUnmounted() throws {
        var fixture = CheckFixture()
        fixture.mount("sda2", at: "/srv/data")
        fixture.figures("sda2", "ext4", minimum: nil, note: "ext4 is mounted")
        let report = try fixture.run("/dev/sda2", .shrinkTo(1 * .gib))
        #expect(report.blockers.map(\.kind) == [.mustUnmount, .minimumUnknown])
        #expect(report.remedies.map(\.command) == ["umount /srv/data"])
    }

    @Test func unmountedExt4AboveItsMinimumFits() throws {
        var fixture = CheckFixture()
        fixture.figures("sda2", "ext4", minimum: 700 * .mib)
        let report = try fixture.run("/dev/sda2", .shrinkTo(700 * .mib))
        #expect(report.verdict == .fits)
        #expect(
            report.shrunkPartition?.range
                == SectorRange(start: 8_390_656, end: 8_390_656 + 1_433_600 - 1, sectorSize: 512))
        let below = try fixture.run("/dev/sda2", .shrinkTo(699 * .mib))
        #expect(below.blockers.map(\.kind) == [.belowMinimum])
        #expect(below.blockers[0].bytes == 1 * .mib)
    }

    @Test func anUnalignedTargetGetsAPartitionRoundedUpToTheGrain() throws {
        var fixture = CheckFixture()
        fixture.figures("sda2", "ext4", minimum: 100 * .mib)
        let report = try fixture.run("/dev/sda2", .shrinkTo(700 * .mib + 5))
        #expect(report.shrunkPartition?.range.bytes == 701 * .mib)
    }

    @Test func unmountedBtrfsMustBeMounted() throws {
        var fixture = CheckFixture()
        fixture.figures("sda1", "btrfs", minimum: nil, note: "btrfs reports its allocation only while mounted")
        let report = try fixture.run("/dev/sda1", .shrinkTo(3 * .gib))
        #expect(report.blockers.map(\.kind) == [.mustMount, .minimumUnknown])
        #expect(report.remedies.first?.command == "mount /dev/sda1 /mnt")
    }

    @Test func activeSwapMustBeTurnedOff() throws {
        var fixture = CheckFixture(second: .swap())
        fixture.figures("sda2", "swap", minimum: 40_960, busy: "an active swap area")
        let report = try fixture.run("/dev/sda2", .shrinkTo(1 * .gib))
        #expect(report.blockers.map(\.kind) == [.inUse])
        #expect(report.remedies.map(\.command) == ["swapoff /dev/sda2"])
        fixture.figures("sda2", "swap", minimum: 40_960)
        #expect(try fixture.run("/dev/sda2", .shrinkTo(1 * .gib)).verdict == .fits)
    }

    @Test func aSizerLackingRootEndsTheCheckWithNeedsRoot() throws {
        struct RootOnlySizer: FilesystemSizer {
            func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
                throw SystemCallError(
                    "cannot read the device extents of /mnt", call: "ioctl(BTRFS_IOC_TREE_SEARCH)", errno: 1)
            }
        }
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        let error = #expect(throws: SystemCallError.self) {
            try Check.run(
                device: "/dev/sda1", operation: .shrinkTo(3 * .gib),
                in: CheckEnvironment(
                    devices: fixture.devices, tables: fixture.tables, sizer: RootOnlySizer(), mounts: fixture.mounts,
                    snapshots: fixture.snapshots
                ))
        }
        #expect(error?.exitStatus(asRoot: false) == .needsRoot)
        // Root refused (a sandbox, a security module) is not told to be root: a failure with the cause.
        #expect(error?.exitStatus(asRoot: true) == .failure)
        #expect(
            error?.message
                == "cannot read the device extents of /mnt: operation not permitted (EPERM, ioctl(BTRFS_IOC_TREE_SEARCH))"
        )
    }

    @Test func aFailingSizerMeansTheMinimumIsUnknown() throws {
        let report = try CheckFixture().run("/dev/sda2", .shrinkTo(1 * .gib))
        #expect(report.blockers.map(\.kind) == [.minimumUnknown])
        #expect(report.blockers[0].detail.contains("no figures for /dev/sda2"))
    }

    // MARK: btrfs

    @Test func btrfsAboveItsMinimumFits() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 400 * .mib]))
        let report = try fixture.run("/dev/sda1", .shrinkTo(2065 * .mib))
        #expect(report.minimumSize == 2065 * .mib)
        #expect(report.verdict == .fits)
    }

    @Test func btrfsFragmentedChunksAskForABalance() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.sizer.figures["/dev/sda1"] = FilesystemFigures(
            fsType: "btrfs", minimum: 2065 * .mib, minimumAfterBalance: 1109 * .mib, source: "test"
        )
        let report = try fixture.run("/dev/sda1", .shrinkTo(1500 * .mib))
        #expect(report.blockers.map(\.kind) == [.belowMinimum, .allocatedChunks])
        #expect(report.blockers[1].bytes == (2065 - 1109) * .mib)
        #expect(report.remedies.map(\.command) == ["btrfs balance start -dusage=100 /mnt"])
        let further = try fixture.run("/dev/sda1", .shrinkTo(1000 * .mib))
        #expect(further.blockers.map(\.kind) == [.belowMinimum])
        #expect(further.notes.contains { $0.contains("still above the target") })
    }

    @Test func btrfsPartEmptyChunksRepackWithoutABalance() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [100 * .mib, 100 * .mib, 100 * .mib]))
        let report = try fixture.run("/dev/sda1", .shrinkTo(1041 * .mib + BtrfsAllocation.shrinkHeadroom))
        #expect(report.minimumSize == 1041 * .mib + BtrfsAllocation.shrinkHeadroom)
        #expect(report.verdict == .fits)
    }

    @Test func btrfsSnapshotsInTheWayNameTheFewestOldestDeletable() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 400 * .mib]))
        let source = SnapshotFixtures.subvolume(256, path: "home")
        let important = ManagerMetadata(manager: .snapper, config: "home", number: 1, important: true)
        fixture.snapshots([
            SnapshotFixtures.snapshot(
                260, path: "snaps/a", of: source, daysAgo: 60, metadata: important, exclusive: 300 * .mib),
            SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30, exclusive: 100 * .mib),
            SnapshotFixtures.snapshot(262, path: "snaps/c", of: source, daysAgo: 10, exclusive: 200 * .mib),
            SnapshotFixtures.snapshot(263, path: "snaps/d", of: source, daysAgo: 1, exclusive: 50 * .mib),
        ])
        let report = try fixture.run("/dev/sda1", .shrinkTo(1700 * .mib))
        #expect(report.verdict == .doesNotFit)
        #expect(report.blockers.map(\.kind) == [.belowMinimum, .snapshots])
        #expect(report.blockers[1].bytes == 300 * .mib)
        #expect(
            report.blockers[1].detail.contains("/mnt/snaps/b") && report.blockers[1].detail.contains("/mnt/snaps/c"))
        #expect(!report.blockers[1].detail.contains("snaps/a"))
        #expect(
            report.remedies.map(\.command) == [
                "carve snapshots thin /mnt --free \(300 * UInt64.mib) --wait",
                "btrfs balance start -dusage=100 /mnt",
                "carve snapshots delete --wait /mnt/snaps/b /mnt/snaps/c",
            ])
        #expect(report.minimumSizeWithoutSnapshots == 1621 * .mib)
    }

    @Test func btrfsSnapshotsWithUnknownSizesSayHowToFindOut() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 400 * .mib]))
        let source = SnapshotFixtures.subvolume(256, path: "home")
        fixture.snapshots(
            [SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30, exclusive: 100 * .mib)],
            quotaProblem: "quotas are off on /mnt")
        let report = try fixture.run("/dev/sda1", .shrinkTo(1700 * .mib))
        #expect(report.blockers.map(\.kind) == [.belowMinimum])
        #expect(report.remedies.map(\.command) == ["carve snapshots list /mnt --sizes exact"])
        #expect(report.notes.contains { $0.contains("may be pinning space") })
        #expect(report.minimumSizeWithoutSnapshots == nil)
    }

    @Test func snapshotsThatCannotMakeTheDifferenceAreNotBlamed() throws {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 400 * .mib]))
        let source = SnapshotFixtures.subvolume(256, path: "home")
        fixture.snapshots([
            SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30, exclusive: 10 * .mib)
        ])
        let report = try fixture.run("/dev/sda1", .shrinkTo(600 * .mib))
        #expect(report.blockers.map(\.kind) == [.belowMinimum])
        #expect(report.notes.contains { $0.contains("not enough on its own") })
    }

    // MARK: bad input

    @Test func badInputIsAUsageError() throws {
        var fixture = CheckFixture()
        fixture.devices = fixture.devices.disk("sdb", size: 1 * .gib, table: nil)
        let cases: [(String, CheckOperation, String)] = [
            ("/dev/sda2", .shrinkTo(3 * .gib), "cannot shrink to 3G: /dev/sda2 is 2G"),
            ("/dev/sda2", .shrinkBy(2 * .gib), "cannot shrink by 2G"),
            ("/dev/sda2", .shrinkTo(0), "larger than zero"),
            ("/dev/sda", .newPartition(0), "larger than zero"),
            ("/dev/sda", .shrinkBy(1 * .gib), "is a disk with a partition table"),
            ("/dev/sda1", .newPartition(1 * .gib), "is a partition"),
            ("/dev/sdb", .newPartition(1 * .gib), "has no partition table"),
        ]
        for (path, operation, message) in cases {
            let error = #expect(throws: UsageError.self) { try fixture.run(path, operation) }
            #expect(error?.message.contains(message) == true, "\(path) \(operation): \(error?.message ?? "")")
        }
    }
}
