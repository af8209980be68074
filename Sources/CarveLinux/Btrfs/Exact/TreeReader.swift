import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads one subvolume tree's file extent items for `ExtentScanner`, around the
/// directory entries of the inodes `DirectoryHints` names (exact for any hint: see there).
struct TreeReader {
    typealias Key = TreeSearch.Key
    static let dirItemType: UInt32 = 84 // BTRFS_DIR_ITEM_KEY
    static let dirIndexType: UInt32 = 96 // BTRFS_DIR_INDEX_KEY

    private var reading = ExtentScanner.TreeReading()
    private let hints: DirectoryHints
    /// When a call leaves this much room, the range is done: no call to find it empty.
    private let doneWhenRoomFor: Int
    /// Directories of this tree, ascending: the hints for the next tree of the lineage.
    private var directories: [DirectoryHints.Directory] = []
    /// The last directory inode item read: (inode, i_size).
    private var directoryInode: (id: UInt64, size: UInt64)?
    /// Leaf bytes of the entries read so far of the last directory in `directories`.
    private var entryLeafBytes: UInt64 = 0

    /// A writable tree's inode records, kept for the next run (`WritableTreeState`).
    private var records: (builder: InodeRecordBuilder, writer: InodeRecords.Writer)?

    private init(hints: DirectoryHints, nodeSize: UInt64, keepsRecords: Bool) {
        self.hints = hints
        doneWhenRoomFor = TreeSearch.roomForAnyItem(nodeSize: nodeSize)
        reading.references = PackedReferences(reservingCapacity: 1 << 13)
        if keepsRecords { records = (InodeRecordBuilder(), InodeRecords.Writer()) }
    }

    /// Every file extent item of `tree`; holes are left out here already. With
    /// `keepsRecords`, also its inode records (`reading.records`).
    static func read(
        tree: UInt64, lineage: SubvolumeUUID?, with search: TreeSearch, hints: DirectoryHints, nodeSize: UInt64,
        keepsRecords: Bool = false
    ) -> ExtentScanner.TreeReading {
        var reader = TreeReader(hints: hints, nodeSize: nodeSize, keepsRecords: keepsRecords)
        let (bytesBefore, itemsBefore) = (search.bytesRead, search.items)
        do {
            var start = Key(objectid: BtrfsKey.firstFreeObjectID, type: 0, offset: 0)
            for directory in hints.directories(in: lineage) where directory.id >= start.objectid {
                try reader.read(
                    tree, from: start, to: Key(objectid: directory.id, type: dirItemType - 1, offset: .max),
                    with: search)
                reader.skippedEntries(of: directory)
                start = Key(objectid: directory.id, type: BtrfsKey.fileExtent, offset: 0)
            }
            try reader.read(tree, from: start, to: .last, with: search)
            hints.learn(reader.directories, in: lineage)
            if var records = reader.records.take() {
                if let last = records.builder.finish() { records.writer.append(last) }
                reader.reading.records = records.writer.records
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            reader.reading.gone = true
        } catch {
            reader.reading.error = error
        }
        reader.reading.bytesRead = search.bytesRead - bytesBefore
        reader.reading.items = search.items - itemsBefore
        return reader.reading
    }

    private mutating func read(_ tree: UInt64, from start: Key, to end: Key, with search: TreeSearch) throws {
        var next: Key? = start
        while let from = next, from <= end {
            next = try search.search(tree: tree, from: from, to: end, doneWhenRoomFor: doneWhenRoomFor) { visit($0) }
        }
    }

    private mutating func visit(_ item: TreeSearch.Item) {
        if records != nil, let done = records!.builder.add(item) { records!.writer.append(done) }
        let leafBytes = ExactSizes.leafBytes(itemSize: item.data.count)
        reading.leafBytes += leafBytes
        switch item.type {
        case BtrfsKey.fileExtent:
            reading.fileExtents += 1
            switch ExtentScanner.FileExtent(item.data) {
            case .onDisk(let bytenr, let bytes):
                if bytenr != 0 { reading.references.append(ExtentKey(diskBytenr: bytenr, diskBytes: bytes)) }
            case .inline(let bytes): reading.inlineBytes += bytes; reading.hasInline = true
            case .malformed: reading.malformed += 1
            }
        case BtrfsKey.inodeItem:
            // struct btrfs_inode_item: size at 16, mode at 52.
            guard item.data.count >= 56 else { return }
            let mode = UInt32(littleEndian: item.data.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
            if mode & 0o170000 == 0o040000 { directoryInode = (item.objectid, item.data.loadLE(at: 16)) }
        case Self.dirItemType, Self.dirIndexType:
            guard let inode = directoryInode, inode.id == item.objectid, inode.size > 0 else { return }
            if directories.last?.id != inode.id {
                directories.append(DirectoryHints.Directory(id: inode.id, leafBytesPerSizeByte: 0))
                entryLeafBytes = 0
            }
            entryLeafBytes += leafBytes
            directories[directories.count - 1].leafBytesPerSizeByte = Double(entryLeafBytes) / Double(inode.size)
            directories[directories.count - 1].entryLeafBytes = entryLeafBytes
        default:
            break
        }
    }

    /// After the range of `directory`'s entries was left out: when it is a directory
    /// here, it stays a hint and its entries count in the tree's size by estimate.
    private mutating func skippedEntries(of directory: DirectoryHints.Directory) {
        guard let inode = directoryInode, inode.id == directory.id else { return }
        var directory = directory
        directory.entryLeafBytes = UInt64((Double(inode.size) * directory.leafBytesPerSizeByte).rounded(.up))
        directories.append(directory)
        reading.leafBytes += directory.entryLeafBytes
        records?.builder.addLeafBytes(directory.entryLeafBytes, to: directory.id)
    }
}
