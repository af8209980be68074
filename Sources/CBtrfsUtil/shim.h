#pragma once
#include <btrfsutil.h>
#include <stddef.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/vfs.h> /* statfs(2): f_type tells btrfs from other filesystems */

/* ioctl(2) is variadic, which Swift cannot call: one typed wrapper per request shape. */
static inline int carve_ioctl_ptr(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}

/* The request numbers are macros built from _IOWR and friends, which Swift does not import. */
static inline unsigned long carve_BTRFS_IOC_TREE_SEARCH(void) { return BTRFS_IOC_TREE_SEARCH; }
static inline unsigned long carve_BTRFS_IOC_TREE_SEARCH_V2(void) { return BTRFS_IOC_TREE_SEARCH_V2; }
static inline unsigned long carve_BTRFS_IOC_SPACE_INFO(void) { return BTRFS_IOC_SPACE_INFO; }
static inline unsigned long carve_BTRFS_IOC_FS_INFO(void) { return BTRFS_IOC_FS_INFO; }
static inline unsigned long carve_BTRFS_IOC_DEV_INFO(void) { return BTRFS_IOC_DEV_INFO; }
static inline unsigned long carve_BTRFS_IOC_QUOTA_CTL(void) { return BTRFS_IOC_QUOTA_CTL; }
static inline unsigned long carve_BTRFS_IOC_INO_LOOKUP(void) { return BTRFS_IOC_INO_LOOKUP; }
static inline unsigned long carve_BTRFS_IOC_LOGICAL_INO_V2(void) { return BTRFS_IOC_LOGICAL_INO_V2; }
static inline unsigned long carve_BTRFS_IOC_GET_SUBVOL_INFO(void) { return BTRFS_IOC_GET_SUBVOL_INFO; }
static inline unsigned long carve_BLKGETSIZE64(void) { return BLKGETSIZE64; }
static inline unsigned long carve_BLKSSZGET(void) { return BLKSSZGET; }

/* The on-disk root item is packed; its field offsets come from the header rather than
   from Swift's own layout of the imported struct. */
enum carve_root_item_offset {
    carve_root_item_generation = offsetof(struct btrfs_root_item, generation),
    carve_root_item_flags = offsetof(struct btrfs_root_item, flags),
    carve_root_item_refs = offsetof(struct btrfs_root_item, refs),
    carve_root_item_generation_v2 = offsetof(struct btrfs_root_item, generation_v2),
    carve_root_item_uuid = offsetof(struct btrfs_root_item, uuid),
    carve_root_item_parent_uuid = offsetof(struct btrfs_root_item, parent_uuid),
    carve_root_item_received_uuid = offsetof(struct btrfs_root_item, received_uuid),
    carve_root_item_otime = offsetof(struct btrfs_root_item, otime),
    carve_root_item_otransid = offsetof(struct btrfs_root_item, otransid),
    carve_inode_item_transid = offsetof(struct btrfs_inode_item, transid),
    carve_inode_item_ctime = offsetof(struct btrfs_inode_item, ctime),
    carve_inode_item_atime = offsetof(struct btrfs_inode_item, atime),
    carve_inode_item_generation = offsetof(struct btrfs_inode_item, generation),
    carve_file_extent_generation = offsetof(struct btrfs_file_extent_item, generation),
    carve_inode_item_size = sizeof(struct btrfs_inode_item),
    carve_inode_item_nlink = offsetof(struct btrfs_inode_item, nlink),
    carve_inode_item_mode = offsetof(struct btrfs_inode_item, mode),
    carve_inode_extref_name_offset = offsetof(struct btrfs_inode_extref, name),
    carve_inode_extref_name_len = offsetof(struct btrfs_inode_extref, name_len),
    carve_dir_item_size = sizeof(struct btrfs_dir_item),
    carve_dir_item_location_type = offsetof(struct btrfs_dir_item, location) + offsetof(struct btrfs_disk_key, type),
    carve_dir_item_data_len = offsetof(struct btrfs_dir_item, data_len),
    carve_dir_item_name_len = offsetof(struct btrfs_dir_item, name_len),
    carve_root_item_size = sizeof(struct btrfs_root_item),
    carve_root_ref_name_offset = sizeof(struct btrfs_root_ref),
    carve_ino_lookup_name_offset = offsetof(struct btrfs_ioctl_ino_lookup_args, name),
    carve_ino_lookup_size = sizeof(struct btrfs_ioctl_ino_lookup_args),
};
