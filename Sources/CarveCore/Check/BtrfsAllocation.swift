/// How a btrfs filesystem has allocated one of its devices, and the minimum sizes
/// that follow. CarveLinux reads it (BTRFS_IOC_TREE_SEARCH on the device and extent
/// trees, BTRFS_IOC_SPACE_INFO); the arithmetic lives here so it can be tested.
///
/// A shrink relocates every block group with a device extent beyond the new end;
/// `fits(size:)` (BtrfsRelocation.swift) simulates that extent by extent. `btrfs
/// inspect-internal min-dev-size` keeps chunks whole instead; measured on loop devices
/// it is either far too high (after deletions leave chunks half empty) or just below
/// what works (a shrink above it has failed with ENOSPC), so carve does not use it.
public struct BtrfsAllocation: Sendable, Hashable, Codable {
    /// One chunk stripe on this device: `length` bytes at byte `start`, belonging to
    /// the block group that starts at logical address `chunk`.
    public struct DeviceExtent: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public var chunk: UInt64
        public init(start: UInt64, length: UInt64, chunk: UInt64) {
            self.start = start; self.length = length; self.chunk = chunk
        }
        public var end: UInt64 { start + length }
    }

    public enum Kind: String, Sendable, Hashable, Codable { case data, metadata, system }

    /// How a block group lays its stripes over the devices (the profile bits of its flags).
    public enum Profile: String, Sendable, Hashable, Codable {
        case single, dup, raid0, raid1, raid1c3, raid1c4, raid10, raid5, raid6

        /// Copies of every chunk, each on its own device (raid1: 2); nil for the striped
        /// profiles, whose stripes are parts of a chunk, not copies.
        public var mirrors: Int? {
            switch self {
            case .single, .dup: 1
            case .raid1: 2
            case .raid1c3: 3
            case .raid1c4: 4
            case .raid0, .raid10, .raid5, .raid6: nil
            }
        }
    }

    /// One block group (BLOCK_GROUP_ITEM): logical start and length, bytes used.
    public struct BlockGroup: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public var used: UInt64
        public var kind: Kind
        public var profile: Profile
        public init(start: UInt64, length: UInt64, used: UInt64, kind: Kind, profile: Profile = .single) {
            self.start = start; self.length = length; self.used = used; self.kind = kind; self.profile = profile
        }
    }

    /// Another device of a multi-device filesystem.
    public struct Member: Sendable, Hashable, Codable {
        public var devid: UInt64
        public var size: UInt64
        /// Bytes of it held by chunks.
        public var allocated: UInt64
        public init(devid: UInt64, size: UInt64, allocated: UInt64) {
            self.devid = devid; self.size = size; self.allocated = allocated
        }
        public var unallocated: UInt64 { size - min(size, allocated) }
    }

    /// One data extent (EXTENT_ITEM in a data block group): logical start and length.
    public struct DataExtent: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public init(start: UInt64, length: UInt64) { self.start = start; self.length = length }
    }

    public var deviceSize: UInt64
    public var extents: [DeviceExtent]
    public var blockGroups: [BlockGroup]
    /// The data extents, by start; empty when not read (each data group then counts as
    /// holding one extent of its used bytes at its start).
    public var dataExtents: [DataExtent]
    /// The global reserve (BTRFS_IOC_SPACE_INFO), which metadata must keep room for.
    public var globalReserve: UInt64
    /// This device's btrfs device id (`btrfs filesystem resize DEVID:SIZE` names it).
    public var devid: UInt64
    /// The filesystem's other devices; empty on a single device.
    public var otherMembers: [Member]
    /// The other devices' extents by devid: where each chunk's other stripes are.
    public var memberExtents: [UInt64: [DeviceExtent]]

    public init(
        deviceSize: UInt64, extents: [DeviceExtent], blockGroups: [BlockGroup], dataExtents: [DataExtent] = [],
        globalReserve: UInt64 = 0, devid: UInt64 = 1, otherMembers: [Member] = [],
        memberExtents: [UInt64: [DeviceExtent]] = [:]
    ) {
        self.devid = devid; self.otherMembers = otherMembers; self.memberExtents = memberExtents
        self.deviceSize = deviceSize
        self.extents = extents.sorted { $0.start < $1.start }
        self.blockGroups = blockGroups.sorted { $0.start < $1.start }
        self.dataExtents = dataExtents.sorted { $0.start < $1.start }
        self.globalReserve = globalReserve
    }

    static let mebibyte: UInt64 = 1 << 20
    /// btrfs never allocates the first MiB of a device.
    static let reservedStart: UInt64 = mebibyte
    /// The kernel refuses to resize a btrfs device below 256 MiB (EINVAL).
    public static let smallestDevice: UInt64 = 256 << 20
    /// Room kept free when anything must move: a new system chunk (32 MiB at most) and
    /// metadata rewritten by the relocation itself. Calibrated with the validation
    /// harness in Tests/CarveLinuxTests/CheckValidationTests.swift.
    public static let relocationMargin: UInt64 = 64 << 20

    /// The margin plus the global reserve, which the kernel keeps for itself.
    var margin: UInt64 { Self.relocationMargin + globalReserve }

    /// Bytes of this device held by chunks.
    public var allocated: UInt64 { extents.reduce(0) { $0 + $1.length } }

    /// Bytes in use per kind, logical.
    public func used(_ kind: Kind) -> UInt64 { blockGroups.filter { $0.kind == kind }.reduce(0) { $0 + $1.used } }

    /// Device bytes per logical byte for a block group: its stripes on this device (2 for DUP).
    public func copies(of group: BlockGroup) -> UInt64 {
        UInt64(max(1, extents.filter { $0.chunk == group.start }.count))
    }

    /// The smallest size, in whole MiB, that `fits(size:)`: a shrink there relocates
    /// what lies beyond without running out of space.
    public var minimum: UInt64 {
        var low: UInt64 = 1,
            high = max(1, (max(deviceSize, extents.map(\.end).max() ?? 0) + Self.mebibyte - 1) / Self.mebibyte)
        guard fits(size: high * Self.mebibyte) else { return high * Self.mebibyte }
        while low < high {
            let middle = (low + high) / 2
            if fits(size: middle * Self.mebibyte) { high = middle } else { low = middle + 1 }
        }
        return low * Self.mebibyte
    }

    /// The size of the data chunks a balance writes: the kernel's regular policy (a
    /// tenth of the device rounded up to 16 MiB, at most 1 GiB), or the largest data
    /// chunk now when that is bigger.
    var dataChunkSize: UInt64 {
        let step: UInt64 = 16 << 20
        let policy = min(1 << 30, max(step, (deviceSize / 10 + step - 1) / step * step))
        return max(policy, blockGroups.filter { $0.kind == .data }.map(\.length).max() ?? 0)
    }

    /// Device bytes the groups of `kind` hold now.
    func deviceBytes(_ kind: Kind) -> UInt64 {
        blockGroups.filter { $0.kind == kind }.reduce(0) { $0 + $1.length * copies(of: $1) }
    }

    /// The minimum once `btrfs balance start -dusage=100` has packed the data, less
    /// `freedData` bytes (deleted snapshots), into as few whole data chunks as it needs;
    /// metadata and system chunks as they are now (that balance leaves them), the
    /// reserved first MiB and the margin.
    public func minimumAfterBalance(freeingData freedData: UInt64 = 0) -> UInt64 {
        let data = used(.data) - min(used(.data), freedData)
        let chunks = max(1, (data + dataChunkSize - 1) / dataChunkSize)
        let dataCopies = blockGroups.filter { $0.kind == .data }.map(copies(of:)).max() ?? 1
        let total =
            Self.reservedStart + margin + chunks * dataChunkSize * dataCopies
            + deviceBytes(.metadata) + deviceBytes(.system)
        return max(Self.smallestDevice, (total + Self.mebibyte - 1) / Self.mebibyte * Self.mebibyte)
    }
}
