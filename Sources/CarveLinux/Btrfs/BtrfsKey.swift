import Glibc
import CBtrfsUtil

/// The tree ids, object ids and item types carve searches btrfs for, by the names
/// of the kernel's own header (linux/btrfs_tree.h), so no search spells a number.
enum BtrfsKey {
    // Trees.
    static let rootTree = UInt64(BTRFS_ROOT_TREE_OBJECTID)
    static let extentTree = UInt64(BTRFS_EXTENT_TREE_OBJECTID)
    static let blockGroupTree = UInt64(BTRFS_BLOCK_GROUP_TREE_OBJECTID)
    static let deviceTree = UInt64(BTRFS_DEV_TREE_OBJECTID)
    /// The top-level subvolume (id 5).
    static let fsTree = UInt64(BTRFS_FS_TREE_OBJECTID)
    static let quotaTree = UInt64(BTRFS_QUOTA_TREE_OBJECTID)
    // Object ids: subvolumes and inodes are numbered from here up to 2^64 - 256.
    static let firstFreeObjectID = UInt64(BTRFS_FIRST_FREE_OBJECTID)
    static let lastFreeObjectID = UInt64.max - 255
    // Item types.
    static let inodeItem = UInt32(BTRFS_INODE_ITEM_KEY)
    /// A file's name in one directory (offset: the directory's inode), and when a
    /// directory holds too many of its names for one item, the extended form.
    static let inodeRef = UInt32(BTRFS_INODE_REF_KEY)
    static let inodeExtref = UInt32(BTRFS_INODE_EXTREF_KEY)
    static let fileExtent = UInt32(BTRFS_EXTENT_DATA_KEY)
    static let rootItem = UInt32(BTRFS_ROOT_ITEM_KEY)
    static let rootBackref = UInt32(BTRFS_ROOT_BACKREF_KEY)
    static let extentItem = UInt32(BTRFS_EXTENT_ITEM_KEY)
    static let blockGroupItem = UInt32(BTRFS_BLOCK_GROUP_ITEM_KEY)
    static let deviceExtent = UInt32(BTRFS_DEV_EXTENT_KEY)
    static let qgroupStatus = UInt32(BTRFS_QGROUP_STATUS_KEY)
    static let qgroupInfo = UInt32(BTRFS_QGROUP_INFO_KEY)
}
