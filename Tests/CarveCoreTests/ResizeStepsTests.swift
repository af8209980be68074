import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The steps `check` gives with "fits": order, exact numbers and guards, on the
/// fixture disk (sda1 4 GiB at sector 2048, sda2 2 GiB at 8390656, 4 GiB free).
@Suite struct ResizeStepsTests {
    static let sda2Guard = "sfdisk --dump /dev/sda | grep -q '^/dev/sda2 : start= *8390656, size= *4194304,'"

    func ext4Fixture(minimum: UInt64 = 700 * .mib, blockSize: UInt64? = 4096) -> CheckFixture {
        var fixture = CheckFixture()
        fixture.sizer.figures["/dev/sda2"] = FilesystemFigures(
            fsType: "ext4", minimum: minimum, source: "resize2fs -P", blockSize: blockSize)
        return fixture
    }

    @Test func unmountedExt4IsCheckedResizedThenItsPartitionThenTheKernelTold() throws {
        let report = try ext4Fixture().run("/dev/sda2", .shrinkTo(1 * .gib))
        #expect(report.verdict == .fits)
        #expect(
            report.steps.map(\.command) == [
                Self.sda2Guard,
                "e2fsck -f -y /dev/sda2",
                "resize2fs /dev/sda2 1048576K",
                Self.sda2Guard
                    + " && echo 'start=8390656, size=2097152' | sfdisk --no-reread --no-tell-kernel -N 2 /dev/sda",
                "partx -u /dev/sda",
            ])
        #expect(report.steps[2].explanation.contains("1G (1073741824 bytes, 262144 blocks of 4096 bytes)"))
    }

    /// Any target: the filesystem size is whole blocks, never more than the planned
    /// partition, at most one block below the target; the partition step writes the very
    /// sectors the report shows.
    @Test(arguments: [1024, 2048, 4096] as [UInt64])
    func everySizeIsWholeBlocksAndFitsItsPartition(_ block: UInt64) throws {
        var random = SplitMix(seed: block)
        for _ in 0..<200 {
            let target = 700 * .mib + random.next() % (2 * .gib - 700 * .mib - 1)
            let report = try ext4Fixture(blockSize: block).run("/dev/sda2", .shrinkTo(target))
            let resize = try #require(report.steps.first { $0.command.hasPrefix("resize2fs ") })
            let kib = try #require(UInt64(resize.command.split(separator: " ").last!.dropLast()))
            let bytes = kib * 1024
            let planned = try #require(report.shrunkPartition).range
            #expect(bytes % block == 0 && bytes <= planned.bytes && bytes <= target && target - bytes < block)
            #expect(planned.start == 8_390_656 && planned.bytes >= target && planned.bytes < target + .mib)
            let partition = try #require(report.steps.first { $0.command.contains("sfdisk --no-reread") })
            #expect(partition.command.contains("'start=\(planned.start), size=\(planned.sectors)'"))
        }
    }

    @Test func mountedBtrfsShrinksOnlineByDeviceIdThenTheNewPartitionIsAppendedLast() throws {
        var fixture = CheckFixture()
        fixture.tables.tables["/dev/sda"] = FakePartitionTableReader.gpt(
            totalSectors: CheckFixture.diskSectors, partitions: [(2048, 8_388_608)])
        fixture.devices = FakeDeviceSource().disk(
            "sda", size: 10 * .gib, partitions: [FakePartition(size: 4 * .gib, .btrfs())])
        var allocation = BtrfsAllocation.laidOut(deviceSize: 4 * .gib, dataUsed: [100 * .mib])
        allocation.devid = 3
        fixture.btrfs("sda1", allocation)
        fixture.mount("sda1", at: "/srv/my data")
        let report = try fixture.run("/dev/sda", .newPartition(7 * .gib))
        #expect(report.verdict == .fits, "\(report.blockers)")
        let shrunk = try #require(report.shrunkPartition).range, new = try #require(report.newPartition)
        let guardCommand = "sfdisk --dump /dev/sda | grep -q '^/dev/sda1 : start= *2048, size= *8388608,'"
        #expect(
            report.steps.map(\.command) == [
                guardCommand,
                "btrfs filesystem resize 3:\(shrunk.bytes) '/srv/my data'",
                guardCommand
                    + " && echo 'start=2048, size=\(shrunk.sectors)' | sfdisk --no-reread --no-tell-kernel -N 1 /dev/sda",
                "echo 'start=\(new.start), size=\(new.sectors), type=L' | sfdisk --no-reread --no-tell-kernel --append /dev/sda",
                "partx -u /dev/sda",
            ])
        #expect(!report.steps.contains { $0.command.contains("mkfs") })
    }

    @Test func aNewPartitionInAFreeGapIsOnlyAppended() throws {
        let report = try CheckFixture().run("/dev/sda", .newPartition(1 * .gib))
        #expect(
            report.steps.map(\.command) == [
                "echo 'start=12584960, size=2097152, type=L' | sfdisk --no-reread --no-tell-kernel --append /dev/sda",
                "partx -u /dev/sda",
            ])
        #expect(report.steps[0].explanation.contains("aligned to 1 MiB"))
    }

    @Test func noStepsWhenItDoesNotFitOrNothingChanges() throws {
        #expect(try ext4Fixture().run("/dev/sda2", .shrinkTo(600 * .mib)).steps.isEmpty)
        #expect(try ext4Fixture().run("/dev/sda2", .shrinkTo(2 * .gib)).steps.isEmpty)
        #expect(try CheckFixture(first: .xfs()).run("/dev/sda1", .shrinkBy(.gib)).steps.isEmpty)
        #expect(try CheckFixture().run("/dev/sda", .newPartition(9 * .gib)).steps.isEmpty)
    }

    @Test func aFullDOSTableHasNoRoomForAFifthPrimary() throws {
        var fixture = CheckFixture()
        var table = FakePartitionTableReader.gpt(
            totalSectors: CheckFixture.diskSectors,
            partitions: [(2048, 2048), (4096, 2048), (6144, 2048), (8192, 2048)])
        table.label = .dos
        fixture.tables.tables["/dev/sda"] = table
        let report = try fixture.run("/dev/sda", .newPartition(1 * .gib))
        #expect(report.verdict == .doesNotFit && report.steps.isEmpty)
        #expect(report.blockers.first?.detail.hasPrefix("the DOS table already holds four primary partitions") == true)
        table.partitions.removeLast()
        fixture.tables.tables["/dev/sda"] = table
        #expect(try fixture.run("/dev/sda", .newPartition(1 * .gib)).verdict == .fits)
    }

    @Test func ntfsIsResizedInBytesBeforeItsPartition() throws {
        var fixture = CheckFixture(second: FakeFilesystem("ntfs"))
        fixture.figures("sda2", "ntfs", minimum: 300 * .mib)
        let report = try fixture.run("/dev/sda2", .shrinkTo(1_000_000_000))
        #expect(report.steps.map(\.command)[1] == "ntfsresize --force --size 999997440 /dev/sda2")
        #expect(report.steps.map(\.command)[2].contains("-N 2 /dev/sda"))
    }

    @Test func swapIsRecreatedAfterItsPartitionKeepingItsUUIDAndLabel() throws {
        var fixture = CheckFixture(second: .swap(label: "my swap"))
        fixture.figures("sda2", "swap", minimum: 40960)
        let report = try fixture.run("/dev/sda2", .shrinkTo(1 * .gib))
        #expect(
            report.steps.map(\.command).last
                == "mkswap -U 2c4e6a8b-0d1f-4a3c-9e5b-7d9f1a3c5e06 -L 'my swap' /dev/sda2")
        #expect(report.steps.map(\.command)[2] == "partx -u /dev/sda")
    }
}
