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

    static let statusKey: UInt32 = 240   // BTRFS_QGROUP_STATUS_KEY
    static let infoKey: UInt32 = 242     // BTRFS_QGROUP_INFO_KEY
    static let flagOn: UInt64 = 1 << 0
    static let flagRescan: UInt64 = 1 << 1
    static let flagInconsistent: UInt64 = 1 << 2
    /// BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE (kernel 6.7), newer than Debian 12's headers.
    static let flagSimple: UInt64 = 1 << 3

    static func read(_ directory: DirectoryHandle, mountpoint: String) throws -> QuotaTree {
        var tree = QuotaTree()
        var status: UInt64?
        do {
            try search(directory, types: statusKey...infoKey) { type, offset, item in
                if type == statusKey, item.count >= 24 {
                    status = item.loadLE(at: 16)
                } else if type == infoKey, offset >> 48 == 0, item.count >= 40 {
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
            return QuotaTree(problem: "\(mountpoint) uses simple quotas, which do not count shared extents: sizes unknown")
        }
        if flags & flagRescan != 0 {
            return QuotaTree(problem: "a quota rescan is running on \(mountpoint): sizes unknown until it ends")
        }
        if flags & flagInconsistent != 0 {
            return QuotaTree(problem: "quotas on \(mountpoint) are inconsistent: sizes unknown (btrfs quota rescan fixes it)")
        }
        return tree
    }

    /// Every item of the quota tree with a type in `types`, in key order.
    private static func search(
        _ directory: DirectoryHandle, types: ClosedRange<UInt32>, _ visit: (UInt32, UInt64, UnsafeRawBufferPointer) -> Void
    ) throws {
        let size = MemoryLayout<btrfs_ioctl_search_args>.size
        let keySize = MemoryLayout<btrfs_ioctl_search_key>.size
        let headerSize = MemoryLayout<btrfs_ioctl_search_header>.size
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        // The ioctl is _IOWR over the whole buffer: no uninitialised byte goes to the kernel (valgrind checks).
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let key = buffer.bindMemory(to: btrfs_ioctl_search_key.self, capacity: 1)
        var minOffset: UInt64 = 0, minType = types.lowerBound
        while true {
            key.pointee = btrfs_ioctl_search_key()
            key.pointee.tree_id = 8 // BTRFS_QUOTA_TREE_OBJECTID
            key.pointee.min_objectid = 0; key.pointee.max_objectid = 0
            key.pointee.min_type = minType; key.pointee.max_type = types.upperBound
            key.pointee.min_offset = minOffset; key.pointee.max_offset = .max
            key.pointee.max_transid = .max
            key.pointee.nr_items = 4096
            guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_TREE_SEARCH(), buffer) == 0 else {
                throw SystemCallError(
                    "cannot read the quota tree of \(directory.path)", call: "ioctl(BTRFS_IOC_TREE_SEARCH)", errno: errno)
            }
            let count = key.pointee.nr_items
            if count == 0 { return }
            var position = keySize
            var lastType = minType, lastOffset = minOffset
            for _ in 0..<count {
                guard position + headerSize <= size else { break }
                let header = (buffer + position).loadUnaligned(as: btrfs_ioctl_search_header.self)
                let itemStart = position + headerSize
                let length = min(Int(header.len), size - itemStart)
                visit(header.type, header.offset, UnsafeRawBufferPointer(start: buffer + itemStart, count: length))
                lastType = header.type; lastOffset = header.offset
                position = itemStart + Int(header.len)
            }
            // Continue after the last key returned (objectid is fixed at 0).
            if lastOffset == .max {
                guard lastType < types.upperBound else { return }
                minType = lastType + 1; minOffset = 0
            } else {
                minType = lastType; minOffset = lastOffset + 1
            }
        }
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian UInt64 at `offset` (on-disk btrfs items are little-endian and packed).
    func loadLE(at offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
