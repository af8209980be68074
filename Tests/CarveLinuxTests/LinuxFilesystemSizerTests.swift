import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The sizer's figures on real filesystems, compared with the reference tools on the same device.
@Suite(.serialized, .integration())
struct LinuxFilesystemSizerTests {
    static func device(_ path: String) throws -> BlockDevice {
        Udevd.settle([path])
        return try LinuxDeviceSource().device(at: path)
    }

    /// `btrfs filesystem usage -b`'s "Device allocated" and `btrfs filesystem df -b`'s used data.
    @Test func btrfsAllocationMatchesBtrfsFilesystemUsage() throws {
        try withLoopDisk(size: "800M", sfdisk: "label: gpt\nsize=700MiB, type=L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.btrfs", "-q", "-f", part])
            let mountpoint = try disk.mount(part)
            try CheckHarness.writeFiles(mountpoint, count: 12, mebibytes: 10)
            try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
            let figures = try LinuxFilesystemSizer().figures(of: try Self.device(part), mountpoint: mountpoint)
            let allocation = try #require(figures.btrfs)

            let usage = try Shell.check(["btrfs", "filesystem", "usage", "-b", mountpoint])
            let allocated = usage.split(separator: "\n").first { $0.contains("Device allocated:") }
                .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).last }.flatMap { UInt64($0) }
            #expect(allocation.allocated == allocated)
            let size = usage.split(separator: "\n").first { $0.contains("Device size:") }
                .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).last }.flatMap { UInt64($0) }
            #expect(allocation.deviceSize == size)

            let df = try Shell.check(["btrfs", "filesystem", "df", "-b", mountpoint])
            let dataUsed = df.split(separator: "\n").first { $0.hasPrefix("Data") }
                .flatMap { $0.split(separator: "=").last }.flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            #expect(allocation.used(.data) == dataUsed)
            #expect(allocation.dataExtents.reduce(0) { $0 + $1.length } == dataUsed)
            #expect(figures.minimum == allocation.minimum)
        }
    }

    @Test func unmountedExt4MinimumIsResize2fsTimesTheBlockSize() throws {
        try withLoopDisk(size: "400M", sfdisk: "label: gpt\nsize=300MiB, type=L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.ext4", "-q", "-F", part])
            let figures = try LinuxFilesystemSizer().figures(of: try Self.device(part), mountpoint: nil)
            let blocks = try ResizeToolOutput.resize2fsMinimumBlocks(try Shell.check(["resize2fs", "-P", part]))
            let blockSize = try ResizeToolOutput.dumpe2fsField(
                "Block size", in: try Shell.check(["dumpe2fs", "-h", part]))
            #expect(figures.minimum == (blocks * blockSize + (1 << 20) - 1) / (1 << 20) * (1 << 20))
            #expect(figures.size == 300 << 20)
            #expect(figures.source == "resize2fs -P")
        }
    }

    @Test func mountedExt4GivesUsedBytesAndNoMinimum() throws {
        try withLoopDisk(size: "400M", sfdisk: "label: gpt\nsize=300MiB, type=L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.ext4", "-q", "-F", part])
            let mountpoint = try disk.mount(part)
            let figures = try LinuxFilesystemSizer().figures(of: try Self.device(part), mountpoint: mountpoint)
            #expect(figures.minimum == nil)
            #expect((figures.used ?? 0) > 0)
            #expect(figures.note?.contains("unmounted") == true)
        }
    }

    @Test func activeSwapIsBusyUntilSwapoff() throws {
        try withLoopDisk(size: "200M", sfdisk: "label: gpt\nsize=100MiB, type=S\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkswap", part])
            try Shell.check(["swapon", part])
            defer { _ = try? Shell.run(["swapoff", part]) }
            let busy = try CheckHarness.check(part, .shrinkBy(50 << 20))
            #expect(busy.blockers.map(\.kind) == [.inUse])
            #expect(busy.remedies.map(\.command) == ["swapoff \(part)"])
            try Shell.check(["swapoff", part])
            #expect(try CheckHarness.check(part, .shrinkBy(50 << 20)).verdict == .fits)
        }
    }
}
