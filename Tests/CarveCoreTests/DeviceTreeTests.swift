import CarveCore
import CarveTestSupport
import Testing

@Suite struct DeviceTreeTests {
    let source = FakeDeviceSource()
        .disk(
            "sda", size: 100 * .gib,
            partitions: [
                FakePartition(size: 512 * .mib, .vfat(label: "EFI")),
                FakePartition(size: 90 * .gib, .crypto()),
            ]
        )
        .disk("sdb", size: 10 * .gib, table: nil)
        .disk("sdc", size: 10 * .gib, table: nil)
        .stacked("dm-0", kind: .crypt, on: ["sda2"], size: 90 * .gib, .ext4(label: "root"))
        .stacked("md0", kind: .raid, on: ["sdb", "sdc"], size: 10 * .gib, .xfs())
        .loop("loop0", size: .gib, .btrfs())

    /// Roots and children in lsblk's order, by MAJ:MIN: loop0 (7:0) before sda (8:0).
    @Test func disksCarryPartitionsAndHoldersSitUnderWhatTheySitOn() throws {
        let lines = DeviceTree.lines(DeviceTree.build(try source.devices()))
        #expect(
            lines.map { $0.prefix + $0.device.name } == [
                "loop0", "sda", "├─sda1", "└─sda2", "  └─dm-0", "sdb", "└─md0", "sdc", "└─md0",
            ])
    }

    @Test func drawsAVerticalBarUnderANonLastChild() throws {
        let nested = FakeDeviceSource()
            .disk("sda", size: .gib, partitions: [FakePartition(size: .mib, .crypto()), FakePartition(size: .mib)])
            .stacked("dm-0", kind: .crypt, on: ["sda1"], size: .mib)
        let lines = DeviceTree.lines(DeviceTree.build(try nested.devices()))
        #expect(lines.map { $0.prefix + $0.device.name } == ["sda", "├─sda1", "│ └─dm-0", "└─sda2"])
    }

    @Test func namedRootsShowOnlyThemWithWhatSitsOnThem() throws {
        let forest = DeviceTree.build(try source.devices(), roots: ["sda2", "loop0"])
        #expect(DeviceTree.lines(forest).map { $0.prefix + $0.device.name } == ["loop0", "sda2", "└─dm-0"])
    }

    /// As lsblk: a named partition is a root of its own, also when its disk is named.
    @Test func aNamedPartitionOfANamedDiskIsShownTwice() throws {
        let forest = DeviceTree.build(try source.devices(), roots: ["sda2", "sda", "sda2"])
        #expect(
            DeviceTree.lines(forest).map { $0.prefix + $0.device.name } == [
                "sda", "├─sda1", "└─sda2", "  └─dm-0", "sda2", "└─dm-0",
            ])
    }

    @Test func packedNumbersSortAsMakedevDoes() {
        let high = DeviceNumber(major: 7, minor: 300), next = DeviceNumber(major: 8, minor: 0)
        #expect(high.packed > next.packed, "a minor of 256 or more sorts after a higher major, as in lsblk")
        #expect(DeviceNumber(major: 7, minor: 1).packed < DeviceNumber(major: 7, minor: 2).packed)
        for number in [
            high, next, DeviceNumber(major: 259, minor: 70_000), DeviceNumber(major: 4095, minor: 255),
            DeviceNumber(major: 5000, minor: 1),
        ] {
            #expect(DeviceNumber(packed: number.packed) == number, "\(number) round-trips through dev_t")
        }
        #expect(DeviceNumber(major: 8, minor: 1).packed == 0x801, "glibc's makedev(8, 1)")
    }

    @Test func devicesUnderNamesAreTheSubtreesInListingOrder() throws {
        #expect(try source.devices(under: ["sda2", "sdc"]).map(\.name) == ["sda2", "sdc", "dm-0", "md0"])
    }

    @Test func flatListShowsAStackedDeviceOnce() throws {
        let names = DeviceTree.flattened(DeviceTree.build(try source.devices())).map(\.name)
        #expect(names == ["loop0", "sda", "sda1", "sda2", "dm-0", "sdb", "md0", "sdc"])
    }

    @Test func aHolderCycleDoesNotRecurseForever() {
        let a = BlockDevice(
            name: "dm-0", kind: .dm, number: DeviceNumber(major: 254, minor: 0), size: 1, holders: ["dm-1"])
        let b = BlockDevice(
            name: "dm-1", kind: .dm, number: DeviceNumber(major: 254, minor: 1), size: 1, holders: ["dm-0"])
        let lines = DeviceTree.lines(DeviceTree.build([a, b], roots: ["dm-0"]))
        #expect(lines.map(\.device.name) == ["dm-0", "dm-1"])
    }

    @Test func fakeUpdatesAndMountsByName() throws {
        let changed = source.updating("sdb") { $0.readOnly = true }.mounted("loop0", at: "/mnt/a", "/mnt/b")
        #expect(changed["sdb"].readOnly && !source["sdb"].readOnly)
        #expect(changed["loop0"].mountpoints == ["/mnt/a", "/mnt/b"])
    }

    @Test func partitionsOfADiskWhoseNameEndsInADigitGetAP() throws {
        let nvme = FakeDeviceSource().disk("nvme0n1", size: .gib, partitions: [FakePartition(size: .mib)])
        #expect(try nvme.devices().map(\.name) == ["nvme0n1", "nvme0n1p1"])
        #expect(try nvme.device(at: "/dev/nvme0n1p1").parent == "nvme0n1")
    }
}
