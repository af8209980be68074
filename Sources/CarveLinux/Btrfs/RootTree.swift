import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Every subvolume of a filesystem, read in bulk from the tree of tree roots (tree 1),
/// as `btrfs subvolume list` does: one TREE_SEARCH pass yields each subvolume's root
/// item (uuids, otime, flags) and back reference (parent, directory, name), and one
/// INO_LOOKUP per distinct directory turns those into paths. libbtrfsutil's iterator
/// costs a search and a lookup per subvolume, which made 10,000 snapshots slow to list.
/// Needs CAP_SYS_ADMIN. A subvolume being deleted (no back reference left, or no
/// references) is not listed, as libbtrfsutil does not list it either.
struct RootTree {

    /// What the root item says of one subvolume.
    struct RootItem {
        var generation: UInt64
        /// The transaction that created it (otransid).
        var createdGeneration: UInt64 = 0
        var readOnly: Bool
        var references: UInt32
        var uuid: SubvolumeUUID?
        var parentUUID: SubvolumeUUID?
        var receivedUUID: SubvolumeUUID?
        var created: Date
    }

    /// Where one subvolume hangs: in directory `directoryID` of subvolume `parentID`.
    struct BackReference {
        var parentID: UInt64
        var directoryID: UInt64
        var name: String
    }

    let directory: FileDescriptor

    /// One subvolume's items; the search returns them in key order, so an entry is
    /// complete once the next object id shows up.
    struct Entry {
        var id: UInt64
        var item: RootItem?
        var backReference: BackReference?
    }

    /// Every subvolume below the top level, in id order, with its path from the top level.
    func subvolumes() throws -> [Volume] {
        var entries: [Entry] = []
        try TreeSearch(directory, bufferSize: 256 << 10).forEachItem(
            tree: BtrfsKey.rootTree, firstObjectID: BtrfsKey.firstFreeObjectID
        ) { item in
            guard item.objectid <= BtrfsKey.lastFreeObjectID,
                item.type == BtrfsKey.rootItem || item.type == BtrfsKey.rootBackref
            else { return }
            if entries.last?.id != item.objectid { entries.append(Entry(id: item.objectid)) }
            if item.type == BtrfsKey.rootItem {
                entries[entries.count - 1].item = Self.rootItem(item.data)
            } else {
                entries[entries.count - 1].backReference = Self.backReference(item.data, parentID: item.offset)
            }
        }
        return try volumes(&entries)
    }

    /// The subvolumes `ids` only, each with its path: a search per subvolume and per
    /// ancestor, not a read of the whole tree (the relatives of a backup chain on
    /// another filesystem). Ids that are not subvolumes are left out.
    func subvolumes(ids: Set<UInt64>) throws -> [Volume] {
        var byID: [UInt64: Entry] = [:]
        let search = TreeSearch(directory, bufferSize: 16 << 10)
        var wanted = Array(ids)
        while let id = wanted.popLast() {
            guard byID[id] == nil, id >= BtrfsKey.firstFreeObjectID, id <= BtrfsKey.lastFreeObjectID else { continue }
            var entry = Entry(id: id)
            var next: TreeSearch.Key? = TreeSearch.Key(objectid: id, type: BtrfsKey.rootItem, offset: 0)
            let end = TreeSearch.Key(objectid: id, type: BtrfsKey.rootBackref, offset: .max)
            while let from = next {
                next = try search.search(tree: BtrfsKey.rootTree, from: from, to: end) { item in
                    if item.type == BtrfsKey.rootItem {
                        entry.item = Self.rootItem(item.data)
                    } else if item.type == BtrfsKey.rootBackref {
                        entry.backReference = Self.backReference(item.data, parentID: item.offset)
                    }
                }
            }
            byID[id] = entry
            // The path goes through the parents: their back references are needed too.
            if let parent = entry.backReference?.parentID, parent != BtrfsKey.fsTree { wanted.append(parent) }
        }
        var found = byID.values.sorted { $0.id < $1.id }
        let requested = try volumes(&found)
        return requested.filter { ids.contains($0.id) }
    }

