import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Volume sizes from the quota tree, read with BTRFS_IOC_TREE_SEARCH: the same
/// on-disk numbers `btrfs qgroup show --raw` prints (libbtrfsutil 1.2 has no qgroup
/// API). Sizes are trusted only when quotas are on, consistent, not rescanning and
/// not simple quotas; otherwise `problem` says why they are unknown.
struct QuotaTree {
    /// Level-0 qgroups by subvolume id.
    var sizes: [UInt64: (referenced: UInt64, exclusive: UInt64)] = [:]
    /// nil when the sizes are exact; else one line saying why there are none.
    var problem: String?

    static let flagOn: UInt64 = 1 << 0
    static let flagRescan: UInt64 = 1 << 1
    static let flagInconsistent: UInt64 = 1 << 2
    /// BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE (kernel 6.7), newer than Debian 12's headers.
    static let flagSimple: UInt64 = 1 << 3

    static func read(_ directory: FileDescriptor, mountpoint: String) throws -> QuotaTree {
        var tree = QuotaTree()
        var status: UInt64?
        do {
            try search(directory, types: BtrfsKey.qgroupStatus...BtrfsKey.qgroupInfo) { type, offset, item in
                if type == BtrfsKey.qgroupStatus, item.count >= 24 {
                    status = item.loadLE(at: 16)
                } else if type == BtrfsKey.qgroupInfo, offset >> 48 == 0, item.count >= 40 {
                    tree.sizes[offset] = (item.loadLE(at: 8), item.loadLE(at: 24))
                }
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            return QuotaTree(problem: "quotas are off on \(mountpoint): sizes unknown (carve never turns quotas on)")
        }
        guard let flags = status, flags & flagOn != 0 else {
            return QuotaTree(problem: "quotas are off on \(mountpoint): sizes unknown (carve never turns quotas on)")
        }
        if flags & flagSimple != 0 {
            return QuotaTree(
                problem: "\(mountpoint) uses simple quotas, which do not count shared extents: sizes unknown")
        }
        if flags & flagRescan != 0 {
            return QuotaTree(problem: "a quota rescan is running on \(mountpoint): sizes unknown until it ends")
        }
        if flags & flagInconsistent != 0 {
            return QuotaTree(
                problem: "quotas on \(mountpoint) are inconsistent: sizes unknown (btrfs quota rescan fixes it)")
        }
        return tree
    }

    /// Every item of the quota tree (all under objectid 0) with a type in `types`, in key order.
    private static func search(
        _ directory: FileDescriptor, types: ClosedRange<UInt32>,
        _ visit: (UInt32, UInt64, UnsafeRawBufferPointer) -> Void
    ) throws {
        // A quota tree holds a few items per subvolume: a small buffer serves.
        try TreeSearch(directory, bufferSize: 16 << 10).forEachItem(
            tree: BtrfsKey.quotaTree, from: TreeSearch.Key(objectid: 0, type: types.lowerBound, offset: 0),
            to: TreeSearch.Key(objectid: 0, type: types.upperBound, offset: .max)
        ) { item in
            visit(item.type, item.offset, item.data)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian UInt64 at `offset` (on-disk btrfs items are little-endian and packed).
    func loadLE(at offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
