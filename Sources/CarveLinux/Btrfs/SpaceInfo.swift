import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// BTRFS_IOC_SPACE_INFO: one entry per block-group type and profile, as
/// `btrfs filesystem df` shows them, plus the global reserve.
enum SpaceInfo {
    /// BTRFS_SPACE_INFO_GLOBAL_RSV, a macro Swift does not import.
    static let globalReserveFlag = UInt64(1) << 49

    /// Every space entry of the filesystem open at `fd`. The ioctl is called twice:
    /// once for the count, once with room for that many (plus spares, as the count can
    /// grow between the calls).
    static func read(fd: Int32, mountpoint: String) throws -> [btrfs_ioctl_space_info] {
        let header = MemoryLayout<btrfs_ioctl_space_args>.size
        let slot = MemoryLayout<btrfs_ioctl_space_info>.stride
        var counts = btrfs_ioctl_space_args()
        try call(fd, &counts, mountpoint)
        let slots = Int(counts.total_spaces) + 4
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: header + slots * slot, alignment: 8)
        defer { buffer.deallocate() }
        // Zeroed, so the kernel never sees uninitialised bytes.
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: header + slots * slot)
        let args = buffer.assumingMemoryBound(to: btrfs_ioctl_space_args.self)
        args.pointee.space_slots = UInt64(slots)
        try call(fd, args, mountpoint)
        let spaces = (buffer + header).assumingMemoryBound(to: btrfs_ioctl_space_info.self)
        return (0..<min(Int(args.pointee.total_spaces), slots)).map { spaces[$0] }
    }

    private static func call(
        _ fd: Int32, _ args: UnsafeMutablePointer<btrfs_ioctl_space_args>, _ mountpoint: String
    ) throws {
        guard carve_ioctl_ptr(fd, carve_BTRFS_IOC_SPACE_INFO(), args) == 0 else {
            throw SystemCallError(
                "cannot read the space usage of \(mountpoint)", call: "ioctl(BTRFS_IOC_SPACE_INFO)", errno: errno)
        }
    }
}
