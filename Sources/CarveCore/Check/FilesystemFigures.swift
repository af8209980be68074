/// What carve found out about the size of one filesystem: how big it is, how much
/// it uses and how small it can be made.
public struct FilesystemFigures: Sendable, Hashable, Codable {
    public var fsType: String?
    /// The filesystem's own size (it may be smaller than its device); nil when unknown.
    public var size: UInt64?
    /// Bytes in use, when known.
    public var used: UInt64?
    /// The smallest size a shrink is expected to succeed at now, margin included;
    /// nil when carve cannot tell.
    public var minimum: UInt64?
    /// btrfs: the smallest size after a balance compacts the chunks; nil when no lower.
    public var minimumAfterBalance: UInt64?
    /// btrfs: the allocation the minima were computed from, so the planner can
    /// estimate the minimum after snapshots are deleted.
    public var btrfs: BtrfsAllocation?
    /// How the minimum was found, e.g. "resize2fs -P" or "device extents".
    public var source: String
    /// Why the minimum is unknown or only approximate, when it is.
    public var note: String?
    /// Why it is busy in a way a mount does not show (an active swap area), when it is.
    public var busy: String?
    /// The filesystem's block (ext's block size, btrfs's sector size), when carve read it:
    /// every size in the steps is a whole number of them.
    public var blockSize: UInt64?

    public init(
        fsType: String?, size: UInt64? = nil, used: UInt64? = nil, minimum: UInt64? = nil,
        minimumAfterBalance: UInt64? = nil, btrfs: BtrfsAllocation? = nil, source: String, note: String? = nil,
        busy: String? = nil, blockSize: UInt64? = nil
    ) {
        self.fsType = fsType; self.size = size; self.used = used; self.minimum = minimum
        self.minimumAfterBalance = minimumAfterBalance; self.btrfs = btrfs; self.source = source; self.note = note
        self.busy = busy; self.blockSize = blockSize
    }
}

/// Finds a filesystem's figures; CarveLinux reads them from the device, tests hand in numbers.
public protocol FilesystemSizer: Sendable {
    /// Figures for the filesystem on `device`, mounted at `mountpoint` when it is mounted.
    /// Figures it cannot find are nil with a note; it throws only when reading failed.
    func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures
}
