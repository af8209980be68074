import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Every item of one btrfs tree, in key order, read with BTRFS_IOC_TREE_SEARCH_V2
/// into one buffer reused for each call (hundreds of items a call). Read-only;
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

    /// 64 KiB: room for any item (a tree block is at most 64 KiB) and small enough
    /// that what the kernel writes is still in the cache when it is parsed; a
    /// larger buffer made the kernel fault in its unused rest once per leaf.
    static let defaultBufferSize = 64 << 10

    private let directory: FileDescriptor
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private let keySize = MemoryLayout<btrfs_ioctl_search_key>.size
    private let headerSize = MemoryLayout<btrfs_ioctl_search_header>.size
    /// Bytes the kernel has returned so far (headers and items).
    private(set) var bytesRead: UInt64 = 0
    private(set) var items = 0
    /// Only leaves written in this transaction or later (the kernel skips older
    /// nodes whole, as `btrfs subvolume find-new` does); 0: every leaf.
    var minimumTransaction: UInt64 = 0

    init(_ directory: FileDescriptor, bufferSize: Int = defaultBufferSize) {
        self.directory = directory
        capacity = bufferSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: keySize + 8 + bufferSize, alignment: 8)
        // Zeroed once, so the kernel (and valgrind) never sees uninitialised bytes.
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: keySize + 8 + bufferSize)
    }

    deinit { buffer.deallocate() }

    /// A whole key, compared as the kernel compares keys: objectid, then type, then offset.
    struct Key: Comparable, Hashable {
        var objectid: UInt64
        var type: UInt32
        var offset: UInt64
        static let last = Key(objectid: .max, type: 255, offset: .max)
        static func < (left: Key, right: Key) -> Bool {
            (left.objectid, left.type, left.offset) < (right.objectid, right.type, right.offset)
        }
    }

    /// Visits every item of tree `tree` with objectid at least `firstObjectID`;
    /// `afterCall` runs after each ioctl (for progress).
    func forEachItem(
        tree: UInt64, firstObjectID: UInt64 = 0, afterCall: () -> Void = {}, _ visit: (Item) throws -> Void
    ) throws {
        try forEachItem(tree: tree, from: Key(objectid: firstObjectID, type: 0, offset: 0), afterCall: afterCall, visit)
    }

    /// Visits every item of tree `tree` from `start` up to `end` (whole keys), in key order.
    func forEachItem(
        tree: UInt64, from start: Key, to end: Key = .last, afterCall: () -> Void = {}, _ visit: (Item) throws -> Void
    ) throws {
        var next: Key? = start
        while let current = next {
            next = try search(tree: tree, from: current, to: end, visit)
            afterCall()
        }
    }

    /// One ioctl: visits the items of `tree` from `start` up to `end` (whole keys) that
    /// fit the buffer. Returns where the next call starts, or nil when the range is done.
    /// `doneWhenRoomFor`: the largest item the range can hold; when the buffer kept that
    /// much room, the kernel stopped for want of items, not of room, and no call follows.
    func search(
        tree: UInt64, from start: Key, to end: Key = .last, doneWhenRoomFor largest: Int? = nil,
        _ visit: (Item) throws -> Void
    ) throws -> Key? {
        let key = buffer.bindMemory(to: btrfs_ioctl_search_key.self, capacity: 1)
        key.pointee = btrfs_ioctl_search_key()
        key.pointee.tree_id = tree
        key.pointee.min_objectid = start.objectid; key.pointee.max_objectid = end.objectid
        key.pointee.min_type = start.type; key.pointee.max_type = end.type
        key.pointee.min_offset = start.offset; key.pointee.max_offset = end.offset
        key.pointee.min_transid = minimumTransaction; key.pointee.max_transid = .max
        key.pointee.nr_items = .max
        buffer.storeBytes(of: UInt64(capacity), toByteOffset: keySize, as: UInt64.self)
        guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_TREE_SEARCH_V2(), buffer) == 0 else {
            throw SystemCallError(
                "cannot read tree \(tree) of \(directory.path)", call: "ioctl(BTRFS_IOC_TREE_SEARCH_V2)", errno: errno)
        }
        let count = Int(key.pointee.nr_items)
        guard count > 0 else { return nil }
        let base = UnsafeRawPointer(buffer + keySize + 8)
        var position = 0
        var last = start
        for _ in 0..<count {
            guard position + headerSize <= capacity else { break }
            let header = (base + position).loadUnaligned(as: btrfs_ioctl_search_header.self)
            let length = min(Int(header.len), capacity - position - headerSize)
            try visit(
                Item(
                    objectid: header.objectid, type: header.type, offset: header.offset,
                    data: UnsafeRawBufferPointer(start: base + position + headerSize, count: length)))
            last = Key(objectid: header.objectid, type: header.type, offset: header.offset)
            position += headerSize + Int(header.len)
        }
        bytesRead += UInt64(position)
        items += count
        if let largest, capacity - position >= largest { return nil }
        guard last < end, let after = Self.key(after: last) else { return nil }
        return after
    }

    /// Room for any item of a tree of `nodeSize` blocks with its header: what
    /// `doneWhenRoomFor` takes when nothing smaller is known about the range.
    static func roomForAnyItem(nodeSize: UInt64) -> Int {
        Int(nodeSize) + MemoryLayout<btrfs_ioctl_search_header>.size
    }

    static func key(after key: Key) -> Key? {
        Self.key(after: (key.objectid, key.type, key.offset)).map {
            Key(objectid: $0.objectid, type: $0.type, offset: $0.offset)
        }
    }

    /// The smallest key above `key`, or nil after the largest possible key.
    static func key(
        after key: (objectid: UInt64, type: UInt32, offset: UInt64)
    ) -> (objectid: UInt64, type: UInt32, offset: UInt64)? {
        if key.offset < .max { return (key.objectid, key.type, key.offset + 1) }
        if key.type < 255 { return (key.objectid, key.type + 1, 0) }
        if key.objectid < .max { return (key.objectid + 1, 0, 0) }
        return nil
    }

    /// The filesystem's tree block size (BTRFS_IOC_FS_INFO).
    static func nodeSize(_ directory: FileDescriptor) throws -> UInt64 {
        UInt64(try BtrfsQuery.filesystemInfo(directory.fd, path: directory.path).nodesize)
    }
}
