import CBtrfsUtil
import CarveCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the tree of tree roots says of one subvolume right now, from one
/// BTRFS_IOC_TREE_SEARCH over its keys: its root item, its back reference and any
/// reference to a nested subvolume. libbtrfsutil spends a search on the info and
/// another on an iterator for the same answers. Needs CAP_SYS_ADMIN, as deleting does.
struct SubvolumeState: Equatable {
    private static let argumentsSize = MemoryLayout<btrfs_ioctl_search_args>.size
    private static let keySize = MemoryLayout<btrfs_ioctl_search_key>.size
    private static let headerSize = MemoryLayout<btrfs_ioctl_search_header>.size
    /// The largest item a search of these keys can still hold back for lack of room:
    /// a root reference with a 255-byte name (a root item is copied first, or not at all).
    private static let largestReference = MemoryLayout<btrfs_ioctl_search_header>.size + Int(carve_root_ref_name_offset.rawValue) + 255

    /// The root item's otime.
    var created: Date
    /// A ROOT_REF item names a subvolume inside this one.
    var hasNestedSubvolumes: Bool

    /// nil when the subvolume is gone: no root item, or already unlinked (no back
    /// reference, no references left) and only waiting for the cleaner, which
    /// libbtrfsutil reports as not found too.
    static func read(_ id: UInt64, through directory: DirectoryHandle) throws -> SubvolumeState? {
        var item: RootTree.RootItem?
        var linked = false
        var nested = false
        var malformed = false
        var start = (type: BtrfsKey.rootItem, offset: UInt64(0))
        try withUnsafeTemporaryAllocation(byteCount: argumentsSize, alignment: 8) { arguments in
            let base = arguments.baseAddress!
            let capacity = argumentsSize - keySize
            while true {
                arguments.initializeMemory(as: UInt8.self, repeating: 0)
                let key = base.bindMemory(to: btrfs_ioctl_search_key.self, capacity: 1)
                key.pointee.tree_id = BtrfsKey.rootTree
                key.pointee.min_objectid = id; key.pointee.max_objectid = id
                key.pointee.min_type = start.type; key.pointee.max_type = BtrfsKey.rootRef
                key.pointee.min_offset = start.offset; key.pointee.max_offset = .max
                key.pointee.max_transid = .max
                key.pointee.nr_items = 4096
                guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_TREE_SEARCH(), base) == 0 else {
                    throw SystemCallError(
                        "cannot read subvolume \(id) on \(directory.path)", call: "ioctl(BTRFS_IOC_TREE_SEARCH)", errno: errno)
                }
                let count = Int(key.pointee.nr_items)
                var position = 0
                for _ in 0..<count {
                    let header = (UnsafeRawPointer(base) + keySize + position).loadUnaligned(as: btrfs_ioctl_search_header.self)
                    let length = Int(header.len)
                    guard position + headerSize + length <= capacity else { break }
                    let data = UnsafeRawBufferPointer(start: base + keySize + position + headerSize, count: length)
                    if header.objectid == id {
                        switch header.type {
                        case BtrfsKey.rootItem:
                            item = RootTree.rootItem(data)
                            malformed = item == nil
                        case BtrfsKey.rootBackref: linked = true
                        case BtrfsKey.rootRef: nested = true
                        default: break
                        }
                    }
                    position += headerSize + length
                    start = header.offset < .max ? (header.type, header.offset + 1) : (header.type + 1, 0)
                }
                // Done at the first nested reference, at the end of the keys, or when the
                // buffer kept room for any item that could follow: the kernel stops
                // early only when the next item does not fit.
                if nested || count == 0 || capacity - position >= largestReference || start.type > BtrfsKey.rootRef { break }
            }
        }
        if malformed {
            throw RuntimeError("cannot read subvolume \(id) on \(directory.path): its root item is shorter than btrfs writes them")
        }
        guard let item, linked, item.references > 0 else { return nil }
        return SubvolumeState(created: item.created, hasNestedSubvolumes: nested)
    }
}
