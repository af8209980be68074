#pragma once
#include <btrfsutil.h>
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
static inline unsigned long carve_BLKGETSIZE64(void) { return BLKGETSIZE64; }
static inline unsigned long carve_BLKSSZGET(void) { return BLKSSZGET; }