    /// The entries that are live subvolumes reachable from the top level, with their
    /// paths. Their paths are moved into the volumes, not copied: the entries go after.
    private func volumes(_ entries: inout [Entry]) throws -> [Volume] {
        // An array made with no room writes its count into the empty array all threads share.
        guard !entries.isEmpty else { return [] }
        var (live, paths) = try livePaths(entries)
        // Each volume made where it stays; the resolver is gone, so the entries are changed
        // in place (taken from), not copied.
        return entries.withUnsafeMutableBufferPointer { entries in
            [Volume](unsafeUninitializedCapacity: live.count) { volumes, count in
                for position in live {
                    guard case .some(.some(let path)) = paths[position].take() else { continue }
                    let entry = entries.baseAddress! + position
                    (volumes.baseAddress! + count).initialize(
                        to: Volume(
                            id: entry.pointee.id, parentID: entry.pointee.backReference.unsafelyUnwrapped.parentID,
                            path: path, uuid: entry.pointee.item!.uuid ?? "",
                            parentUUID: entry.pointee.item!.parentUUID,
                            receivedUUID: entry.pointee.item!.receivedUUID,
                            generation: entry.pointee.item.unsafelyUnwrapped.generation,
                            createdGeneration: entry.pointee.item.unsafelyUnwrapped.createdGeneration,
                            created: entry.pointee.item.unsafelyUnwrapped.created,
                            readOnly: entry.pointee.item.unsafelyUnwrapped.readOnly, isSnapshot: false))
                    count += 1
                }
            }
        }
    }

    /// The positions of the live subvolumes and the paths found, of those only (a dead
    /// one's directory may be gone). The resolver, which holds the entries, goes on return.
    private func livePaths(_ entries: [Entry]) throws -> (live: [Int], paths: [String??]) {
        var resolver = PathResolver(directory: directory, entries: entries)
        var live: [Int] = []
        for position in entries.indices {
            guard let references = entries[position].item?.references, references > 0,
                entries[position].backReference?.parentID != nil, try resolver.path(at: position) != nil
            else { continue }
            live.append(position)
        }
        return (live, resolver.found())
    }

