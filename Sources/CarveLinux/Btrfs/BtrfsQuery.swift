import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The facts about a whole btrfs filesystem that several readers need, each read in
/// one place: its BTRFS_IOC_FS_INFO and its default subvolume.
enum BtrfsQuery {
    /// BTRFS_IOC_FS_INFO (fsid, node size, device count) of the filesystem holding the
    /// open directory `fd`; `path` names it in the error.
    static func filesystemInfo(_ fd: Int32, path: String) throws(SystemCallError) -> btrfs_ioctl_fs_info_args {
        var info = btrfs_ioctl_fs_info_args()
        guard carve_ioctl_ptr(fd, carve_BTRFS_IOC_FS_INFO(), &info) == 0 else {
            throw SystemCallError(
                "cannot read the btrfs filesystem of \(path)", call: "ioctl(BTRFS_IOC_FS_INFO)", errno: errno)
        }
        return info
    }

    /// The id of the default subvolume: what a mount without `subvol=` shows.
    static func defaultSubvolume(_ fd: Int32, path: String) throws -> UInt64 {
        var id: UInt64 = 0
        try BtrfsUtilCall.check(
            btrfs_util_get_default_subvolume_fd(fd, &id), "cannot read the default subvolume of \(path)",
            "btrfs_util_get_default_subvolume_fd")
        return id
    }
}
