/// The space of a mounted filesystem as statvfs(3) gives it: lsblk's FSSIZE, FSUSED,
/// FSAVAIL and FSUSE% columns, computed as lsblk computes them.
public struct FilesystemUsage: Sendable, Hashable, Codable {
    /// statvfs `f_frsize`: the unit of the block counts.
    public var fragmentSize: UInt64
    /// statvfs `f_blocks`, `f_bfree` (free to root) and `f_bavail` (free to users).
    public var blocks: UInt64
    public var freeBlocks: UInt64
    public var availableBlocks: UInt64

    public init(fragmentSize: UInt64, blocks: UInt64, freeBlocks: UInt64, availableBlocks: UInt64) {
        self.fragmentSize = fragmentSize; self.blocks = blocks
        self.freeBlocks = freeBlocks; self.availableBlocks = availableBlocks
    }

    public var size: UInt64 { fragmentSize &* blocks }
    /// Blocks not free to root: what df calls used.
    public var used: UInt64 { fragmentSize &* (blocks &- freeBlocks) }
    public var available: UInt64 { fragmentSize &* availableBlocks }

    /// "12%", rounded as printf's "%.0f" rounds (ties to even); "-" for a filesystem of
    /// no blocks, as lsblk prints it.
    public var usePercent: String {
        guard blocks > 0 else { return "-" }
        let percent = (Double(blocks - min(freeBlocks, blocks)) / Double(blocks) * 100).rounded(.toNearestOrEven)
        return "\(Int(percent))%"
    }
}

/// The space of mounted filesystems, by mountpoint (statvfs on Linux; a fake in tests).
public protocol FilesystemSpaceSource: Sendable {
    /// nil when the mountpoint cannot be asked (gone, no permission): lsblk then shows nothing.
    func usage(at mountpoint: String) -> FilesystemUsage?
}

extension BlockDevice {
    /// The mountpoint lsblk asks for FSSIZE and friends, and shows as MOUNTPOINT: the
    /// latest mount, unless it mounts a subvolume or subdirectory and a mount of the
    /// filesystem's root exists. nil when not mounted; swap has no filesystem to ask.
    public var spaceMountpoint: String? {
        guard let primaryMountpoint, primaryMountpoint != SwapList.mountpoint else { return nil }
        return primaryMountpoint
    }
}
