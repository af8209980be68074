import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// A btrfs filesystem's space: logical bytes used by data and metadata from
/// BTRFS_IOC_SPACE_INFO (what `btrfs filesystem df` shows), and statfs's available
/// bytes. Quota exclusive bytes count logical extents too, so a measured change in
/// `used` is comparable with an estimate from quotas.
enum BtrfsSpace {
    static func usage(of mountpoint: String) throws -> SpaceUsage {
        let directory = try FileDescriptor(directory: mountpoint)
        let fd = directory.fd
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else {
            throw SystemCallError("cannot read free space of \(mountpoint)", call: "fstatvfs", errno: errno)
        }
        // What df shows: for btrfs the kernel's estimate of what a new data write can get
        // (free space in data chunks plus unallocated space, by the data profile's ratio,
        // less the global reserve) and the size by the same ratio.
        let available = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        let size = UInt64(info.f_blocks) * UInt64(info.f_frsize)
        return SpaceUsage(used: try usedBytes(fd, mountpoint), available: available, size: size)
    }

    /// Sums used_bytes of the data and metadata space infos, leaving out system
    /// chunks and the global reserve (a reservation, not used space).
    private static func usedBytes(_ fd: Int32, _ mountpoint: String) throws -> UInt64 {
        let counted = UInt64(BTRFS_BLOCK_GROUP_DATA) | UInt64(BTRFS_BLOCK_GROUP_METADATA)
        return try SpaceInfo.read(fd: fd, mountpoint: mountpoint)
            .filter { $0.flags & SpaceInfo.globalReserveFlag == 0 && $0.flags & counted != 0 }
            .reduce(0) { $0 + $1.used_bytes }
    }
}
