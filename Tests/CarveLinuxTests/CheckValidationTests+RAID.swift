import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The validation harness on multi-device btrfs: raid1 over two and over three loop
/// devices, mounted through the first. carve checks another member, and the kernel
/// then shrinks that member (`btrfs filesystem resize DEVID:SIZE`) at carve's minimum.
extension CheckValidationTests {
    @Test(arguments: [2, 3])
    func raid1MemberShrinksAtCarvesMinimum(_ devices: Int) throws {
        try withRAID1(devices: devices) { members, mountpoint in
            // Half the files deleted, so chunks are left part empty, as on a used disk.
            try CheckHarness.writeFiles(mountpoint, count: 30, mebibytes: 10)
            try Shell.check(["sh", "-c", "rm \(mountpoint)/f*[13579] && sync"])
            try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
            let member = members[devices - 1], devid = UInt64(devices)

            let report = try CheckHarness.check(member, .shrinkTo(900 * Self.mebibyte))
            #expect(!report.blockers.contains { $0.kind == .mustMount }, "\(report.blockers)")
            let minimum = try #require(report.minimumSize, "no minimum: \(report.notes)")
            #expect(report.notes.contains { $0.contains("this is device \(devid)") }, "\(report.notes)")
            #expect(
                report.notes.contains(
                    "shrink this device with `btrfs filesystem resize \(devid):\(900 * Self.mebibyte) \(mountpoint)`"))
            #expect(report.notes.contains { $0.contains("keeps a copy of every chunk") } == (devices == 2))
            #expect(try CheckHarness.check(member, .shrinkTo(minimum)).verdict == .fits)
            #expect(try CheckHarness.check(member, .shrinkTo(minimum - 16 * Self.mebibyte)).verdict == .doesNotFit)

            try #require(
                try resize(mountpoint, devid: devid, to: minimum),
                "carve said device \(devid) fits at \(minimum) but btrfs refused it")
            try Shell.check(["btrfs", "filesystem", "resize", "\(devid):max", mountpoint])
            var floor = minimum
            while floor > 264 * Self.mebibyte, try resize(mountpoint, devid: devid, to: floor - 4 * Self.mebibyte) {
                floor -= 4 * Self.mebibyte
                try Shell.check(["btrfs", "filesystem", "resize", "\(devid):max", mountpoint])
            }
            CheckHarness.record(
                "btrfs raid1 over \(devices), device \(devid): carve minimum \(minimum / Self.mebibyte) MiB, "
                    + "smallest that worked \(floor / Self.mebibyte) MiB")
            // Shrink for good, then the filesystem must still be whole.
            #expect(try resize(mountpoint, devid: devid, to: minimum))
            // Not the fixture's `unmount`: it keeps tracking the mount made again below.
            try LoopDisk.unmountWhenFree(mountpoint)
            let verify = try Shell.run(["btrfs", "check", "--readonly", members[0]])
            #expect(verify.status == 0, "btrfs check after the shrink: \(verify.stderr)")
            try Shell.check(["mount", members[0], mountpoint])
        }
    }

    /// --remove on raid1, confirmed by `btrfs device remove`: two devices cannot lose one;
    /// three with room can; three too full for two cannot.
    @Test(arguments: [(2, 100, false), (3, 100, true), (3, 700, false)])
    func raid1RemovalVerdictHoldsInPractice(_ devices: Int, _ mebibytes: Int, _ fits: Bool) throws {
        try withRAID1(devices: devices, size: "600M") { members, mountpoint in
            try CheckHarness.writeFiles(mountpoint, count: mebibytes / 10, mebibytes: 10)
            try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
            let member = members[devices - 1], devid = devices
            let report = try CheckHarness.check(member, .remove)
            #expect(report.verdict == (fits ? .fits : .doesNotFit), "\(report.blockers) \(report.notes)")
            if fits {
                #expect(
                    report.notes.contains {
                        $0.hasPrefix("remove it with `btrfs device remove \(devid) \(mountpoint)`")
                    })
            } else {
                #expect(
                    report.blockers.contains { $0.kind == (devices == 2 ? .cannotRemove : .noRoom) },
                    "\(report.blockers)")
            }
            let cli = CheckHarness.carve(["check", member, "--remove", "--json"])
            #expect(cli.status == (fits ? 0 : 3), "\(cli.stderr)")
            let removed = try Shell.run(["btrfs", "device", "remove", String(devid), mountpoint])
            #expect(
                (removed.status == 0) == fits,
                "carve said \(fits ? "fits" : "does not fit"); btrfs device remove: \(removed.stderr)")
        }
    }

    func resize(_ mountpoint: String, devid: UInt64, to bytes: UInt64) throws -> Bool {
        let result = try Shell.run(["btrfs", "filesystem", "resize", "\(devid):\(bytes)", mountpoint])
        if result.status != 0 {
            CheckHarness.record(
                "btrfs resize of device \(devid) to \(bytes >> 20) MiB refused: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        return result.status == 0
    }

    /// raid1 (data and metadata) over `devices` loop devices of `size`, mounted through the first.
    func withRAID1(
        devices: Int, size: String = "1000M", _ body: (_ members: [String], _ mountpoint: String) throws -> Void
    ) throws {
        var disks: [LoopDisk] = []
        defer {
            // The mount first; then the kernel forgets the members, so a loop number
            // reused by a later test is not taken for a device of this filesystem.
            disks.first?.cleanup()
            _ = try? Shell.run(["btrfs", "device", "scan", "--forget"] + disks.map(\.device))
            for disk in disks.dropFirst() { disk.cleanup() }
        }
        for _ in 0..<devices { disks.append(try LoopDisk(size: size)) }
        let members = disks.map(\.device)
        try Shell.check(["mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1"] + members)
        Udevd.settle()
        try body(members, try disks[0].mount(members[0], name: "raid1"))
    }
}
