import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns a tree's items, read in key order, into one `InodeRecord` per object id: its
/// kind and link count (INODE_ITEM), the directories holding its names (INODE_REF,
/// INODE_EXTREF), its extents (EXTENT_DATA) and its items' leaf bytes; with `children`,
/// also the inodes a directory's DIR_ITEMs name. Used by a whole read of a writable
/// tree (`TreeReader`) and by the reads of single inodes (`TreeChanges`).
struct InodeRecordBuilder {
    private var current: InodeRecord?
    /// File extent items that could not be read: the tree's sizes would be wrong.
    private(set) var malformed = 0
    /// The inodes named by the current object's DIR_ITEMs, when `collectsChildren`.
    private(set) var children: [UInt64] = []
    let collectsChildren: Bool
    /// Set when the read leaves a directory's DIR_INDEX items out: each entry of its
    /// DIR_ITEMs then counts the leaf bytes of the DIR_INDEX item that names the same
    /// entry (an item header and the same entry: a name and no data).
    var countsIndexFromItems = false

    init(collectsChildren: Bool = false) { self.collectsChildren = collectsChildren }

    /// Adds `item`; gives the previous object's record when `item` is the first of another.
    mutating func add(_ item: TreeSearch.Item) -> InodeRecord? {
        var finished: InodeRecord?
        if current?.inode != item.objectid {
            finished = finish()
            current = InodeRecord(inode: item.objectid)
        }
        addToCurrent(item)
        return finished
    }

    /// Adds an item of the one object a read asks for (its key range holds no other):
    /// no record is handed back to be dropped per item. (An `InodeRecord?` dropped went
    /// through a generic destroy, a tenth of a read of single inodes.)
    mutating func addOfOneObject(_ item: TreeSearch.Item) {
        if case .none = current { current = InodeRecord(inode: item.objectid) }
        addToCurrent(item)
    }

    private mutating func addToCurrent(_ item: TreeSearch.Item) {
        current!.leafBytes += ExactSizes.leafBytes(itemSize: item.data.count)
        let data = item.data
        switch item.type {
        case BtrfsKey.inodeItem:
            guard data.count >= Int(carve_inode_item_size.rawValue) else { break }
            let mode = UInt32(
                littleEndian: data.loadUnaligned(fromByteOffset: Int(carve_inode_item_mode.rawValue), as: UInt32.self))
            let links = UInt32(
                littleEndian: data.loadUnaligned(fromByteOffset: Int(carve_inode_item_nlink.rawValue), as: UInt32.self))
            current!.isDirectory = mode & UInt32(S_IFMT) == UInt32(S_IFDIR)
            current!.unlinked = links == 0
        case BtrfsKey.inodeRef:
            current!.parents.append(item.offset)
        case BtrfsKey.inodeExtref:
            forEachExtref(data) { current!.parents.append($0) }
        case BtrfsKey.fileExtent:
            switch ExtentScanner.FileExtent(data) {
            case .onDisk(let bytenr, let bytes):
                if bytenr != 0 { current!.references.append(ExtentKey(diskBytenr: bytenr, diskBytes: bytes)) }
            case .inline(let bytes): current!.inlineBytes = (current!.inlineBytes ?? 0) + bytes
            case .malformed: malformed += 1
            }
        case TreeReader.dirItemType where collectsChildren:
            var indexBytes: UInt64 = 0
            forEachDirEntry(data) { child, size in
                if let child { children.append(child) }
                indexBytes += ExactSizes.leafBytes(itemSize: size)
            }
            if countsIndexFromItems { current!.leafBytes += indexBytes }
        default:
            break
        }
    }

    /// Adds leaf bytes a read left out (a directory's entries, estimated) to `inode`'s record.
    mutating func addLeafBytes(_ bytes: UInt64, to inode: UInt64) {
        guard current?.inode == inode else { return }
        current!.leafBytes += bytes
    }

    /// The last object's record, if any; the builder is then empty.
    mutating func finish() -> InodeRecord? {
        guard var record = current.take() else { return nil }
        if record.parents.count > 1 { record.parents = Array(Set(record.parents)).sorted() }
        return record
    }

    /// struct btrfs_inode_extref entries, packed: parent, index, name length, name.
    private func forEachExtref(_ data: UnsafeRawBufferPointer, _ body: (UInt64) -> Void) {
        let header = Int(carve_inode_extref_name_offset.rawValue)
        var offset = 0
        while offset + header <= data.count {
            body(data.loadLE(at: offset))
            let length = UInt16(
                littleEndian: data.loadUnaligned(
                    fromByteOffset: offset + Int(carve_inode_extref_name_len.rawValue), as: UInt16.self))
            offset += header + Int(length)
        }
    }

    /// struct btrfs_dir_item entries, packed (names whose hashes collide share an item):
    /// each names an inode, or a subvolume (a ROOT_ITEM location), which is no child here.
    private func forEachDirEntry(_ data: UnsafeRawBufferPointer, _ body: (_ inode: UInt64?, _ size: Int) -> Void) {
        let header = Int(carve_dir_item_size.rawValue)
        var offset = 0
        while offset + header <= data.count {
            let type = data[offset + Int(carve_dir_item_location_type.rawValue)]
            let name = UInt16(
                littleEndian: data.loadUnaligned(
                    fromByteOffset: offset + Int(carve_dir_item_name_len.rawValue), as: UInt16.self))
            let extra = UInt16(
                littleEndian: data.loadUnaligned(
                    fromByteOffset: offset + Int(carve_dir_item_data_len.rawValue), as: UInt16.self))
            let size = header + Int(name) + Int(extra)
            body(UInt32(type) == BtrfsKey.inodeItem ? data.loadLE(at: offset) : nil, size)
            offset += size
        }
    }
}
