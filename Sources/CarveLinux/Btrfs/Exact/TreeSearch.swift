import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Every item of one btrfs tree, in key order, read with BTRFS_IOC_TREE_SEARCH_V2
/// into one large buffer reused for each call (many thousand items a call). Read-only;
/// needs CAP_SYS_ADMIN. The kernel bounds keys as a whole (objectid, type, offset),
/// not field by field, so callers filter item types themselves. One worker uses
/// one instance at a time (its buffer is not shared).
final class TreeSearch: @unchecked Sendable {
    /// One item: its key and its bytes, valid only during the visit.
    struct Item {
        var objectid: UInt64
        var type: UInt32
        var offset: UInt64
        var data: UnsafeRawBufferPointer
    }

    private let directory: DirectoryHandle
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private let keySize = MemoryLayout<btrfs_ioctl_search_key>.size
    private let headerSize = MemoryLayout<btrfs_ioctl_search_header>.size
    /// Bytes the kernel has returned so far (headers and items).
    private(set) var bytesRead: UInt64 = 0
    private(set) var items = 0

    init(_ directory: DirectoryHandle, bufferSize: Int = 2 << 20) {
        self.directory = directory
        capacity = bufferSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: keySize + 8 + bufferSize, alignment: 8)
        // Zeroed once, so the kernel (and valgrind) never sees uninitialised bytes.
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: keySize + 8 + bufferSize)
    }

    deinit { buffer.deallocate() }

    /// Visits every item of tree `tree` with objectid at least `firstObjectID`;
    /// `afterCall` runs after each ioctl (for progress).
    func forEachItem(
        tree: UInt64, firstObjectID: UInt64 = 0, afterCall: () -> Void = {}, _ visit: (Item) throws -> Void
    ) throws {
        var next: (objectid: UInt64, type: UInt32, offset: UInt64)? = (firstObjectID, 0, 0)
        while let start = next {
            let key = buffer.bindMemory(to: btrfs_ioctl_search_key.self, capacity: 1)
            key.pointee = btrfs_ioctl_search_key()
            key.pointee.tree_id = tree
            key.pointee.min_objectid = start.objectid; key.pointee.max_objectid = .max
            key.pointee.min_type = start.type; key.pointee.max_type = .max
            key.pointee.min_offset = start.offset; key.pointee.max_offset = .max
            key.pointee.min_transid = 0; key.pointee.max_transid = .max
            key.pointee.nr_items = .max
            buffer.storeBytes(of: UInt64(capacity), toByteOffset: keySize, as: UInt64.self)
            guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_TREE_SEARCH_V2(), buffer) == 0 else {
                throw SystemCallError(
                    "cannot read tree \(tree) of \(directory.path)", call: "ioctl(BTRFS_IOC_TREE_SEARCH_V2)", errno: errno)
            }
            let count = Int(key.pointee.nr_items)
            guard count > 0 else { return }
            let base = buffer + keySize + 8
            var position = 0
            var last = start
            for _ in 0..<count {
                guard position + headerSize <= capacity else { break }
                let header = (base + position).loadUnaligned(as: btrfs_ioctl_search_header.self)
                let length = min(Int(header.len), capacity - position - headerSize)
                try visit(Item(
                    objectid: header.objectid, type: header.type, offset: header.offset,
                    data: UnsafeRawBufferPointer(start: base + position + headerSize, count: length)))
                last = (header.objectid, header.type, header.offset)
                position += headerSize + Int(header.len)
            }
            bytesRead += UInt64(position)
            items += count
            afterCall()
            next = Self.key(after: last)
        }
    }

    /// The smallest key above `key`, or nil after the largest possible key.
    static func key(after key: (objectid: UInt64, type: UInt32, offset: UInt64)) -> (objectid: UInt64, type: UInt32, offset: UInt64)? {
        if key.offset < .max { return (key.objectid, key.type, key.offset + 1) }
        if key.type < 255 { return (key.objectid, key.type + 1, 0) }
        if key.objectid < .max { return (key.objectid + 1, 0, 0) }
        return nil
    }

    /// The filesystem's tree block size (BTRFS_IOC_FS_INFO).
    static func nodeSize(_ directory: DirectoryHandle) throws -> UInt64 {
        var info = btrfs_ioctl_fs_info_args()
        guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_FS_INFO(), &info) == 0 else {
            throw SystemCallError("cannot read the node size of \(directory.path)", call: "ioctl(BTRFS_IOC_FS_INFO)", errno: errno)
        }
        return UInt64(info.nodesize)
    }
}
