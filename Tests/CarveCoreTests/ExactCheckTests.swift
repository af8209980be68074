import CarveCore
import CarveTestSupport
import Testing

/// `carve check` with quotas off: the exact scan names the snapshot set that makes
/// the shrink fit, by what the set frees together.
@Suite struct ExactCheckTests {
    /// sda1, a 4 GiB btrfs at /mnt with 1.2 GiB of data, quotas off, holding `snapshots` of home (256).
    static func fixture(_ snapshots: [Volume]) -> CheckFixture {
        var fixture = CheckFixture()
        fixture.mount("sda1", at: "/mnt")
        fixture.btrfs("sda1", .laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 400 * .mib]))
        fixture.snapshots(snapshots, quotaProblem: "quotas are off on /mnt")
        return fixture
    }

    @Test func quotasOffTheExactSetReclaimNamesTheSnapshotsInTheWay() throws {
        let source = SnapshotFixtures.subvolume(256, path: "home")
        let fixture = Self.fixture(
            [
                SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30),
                SnapshotFixtures.snapshot(262, path: "snaps/c", of: source, daysAgo: 10),
                SnapshotFixtures.snapshot(263, path: "snaps/d", of: source, daysAgo: 1),
            ])
        // b and c share 300M nobody else has: neither frees anything alone.
        var map = ExtentMap(subvolumes: [256, 261, 262, 263])
        for id: UInt64 in [261, 262] { map.addReference(subvolume: id, diskBytenr: 1 << 30, diskBytes: 300 * .mib) }
        map.addReference(subvolume: 263, diskBytenr: 2 << 30, diskBytes: 5 * .mib)
        fixture.snapshots.filesystems[0].exact = ExactSizes(map: map, scan: ExtentScanReport(), nodeSize: 16384)

        let report = try fixture.run("/dev/sda1", .shrinkTo(1700 * .mib))
        #expect(report.verdict == .doesNotFit)
        #expect(report.blockers.map(\.kind) == [.belowMinimum, .snapshots])
        #expect(report.blockers[1].bytes == 300 * .mib)
        #expect(
            report.blockers[1].detail.contains("/mnt/snaps/b") && report.blockers[1].detail.contains("/mnt/snaps/c"))
        #expect(!report.blockers[1].detail.contains("snaps/d"))
        #expect(
            report.remedies.first?.command
                == "carve snapshots thin /mnt --free \(300 * UInt64.mib) --sizes exact --wait")
        #expect(report.minimumSizeWithoutSnapshots != nil)
    }

    /// The snapshots blocker names the largest files only the snapshots in the way hold.
    @Test func theSnapshotsBlockerNamesTheLargestFilesTheyHold() throws {
        let source = SnapshotFixtures.subvolume(256, path: "home")
        let fixture = Self.fixture(
            [
                SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30),
                SnapshotFixtures.snapshot(262, path: "snaps/c", of: source, daysAgo: 10),
            ])
        let files = [
            FakeFileReference(
                261, inode: 300, extent: ExtentKey(diskBytenr: 1 << 30, diskBytes: 250 * .mib), path: "vm.img"),
            FakeFileReference(
                262, inode: 300, extent: ExtentKey(diskBytenr: 1 << 30, diskBytes: 250 * .mib), path: "vm.img"),
            FakeFileReference(
                261, inode: 301, extent: ExtentKey(diskBytenr: 2 << 30, diskBytes: 50 * .mib), path: "a/b.iso"),
        ]
        fixture.snapshots.filesystems[0].files = files
        fixture.snapshots.filesystems[0].exact = FakeFileReference.exact(files, subvolumes: [256, 261, 262])
        var environment = CheckEnvironment(
            devices: fixture.devices, tables: fixture.tables, sizer: fixture.sizer, mounts: fixture.mounts,
            snapshots: fixture.snapshots)
        environment.pinned = fixture.snapshots
        let report = try Check.run(device: "/dev/sda1", operation: .shrinkTo(1700 * .mib), in: environment)
        let blocker = try #require(report.blockers.first { $0.kind == .snapshots })
        #expect(blocker.bytes == 300 * .mib)
        #expect(blocker.pinnedFiles.map(\.displayPath) == ["vm.img", "a/b.iso"])
        #expect(blocker.pinnedFiles.map(\.namedIn.path) == ["/mnt/snaps/c", "/mnt/snaps/b"])
        #expect(blocker.pinnedFiles.map(\.bytes).reduce(0, +) == 300 * .mib)
        // Without a reader (or with one that cannot tell) the blocker stands as it was.
        let plain = try fixture.run("/dev/sda1", .shrinkTo(1700 * .mib))
        #expect(plain.blockers.first { $0.kind == .snapshots }?.pinnedFiles.isEmpty == true)
    }

    /// A target the filesystem reaches whatever its snapshots hold needs no sizes:
    /// quotas off, no exact scan is made (the fake's scan would give the figure).
    @Test func aShrinkThatFitsScansNoSnapshots() throws {
        let source = SnapshotFixtures.subvolume(256, path: "home")
        let fixture = Self.fixture(
            [SnapshotFixtures.snapshot(261, path: "snaps/b", of: source, daysAgo: 30)])
        var map = ExtentMap(subvolumes: [256, 261])
        map.addReference(subvolume: 261, diskBytenr: 1 << 30, diskBytes: 300 * .mib)
        fixture.snapshots.filesystems[0].exact = ExactSizes(map: map, scan: ExtentScanReport(), nodeSize: 16384)

        let fits = try fixture.run("/dev/sda1", .shrinkTo(3 * .gib))
        #expect(fits.verdict == .fits)
        #expect(fits.minimumSizeWithoutSnapshots == nil, "no scan: the snapshots are not in the way")
        let short = try fixture.run("/dev/sda1", .shrinkTo(1200 * .mib))
        #expect(short.minimumSizeWithoutSnapshots != nil, "below the minimum: scanned")
    }

}