    /// A root item's fields; the uuids and times only when the item is of the current
    /// format and was last written by a kernel that knew them (generation_v2 matches).
    static func rootItem(_ data: UnsafeRawBufferPointer) -> RootItem? {
        guard data.count >= Int(carve_root_item_generation_v2.rawValue) else { return nil }
        func u64(_ offset: carve_root_item_offset) -> UInt64 {
            UInt64(littleEndian: data.loadUnaligned(fromByteOffset: Int(offset.rawValue), as: UInt64.self))
        }
        let generation = u64(carve_root_item_generation)
        let readOnly = u64(carve_root_item_flags) & 1 != 0
        let references = UInt32(
            littleEndian: data.loadUnaligned(fromByteOffset: Int(carve_root_item_refs.rawValue), as: UInt32.self))
        guard data.count >= Int(carve_root_item_size.rawValue), u64(carve_root_item_generation_v2) == generation else {
            return RootItem(
                generation: generation, readOnly: readOnly, references: references, uuid: nil, parentUUID: nil,
                receivedUUID: nil, created: Date(timeIntervalSince1970: 0))
        }
        // The 16 bytes at `offset` (inside the item: its size was checked above).
        func raw(_ offset: carve_root_item_offset) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: data.baseAddress! + Int(offset.rawValue), count: 16)
        }
        let otime = Int(carve_root_item_otime.rawValue)
        let seconds = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: otime, as: UInt64.self))
        let nanoseconds = UInt32(littleEndian: data.loadUnaligned(fromByteOffset: otime + 8, as: UInt32.self))
        // Made whole at the end: an item made first and filled in was copied (its strings
        // retained) to be returned, and the first one destroyed.
        return RootItem(
            generation: generation, createdGeneration: u64(carve_root_item_otransid), readOnly: readOnly,
            references: references, uuid: SubvolumeUUID(bytes: raw(carve_root_item_uuid)),
            parentUUID: SubvolumeUUID(bytes: raw(carve_root_item_parent_uuid)),
            receivedUUID: SubvolumeUUID(bytes: raw(carve_root_item_received_uuid)),
            created: Date(timeIntervalSince1970: Double(Int64(bitPattern: seconds)) + Double(nanoseconds) / 1e9))
    }

    /// A ROOT_BACKREF item: the directory of the parent holding the subvolume, and its name.
    static func backReference(_ data: UnsafeRawBufferPointer, parentID: UInt64) -> BackReference? {
        let nameOffset = Int(carve_root_ref_name_offset.rawValue)
        guard data.count >= nameOffset else { return nil }
        let directoryID = UInt64(littleEndian: data.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let nameLength = Int(UInt16(littleEndian: data.loadUnaligned(fromByteOffset: 16, as: UInt16.self)))
        guard data.count >= nameOffset + nameLength else { return nil }
        let name = ByteText.decode(UnsafeRawBufferPointer(rebasing: data[nameOffset..<nameOffset + nameLength]))
        return BackReference(parentID: parentID, directoryID: directoryID, name: name)
    }

    /// Paths from the top level, each parent's path and each directory looked up once.
    struct PathResolver {
        let directory: FileDescriptor
        let entries: [Entry]
        /// By entry position: nil not yet known, .some(nil) unreachable.
        private var paths: [String??]
        private var directoryPaths: [DirectoryKey: String] = [:]
        private var lastDirectory: (key: DirectoryKey, path: String)?

        struct DirectoryKey: Hashable { var subvolume: UInt64; var directory: UInt64 }

        init(directory: FileDescriptor, entries: [Entry]) {
            self.directory = directory
            self.entries = entries
            paths = Array(repeating: nil, count: entries.count)
        }

        /// The paths found so far, by entry position (nil not looked for, .some(nil)
        /// unreachable), handed over with the resolver.
        consuming func found() -> [String??] { paths }

        /// nil when the chain of back references does not reach the top level (a
        /// subvolume whose parent is being deleted).
        mutating func path(at position: Int) throws -> String? {
            if let known = paths[position] { return known }
            paths[position] = .some(nil) // a cycle, should one ever appear, ends here
            guard let reference = entries[position].backReference else { return nil }
            let parentPath: String?
            if reference.parentID == BtrfsKey.fsTree {
                parentPath = ""
            } else if let parent = self.position(of: reference.parentID) {
                parentPath = try path(at: parent)
            } else {
                parentPath = nil
            }
            guard let parentPath else { return nil }
            let path = Self.joined(
                parentPath, try directoryPath(reference.directoryID, in: reference.parentID), reference.name)
            paths[position] = .some(path)
            return path
        }

        /// `parent/directory+name` (`directory+name` at the top level) made as one string:
        /// joined a piece at a time, each piece made a string of its own.
        static func joined(_ parent: String, _ directory: String, _ name: String) -> String {
            var (parent, directory, name) = (parent, directory, name)
            return parent.withUTF8 { parent in
                directory.withUTF8 { directory in
                    name.withUTF8 { name in
                        let separator = parent.isEmpty ? 0 : 1
                        return String(
                            unsafeUninitializedCapacity: parent.count + separator + directory.count + name.count
                        ) { text in
                            var end = text.initialize(fromContentsOf: parent)
                            if separator == 1 {
                                text[end] = UInt8(ascii: "/")
                                end += 1
                            }
                            end =
                                UnsafeMutableBufferPointer(rebasing: text[end...]).initialize(fromContentsOf: directory)
                                + end
                            end =
                                UnsafeMutableBufferPointer(rebasing: text[end...]).initialize(fromContentsOf: name)
                                + end
                            return end
                        }
                    }
                }
            }
        }

        /// The entry of subvolume `id` (entries are in id order).
        private func position(of id: UInt64) -> Int? {
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < entries.count && entries[low].id == id ? low : nil
        }

        /// The directory's path inside its subvolume, with a trailing slash ("" for the
        /// subvolume's own root directory).
        private mutating func directoryPath(_ directoryID: UInt64, in subvolume: UInt64) throws -> String {
            if directoryID == BtrfsKey.firstFreeObjectID { return "" }
            let key = DirectoryKey(subvolume: subvolume, directory: directoryID)
            // Snapshots of one directory come one after another (their ids in turn): the
            // last directory answers most of them without hashing its key.
            if let last = lastDirectory, last.key == key { return last.path }
            let found =
                try directoryPaths[key] ?? InodeLookup.path(of: directoryID, inTree: subvolume, through: directory)
            directoryPaths[key] = found
            lastDirectory = (key, found)
            return found
        }
    }
}

/// BTRFS_IOC_INO_LOOKUP: the path of an inode inside its subvolume.
enum InodeLookup {
    static func path(of inode: UInt64, inTree tree: UInt64, through directory: FileDescriptor) throws -> String {
        let size = Int(carve_ino_lookup_size.rawValue)
        return try withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.storeBytes(of: tree, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: inode, toByteOffset: 8, as: UInt64.self)
            guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_INO_LOOKUP(), buffer.baseAddress) == 0 else {
                throw SystemCallError(
                    "cannot find directory \(inode) of subvolume \(tree) on \(directory.path)",
                    call: "ioctl(BTRFS_IOC_INO_LOOKUP)", errno: errno)
            }
            let name = UnsafeRawBufferPointer(rebasing: buffer[Int(carve_ino_lookup_name_offset.rawValue)...])
            return ByteText.decode(UnsafeRawBufferPointer(rebasing: name.prefix(while: { $0 != 0 })))
        }
    }
}
