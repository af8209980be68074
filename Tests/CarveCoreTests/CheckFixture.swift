import CarveCore
import CarveTestSupport
import Foundation

/// A 10 GiB GPT disk `sda`: sda1 4 GiB, sda2 2 GiB, about 4 GiB free at the end;
/// filesystems, figures, mounts and snapshots set per test.
struct CheckFixture {
    static let diskSectors: UInt64 = 20_971_520
    var devices: FakeDeviceSource
    var tables: FakePartitionTableReader
    var sizer = FakeFilesystemSizer()
    var mounts = FakeMountTable()
    var snapshots = FakeSnapshotBackend()

    init(first: FakeFilesystem? = .btrfs(), second: FakeFilesystem? = .ext4(), secondSize: UInt64 = 2 * .gib) {
        devices = FakeDeviceSource().disk(
            "sda", size: 10 * .gib,
            partitions: [
                FakePartition(size: 4 * .gib, first), FakePartition(size: secondSize, second),
            ])
        tables = FakePartitionTableReader([
            "/dev/sda": FakePartitionTableReader.gpt(
                totalSectors: Self.diskSectors,
                partitions: [(2048, 4 * .gib / 512), (2048 + 4 * .gib / 512, secondSize / 512)]
            )
        ])
    }

    func run(_ path: String, _ operation: CheckOperation) throws -> CheckReport {
        try Check.run(
            device: path, operation: operation,
            in: CheckEnvironment(
                devices: devices, tables: tables, sizer: sizer, mounts: mounts, snapshots: snapshots
            ))
    }

    /// Records `device` as mounted at `mountpoint`.
    mutating func mount(_ name: String, at mountpoint: String) {
        let device = devices[name]
        mounts.entries.append(FakeMountTable.entry(device, at: mountpoint, fsType: device.properties.fsType ?? "none"))
    }

    /// Figures with a plain minimum, e.g. for ext4 from resize2fs -P.
    mutating func figures(_ name: String, _ type: String, minimum: UInt64?, note: String? = nil, busy: String? = nil) {
        sizer.figures["/dev/\(name)"] = FilesystemFigures(
            fsType: type, minimum: minimum, source: "test", note: note, busy: busy)
    }

    /// btrfs figures from an allocation, as the Linux sizer builds them.
    mutating func btrfs(_ name: String, _ allocation: BtrfsAllocation) {
        let afterBalance = allocation.minimumAfterBalance()
        sizer.figures["/dev/\(name)"] = FilesystemFigures(
            fsType: "btrfs", size: allocation.deviceSize, minimum: allocation.minimum,
            minimumAfterBalance: afterBalance < allocation.minimum ? afterBalance : nil, btrfs: allocation,
            source: "test"
        )
    }

    /// Snapshots of the filesystem mounted at /mnt, oldest first by `daysAgo`.
    mutating func snapshots(_ list: [Volume], quotaProblem: String? = nil) {
        let source = SnapshotFixtures.subvolume(256, path: "home")
        snapshots = FakeSnapshotBackend([
            FakeSnapshotBackend.StoredFilesystem(
                filesystem: SnapshotFixtures.filesystem(), subvolumes: [source] + list, quotaProblem: quotaProblem
            )
        ])
    }
}

extension BtrfsAllocation {
    /// Chunks laid out back to back from 1 MiB: data groups of `dataChunk` bytes with
    /// the given used bytes, one DUP metadata group, one DUP system group.
    static func laidOut(
        deviceSize: UInt64, dataChunk: UInt64 = 512 * .mib, dataUsed: [UInt64],
        metadataChunk: UInt64 = 256 * .mib, metadataUsed: UInt64 = 8 * .mib, holeAfterFirst: UInt64 = 0
    ) -> BtrfsAllocation {
        var extents: [DeviceExtent] = [], groups: [BlockGroup] = []
        var position: UInt64 = .mib, logical: UInt64 = 1 << 30
        func add(_ kind: Kind, length: UInt64, used: UInt64, copies: Int) {
            groups.append(BlockGroup(start: logical, length: length, used: used, kind: kind))
            for _ in 0..<copies {
                extents.append(DeviceExtent(start: position, length: length, chunk: logical))
                position += length
            }
            logical += length
        }
        add(.system, length: 8 * .mib, used: 16 * .kib, copies: 2)
        add(.metadata, length: metadataChunk, used: metadataUsed, copies: 2)
        for (index, used) in dataUsed.enumerated() {
            add(.data, length: dataChunk, used: used, copies: 1)
            if index == 0 { position += holeAfterFirst }
        }
        return BtrfsAllocation(deviceSize: deviceSize, extents: extents, blockGroups: groups, globalReserve: 4 * .mib)
    }
}
