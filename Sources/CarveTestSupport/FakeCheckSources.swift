import CarveCore

/// Partition tables by disk path, for `carve check` tests.
public struct FakePartitionTableReader: PartitionTableReader {
    public var tables: [String: PartitionTable]
    public init(_ tables: [String: PartitionTable] = [:]) { self.tables = tables }
    public func table(ofDisk path: String) throws -> PartitionTable? { tables[path] }

    /// A GPT table as sfdisk makes it on a disk of `totalSectors` 512-byte sectors: usable
    /// from 2048 to the sector before the 33-sector backup, 1 MiB grain, partitions laid
    /// out from `(start, size)` pairs and the gaps between them computed.
    public static func gpt(totalSectors: UInt64, partitions: [(start: UInt64, size: UInt64)]) -> PartitionTable {
        let first: UInt64 = 2048, last = totalSectors - 34
        let entries = partitions.enumerated().map {
            PartitionEntry(
                number: $0.offset + 1, start: $0.element.start, size: $0.element.size,
                type: "0FC63DAF-8483-4772-8E79-3D69D8477DE4")
        }
        var gaps: [FreeGap] = []
        var position = first
        for entry in entries.sorted(by: { $0.start < $1.start }) {
            if entry.start > position { gaps.append(FreeGap(start: position, size: entry.start - position)) }
            position = max(position, entry.end + 1)
        }
        if last >= position { gaps.append(FreeGap(start: position, size: last - position + 1)) }
        return PartitionTable(
            label: .gpt, firstUsableLBA: first, lastUsableLBA: last, totalSectors: totalSectors,
            partitions: entries, freeGaps: gaps
        )
    }
}

/// Filesystem figures by device path; a path with no figures throws like a failing tool.
public struct FakeFilesystemSizer: FilesystemSizer {
    public var figures: [String: FilesystemFigures]
    public init(_ figures: [String: FilesystemFigures] = [:]) { self.figures = figures }
    public func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
        guard let found = figures[device.path] else { throw RuntimeError("no figures for \(device.path)") }
        return found
    }
}

/// A mount table from entries given by the test.
public struct FakeMountTable: MountTable {
    public var entries: [MountEntry]
    public init(_ entries: [MountEntry] = []) { self.entries = entries }
    public func mounts() throws -> [MountEntry] { entries }

    /// `device` mounted at `mountpoint` with `fsType`.
    public static func entry(_ device: BlockDevice, at mountpoint: String, fsType: String) -> MountEntry {
        MountEntry(
            mountID: 100, parentID: 1, number: device.number, root: "/", mountpoint: mountpoint, options: ["rw"],
            fsType: fsType, source: device.path, superOptions: ["rw"]
        )
    }
}

/// Snapshot schedules given by the test.
public struct FixedSnapshotSchedules: SnapshotScheduleReader {
    public var value: SnapshotSchedules
    public init(_ value: SnapshotSchedules) { self.value = value }
    public func schedules() -> SnapshotSchedules { value }
}
