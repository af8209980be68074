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
        let fd = open(mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("cannot open \(mountpoint)", call: "open", errno: errno) }
        defer { close(fd) }
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else {
            throw SystemCallError("cannot read free space of \(mountpoint)", call: "fstatvfs", errno: errno)
        }
        let available = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        return SpaceUsage(used: try usedBytes(fd, mountpoint), available: available)
    }

    /// Sums used_bytes of the data and metadata space infos, leaving out system
    /// chunks and the global reserve (a reservation, not used space).
    private static func usedBytes(_ fd: Int32, _ mountpoint: String) throws -> UInt64 {
        let header = MemoryLayout<btrfs_ioctl_space_args>.size
        let slot = MemoryLayout<btrfs_ioctl_space_info>.stride
        var counts = btrfs_ioctl_space_args()
        try ioctl(fd, &counts, mountpoint)
        // The count can grow between the two calls; a few spare slots are enough.
        let slots = Int(counts.total_spaces) + 4
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: header + slots * slot, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: header + slots * slot)
        let args = buffer.assumingMemoryBound(to: btrfs_ioctl_space_args.self)
        args.pointee.space_slots = UInt64(slots)
        try ioctl(fd, args, mountpoint)
        let spaces = (buffer + header).assumingMemoryBound(to: btrfs_ioctl_space_info.self)
        var used: UInt64 = 0
        let counted = UInt64(BTRFS_BLOCK_GROUP_DATA) | UInt64(BTRFS_BLOCK_GROUP_METADATA)
        let reserve = UInt64(1) << 49  // BTRFS_SPACE_INFO_GLOBAL_RSV
        for index in 0..<min(Int(args.pointee.total_spaces), slots) {
            let space = spaces[index]
            if space.flags & reserve == 0 && space.flags & counted != 0 { used += space.used_bytes }
        }
        return used
    }

    private static func ioctl(_ fd: Int32, _ args: UnsafeMutablePointer<btrfs_ioctl_space_args>, _ mountpoint: String) throws {
        guard carve_ioctl_ptr(fd, carve_BTRFS_IOC_SPACE_INFO(), args) == 0 else {
            throw SystemCallError("cannot read space usage of \(mountpoint)", call: "ioctl(BTRFS_IOC_SPACE_INFO)", errno: errno)
        }
    }
}
