/// The kind of partition table on a disk, as libfdisk names it (`fdisk_label_get_name`).
public enum PartitionTableLabel: String, Sendable, Hashable, Codable, CaseIterable {
    case gpt, dos, sun, sgi, bsd
}

/// One partition entry, in sectors of the table's sector size.
public struct PartitionEntry: Sendable, Hashable, Codable {
    /// The partition number as the kernel names it (`sda3` is 3).
    public var number: Int
    /// First sector.
    public var start: UInt64
    /// Length in sectors.
    public var size: UInt64
    /// The type: a GPT type GUID or a DOS type code such as "83".
    public var type: String
    /// The GPT partition name, nil for DOS.
    public var name: String?

    public init(number: Int, start: UInt64, size: UInt64, type: String, name: String? = nil) {
        self.number = number; self.start = start; self.size = size; self.type = type; self.name = name
    }

    /// Last sector (inclusive), as fdisk prints "End".
    public var end: UInt64 { start + size - 1 }
}

/// A run of sectors no partition uses, within the usable area.
public struct FreeGap: Sendable, Hashable, Codable {
    public var start: UInt64
    /// Length in sectors.
    public var size: UInt64
    public init(start: UInt64, size: UInt64) { self.start = start; self.size = size }
    public var end: UInt64 { start + size - 1 }
}

/// A disk's partition table: what a repartition must respect.
public struct PartitionTable: Sendable, Hashable, Codable {
    public var label: PartitionTableLabel
    /// Logical sector size in bytes; every position here counts these sectors.
    public var sectorSize: UInt64
    /// Alignment grain in bytes (1 MiB unless the device says otherwise), as fdisk aligns.
    public var grain: UInt64
    /// First sector a partition may use (2048 on a fresh GPT or DOS table).
    public var firstUsableLBA: UInt64
    /// Last sector a partition may use: before GPT's backup table at the end.
    public var lastUsableLBA: UInt64
    /// The disk's length in sectors.
    public var totalSectors: UInt64
    /// Partitions in on-disk order (by start sector).
    public var partitions: [PartitionEntry]
    /// Free gaps as libfdisk reports them (`fdisk_get_freespaces`).
    public var freeGaps: [FreeGap]

    public init(
        label: PartitionTableLabel, sectorSize: UInt64 = 512, grain: UInt64 = 1 << 20,
        firstUsableLBA: UInt64, lastUsableLBA: UInt64, totalSectors: UInt64,
        partitions: [PartitionEntry], freeGaps: [FreeGap]
    ) {
        self.label = label; self.sectorSize = sectorSize; self.grain = grain
        self.firstUsableLBA = firstUsableLBA; self.lastUsableLBA = lastUsableLBA
        self.totalSectors = totalSectors
        self.partitions = partitions.sorted { $0.start < $1.start }
        self.freeGaps = freeGaps.sorted { $0.start < $1.start }
    }

    /// The grain in sectors (at least one).
    public var grainSectors: UInt64 { max(1, grain / max(1, sectorSize)) }

    public func partition(number: Int) -> PartitionEntry? { partitions.first { $0.number == number } }

    /// The partition that starts next on the disk after `entry`, if any.
    public func partition(following entry: PartitionEntry) -> PartitionEntry? {
        partitions.first { $0.start > entry.start }
    }

    /// `lba` moved up to the next grain boundary, as fdisk places a partition's start.
    public func alignUp(_ lba: UInt64) -> UInt64 {
        let grain = grainSectors
        return (lba + grain - 1) / grain * grain
    }

    /// The last sector free of partitions after `entry`: before the next partition,
    /// else the last usable sector.
    public func lastFreeSector(after entry: PartitionEntry) -> UInt64 {
        partition(following: entry).map { $0.start - 1 } ?? lastUsableLBA
    }

    /// Bytes of `sectors`.
    public func bytes(_ sectors: UInt64) -> UInt64 { sectors * sectorSize }

    /// Whole sectors needed to hold `bytes`.
    public func sectors(holding bytes: UInt64) -> UInt64 { (bytes + sectorSize - 1) / sectorSize }

    /// An aligned place for `bytes` inside the sectors `first...last`: the start aligned
    /// up to the grain, the length rounded up to whole grains so the end falls just
    /// before a grain boundary. Nil when it does not fit.
    public func alignedPlace(bytes: UInt64, from first: UInt64, through last: UInt64) -> SectorRange? {
        let start = alignUp(max(first, firstUsableLBA))
        let length = (sectors(holding: bytes) + grainSectors - 1) / grainSectors * grainSectors
        guard length > 0, start <= last, last - start + 1 >= length, start + length - 1 <= lastUsableLBA
        else { return nil }
        return SectorRange(start: start, end: start + length - 1, sectorSize: sectorSize)
    }
}

/// A run of sectors with its byte equivalents, as the check report gives positions.
public struct SectorRange: Sendable, Hashable, Codable {
    public var start: UInt64
    /// Last sector, inclusive.
    public var end: UInt64
    public var sectorSize: UInt64
    public init(start: UInt64, end: UInt64, sectorSize: UInt64) {
        self.start = start; self.end = end; self.sectorSize = sectorSize
    }
    public var sectors: UInt64 { end - start + 1 }
    public var bytes: UInt64 { sectors * sectorSize }
}

/// Reads a disk's partition table, read-only; tests hand in a fake.
public protocol PartitionTableReader: Sendable {
    /// The partition table of the disk at `path`, or nil when it has none.
    func table(ofDisk path: String) throws -> PartitionTable?
}
