import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// What the tree of tree roots says of one subvolume right now, from one
/// BTRFS_IOC_TREE_SEARCH over its keys: its root item, its back reference and any
/// reference to a nested subvolume. libbtrfsutil spends a search on the info and
/// another on an iterator for the same answers. Needs CAP_SYS_ADMIN, as deleting does.
struct SubvolumeState: Equatable {
    /// Room for a root item, a back reference and a few references: one call.
    private static let bufferSize = 4096
    /// The largest item a search of these keys can still hold back for lack of room:
    /// a root reference with a 255-byte name (a root item is copied first, or not at all).
    private static let largestReference =
        MemoryLayout<btrfs_ioctl_search_header>.size + Int(carve_root_ref_name_offset.rawValue) + 255

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
        let search = TreeSearch(directory, bufferSize: bufferSize)
        var next: TreeSearch.Key? = TreeSearch.Key(objectid: id, type: BtrfsKey.rootItem, offset: 0)
        let end = TreeSearch.Key(objectid: id, type: BtrfsKey.rootRef, offset: .max)
        do {
            // Done at the first nested reference: one is enough to refuse.
            while let start = next, !nested {
                next = try search.search(
                    tree: BtrfsKey.rootTree, from: start, to: end, doneWhenRoomFor: largestReference
                ) { found in
                    switch found.type {
                    case BtrfsKey.rootItem:
                        item = RootTree.rootItem(found.data)
                        malformed = item == nil
                    case BtrfsKey.rootBackref: linked = true
                    case BtrfsKey.rootRef: nested = true
                    default: break
                    }
                }
            }
        } catch let error as SystemCallError {
            throw SystemCallError(
                "cannot read subvolume \(id) on \(directory.path)", call: error.call, errno: error.errno)
        }
        if malformed {
            throw RuntimeError(
                "cannot read subvolume \(id) on \(directory.path): its root item is shorter than btrfs writes them")
        }
        guard let item, linked, item.references > 0 else { return nil }
        return SubvolumeState(created: item.created, hasNestedSubvolumes: nested)
    }
}
