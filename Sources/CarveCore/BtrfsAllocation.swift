/// How a btrfs filesystem has allocated one of its devices, and the minimum sizes
/// that follow from it. Read by CarveLinux (BTRFS_IOC_TREE_SEARCH on the device
/// tree, BTRFS_IOC_SPACE_INFO); the arithmetic lives here so it can be tested.
///
/// Two estimates, both kept conservative because `btrfs inspect-internal
/// min-dev-size` has been seen to fail with ENOSPC above its own figure:
/// - from the device extents, the way min-dev-size reasons: every allocated chunk
///   kept whole, chunks beyond the new end moved into holes below it, plus scratch
///   space for the largest moved chunk and a new system chunk;
/// - from the bytes in use: a shrink relocates the chunks beyond the new end and
///   repacks their extents, so data needs only its used bytes in whole chunks.
///   Measured on loop devices (Tests/CarveLinuxTests/CheckValidationTests), this is
///   what `btrfs filesystem resize` reaches, and the margin below covers the rest.
public struct BtrfsAllocation: Sendable, Hashable, Codable {
    /// One chunk stripe on this device: `length` bytes at byte `start`.
    public struct DeviceExtent: Sendable, Hashable, Codable {
        public var start: UInt64
        public var length: UInt64
        public init(start: UInt64, length: UInt64) { self.start = start; self.length = length }
        public var end: UInt64 { start + length }
    }

    /// One line of BTRFS_IOC_SPACE_INFO: a block-group type and profile.
    public struct Space: Sendable, Hashable, Codable {
        public enum Kind: String, Sendable, Hashable, Codable { case data, metadata, system, globalReserve = "global reserve" }
        public var kind: Kind
        /// Device bytes per logical byte: 2 for DUP, RAID1; 1 for single.
        public var copies: UInt64
        /// Logical bytes allocated to chunks of this type.
        public var total: UInt64
        /// Logical bytes in use.
        public var used: UInt64
        public init(kind: Kind, copies: UInt64, total: UInt64, used: UInt64) {
            self.kind = kind; self.copies = copies; self.total = total; self.used = used
        }
    }

    public var deviceSize: UInt64
    /// This device's extents, by start.
    public var extents: [DeviceExtent]
    public var spaces: [Space]

    public init(deviceSize: UInt64, extents: [DeviceExtent], spaces: [Space]) {
        self.deviceSize = deviceSize
        self.extents = extents.sorted { $0.start < $1.start }
        self.spaces = spaces
    }

    static let mebibyte: UInt64 = 1 << 20
    /// btrfs never allocates the first MiB of a device.
    static let reservedStart: UInt64 = mebibyte
    /// Superblock copies at 64 KiB, 64 MiB and 256 GiB.
    static let superblockMirrors: [UInt64] = [64 << 10, 64 << 20, 256 << 30]
    /// A new system chunk may be needed during relocation; 32 MiB at most.
    static let systemChunkReserve: UInt64 = 32 << 20
    /// Room for the relocation's own writes (metadata COW, the global reserve, a
    /// partly filled data chunk) beyond the repacked data; calibrated on loop devices.
    public static let relocationMargin: UInt64 = 64 << 20

    /// Bytes of this device held by chunks.
    public var allocated: UInt64 { extents.reduce(0) { $0 + $1.length } }

    func space(_ kind: Space.Kind) -> Space? {
        let matching = spaces.filter { $0.kind == kind }
        guard let first = matching.first else { return nil }
        return matching.dropFirst().reduce(first) {
            Space(kind: kind, copies: max($0.copies, $1.copies), total: $0.total + $1.total, used: $0.used + $1.used)
        }
    }

    /// The minimum with every chunk kept whole, as `btrfs inspect-internal min-dev-size`
    /// computes it: all extents, plus, when chunks beyond that size must move, the largest
    /// moved chunk as scratch space and a system chunk; a hole holding a superblock
    /// mirror counts the moved chunk twice.
    public var minimumKeepingChunks: UInt64 {
        var minimum = Self.reservedStart + allocated
        var holes: [(start: UInt64, end: UInt64)] = []
        var lastEnd: UInt64?
        for extent in extents {
            if let lastEnd, extent.start > lastEnd { holes.append((lastEnd, extent.start - 1)) }
            lastEnd = extent.end
        }
        var scratch: UInt64 = 0
        for extent in extents.reversed() {
            guard extent.end > minimum else { break }
            guard let index = holes.firstIndex(where: { $0.end - $0.start + 1 >= extent.length }) else {
                minimum = extent.end
                break
            }
            let hole = holes[index]
            if Self.superblockMirrors.contains(where: { $0 >= hole.start && $0 <= hole.start + extent.length - 1 }) {
                minimum += extent.length
            }
            if hole.end - hole.start + 1 > extent.length {
                holes[index].start += extent.length
            } else {
                holes.remove(at: index)
            }
            scratch = max(scratch, extent.length)
        }
        return scratch > 0 ? minimum + scratch + Self.systemChunkReserve : minimum
    }

    /// The size of a new data chunk on this device: a tenth of the device rounded up to
    /// 16 MiB, at most 1 GiB (the kernel's regular chunk policy).
    var dataChunkSize: UInt64 {
        let tenth = (deviceSize / 10 + (16 << 20) - 1) / (16 << 20) * (16 << 20)
        return min(1 << 30, max(16 << 20, tenth))
    }

    static func roundUp(_ value: UInt64, to step: UInt64) -> UInt64 { step == 0 ? value : (value + step - 1) / step * step }

    /// The minimum after the shrink repacks data: used data (less `freedData`) in whole
    /// data chunks, metadata and system as allocated now, the reserved first MiB, a
    /// possible system chunk and the relocation margin.
    public func minimumRepackingData(freeingData freedData: UInt64 = 0) -> UInt64 {
        let data = space(.data)
        let dataUsed = (data?.used ?? 0) - min(data?.used ?? 0, freedData)
        let dataBytes = Self.roundUp(dataUsed, to: dataChunkSize) * (data?.copies ?? 1)
        return Self.reservedStart + dataBytes + deviceBytes(.metadata) + deviceBytes(.system)
            + Self.systemChunkReserve + Self.relocationMargin
    }

    /// Device bytes the chunks of `kind` hold now.
    func deviceBytes(_ kind: Space.Kind) -> UInt64 {
        guard let space = space(kind) else { return 0 }
        return space.total * space.copies
    }

    /// The minimum now: the smaller of the two estimates, never below what is in use.
    public var minimum: UInt64 { min(minimumKeepingChunks, minimumRepackingData()) }

    /// The minimum once a balance has rewritten metadata into as few chunks as its
    /// used bytes and the global reserve need; nil when that is not lower.
    public var minimumAfterBalance: UInt64? {
        guard let metadata = space(.metadata) else { return nil }
        let reserve = space(.globalReserve)?.total ?? 0
        let chunk = min(256 << 20, dataChunkSize)
        let needed = Self.roundUp(metadata.used + reserve, to: chunk) * metadata.copies
        let current = metadata.total * metadata.copies
        guard needed < current else { return nil }
        let estimate = minimumRepackingData() - (current - needed)
        return estimate < minimum ? estimate : nil
    }

    /// Data bytes in use.
    public var dataUsed: UInt64 { space(.data)?.used ?? 0 }
}
