/// How a btrfs filesystem has allocated one of its devices, and the minimum sizes
/// that follow. CarveLinux reads it (BTRFS_IOC_TREE_SEARCH on the device and extent
/// trees, BTRFS_IOC_SPACE_INFO); the arithmetic lives here so it can be tested.
///
/// A shrink relocates every block group with a device extent beyond the new end: its
/// used bytes are rewritten into free space inside block groups of the same type
/// below the end, or into new chunks in unallocated space below it. `fits(size:)`
/// checks exactly that budget, plus a margin. `btrfs inspect-internal min-dev-size`
/// keeps chunks whole instead; measured on loop devices it is either far too high
/// (after deletions leave chunks half empty) or just below what works (a shrink above
/// it has failed with ENOSPC), so carve does not use it for the verdict.
public struct BtrfsAllocation: Sendable, Hashable, Codable {
    /// One chunk stripe on this device: `length` bytes at byte `start`, belonging to
    /// the block group that starts at logical address `chunk`.
    public struct DeviceExtent: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public var chunk: UInt64
        public init(start: UInt64, length: UInt64, chunk: UInt64) { self.start = start; self.length = length; self.chunk = chunk }
        public var end: UInt64 { start + length }
    }

    public enum Kind: String, Sendable, Hashable, Codable { case data, metadata, system }

    /// One block group (BLOCK_GROUP_ITEM): logical start and length, bytes used.
    public struct BlockGroup: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public var used: UInt64
        public var kind: Kind
        public init(start: UInt64, length: UInt64, used: UInt64, kind: Kind) {
            self.start = start; self.length = length; self.used = used; self.kind = kind
        }
    }

    public var deviceSize: UInt64
    public var extents: [DeviceExtent]
    public var blockGroups: [BlockGroup]
    /// The global reserve (BTRFS_IOC_SPACE_INFO), which metadata must keep room for.
    public var globalReserve: UInt64

    public init(deviceSize: UInt64, extents: [DeviceExtent], blockGroups: [BlockGroup], globalReserve: UInt64 = 0) {
        self.deviceSize = deviceSize
        self.extents = extents.sorted { $0.start < $1.start }
        self.blockGroups = blockGroups
        self.globalReserve = globalReserve
    }

    static let mebibyte: UInt64 = 1 << 20
    /// btrfs never allocates the first MiB of a device.
    static let reservedStart: UInt64 = mebibyte
    /// Room kept free when anything must move: a new system chunk (32 MiB at most) and
    /// metadata rewritten by the relocation itself. Calibrated with the validation
    /// harness in Tests/CarveLinuxTests/CheckValidationTests.swift.
    public static let relocationMargin: UInt64 = 64 << 20

    /// Bytes of this device held by chunks.
    public var allocated: UInt64 { extents.reduce(0) { $0 + $1.length } }

    /// Bytes in use per kind, logical.
    public func used(_ kind: Kind) -> UInt64 { blockGroups.filter { $0.kind == kind }.reduce(0) { $0 + $1.used } }

    /// Device bytes per logical byte for a block group: its stripes on this device (2 for DUP).
    public func copies(of group: BlockGroup) -> UInt64 { UInt64(max(1, extents.filter { $0.chunk == group.start }.count)) }

    /// True when a shrink to `size` bytes can relocate everything beyond it: the used
    /// bytes of every block group with an extent beyond `size` (each copy, in whole
    /// 16 MiB steps) fit in half the free room inside groups of the same kind that stay
    /// plus new chunks in the unallocated space below `size`, with the margin to spare.
    /// (Relocation splits data extents, so no single hole has to hold a whole group.)
    /// Only half the room inside groups counts: relocation failed with ENOSPC on a loop
    /// device where the whole room would have been just enough.
    public func fits(size: UInt64) -> Bool {
        guard let lastEnd = extents.map(\.end).max(), lastEnd > size else { return size >= Self.reservedStart }
        guard size > Self.reservedStart else { return false }
        let moving = Set(extents.filter { $0.end > size }.map(\.chunk))
        let step: UInt64 = 16 << 20
        var needed: UInt64 = 0, moved: UInt64 = 0, rooms: UInt64 = 0
        for kind in [Kind.data, .metadata, .system] {
            let groups = blockGroups.filter { $0.kind == kind }
            var toMove: UInt64 = 0
            for group in groups where moving.contains(group.start) {
                toMove += (group.used + step - 1) / step * step * copies(of: group)
            }
            let staying = groups.filter { !moving.contains($0.start) }
            let room = staying.reduce(0) { $0 + ($1.length - $1.used) * copies(of: $1) } / 2
            needed += toMove - min(toMove, room)
            moved += toMove
            rooms += room
        }
        let unallocated = holes(below: size).reduce(0, +)
        return needed <= unallocated && moved + Self.relocationMargin <= unallocated + rooms
    }

    /// Lengths of the unallocated runs between the reserved first MiB and `size`;
    /// extents that cross `size` stay occupied until their group has moved.
    func holes(below size: UInt64) -> [UInt64] {
        var holes: [UInt64] = []
        var position = Self.reservedStart
        for extent in extents where extent.start < size {
            if extent.start > position { holes.append(extent.start - position) }
            position = max(position, extent.end)
        }
        if size > position { holes.append(size - position) }
        return holes
    }

    /// The smallest size, in whole MiB, that `fits(size:)`: a shrink there relocates
    /// what lies beyond without running out of space.
    public var minimum: UInt64 {
        var low: UInt64 = 1, high = max(1, (max(deviceSize, extents.map(\.end).max() ?? 0) + Self.mebibyte - 1) / Self.mebibyte)
        guard fits(size: high * Self.mebibyte) else { return high * Self.mebibyte }
        while low < high {
            let middle = (low + high) / 2
            if fits(size: middle * Self.mebibyte) { high = middle } else { low = middle + 1 }
        }
        return low * Self.mebibyte
    }

    /// The size of a chunk a balance writes: the largest of that kind now, else the
    /// kernel's regular policy (a tenth of the device rounded up to 16 MiB, at most
    /// 1 GiB for data and 256 MiB otherwise).
    func chunkSize(_ kind: Kind) -> UInt64 {
        if let largest = blockGroups.filter({ $0.kind == kind }).map(\.length).max() { return largest }
        let step: UInt64 = 16 << 20
        let tenth = (deviceSize / 10 + step - 1) / step * step
        return min(kind == .data ? 1 << 30 : 256 << 20, max(step, tenth))
    }

    /// Device bytes per logical byte for a kind, from its existing groups (DUP metadata: 2).
    func copies(_ kind: Kind) -> UInt64 {
        blockGroups.filter { $0.kind == kind }.map(copies(of:)).max() ?? (kind == .data ? 1 : 2)
    }

    /// The minimum once a balance has packed every kind into as few chunks as its
    /// used bytes need, less `freedData` bytes of data (deleted snapshots), plus the margin.
    public func minimumAfterBalance(freeingData freedData: UInt64 = 0) -> UInt64 {
        var total = Self.reservedStart + Self.relocationMargin
        for kind in [Kind.data, .metadata, .system] {
            var used = used(kind)
            if kind == .data { used -= min(used, freedData) }
            if kind == .metadata { used += globalReserve }
            let chunks = max(1, (used + chunkSize(kind) - 1) / chunkSize(kind))
            // System chunks are never balanced smaller than they are.
            let bytes = kind == .system
                ? blockGroups.filter { $0.kind == .system }.reduce(0) { $0 + $1.length * copies(of: $1) }
                : chunks * chunkSize(kind) * copies(kind)
            total += bytes
        }
        return (total + Self.mebibyte - 1) / Self.mebibyte * Self.mebibyte
    }

    /// Data bytes in use.
    public var dataUsed: UInt64 { used(.data) }
}
