import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Names pinned files: one tree search per file for its own items (the inode item's
/// link count, its names as INODE_REF and INODE_EXTREF items: a name and the
/// directory holding it), and one BTRFS_IOC_INO_LOOKUP per directory for the
/// directory's path, remembered for the other files in it. A file is named in the
/// newest member of the set that has it (`PinnedFile.namingCandidates`): most files of
/// a series are then named in one snapshot, a directory looked up once.
struct InodeNames {
    private let directory: FileDescriptor
    private let search: TreeSearch
    /// Directory paths by (tree, directory inode): "a/b/", "" for the subvolume's root.
    private var directories: [Place: String?] = [:]

    private struct Place: Hashable {
        var tree: UInt64
        var inode: UInt64
    }

    /// One inode as its items describe it.
    struct Inode {
        var links: Int
        /// Its first name and the directory holding it; nil when it has none left.
        var name: (directory: UInt64, name: String)?
    }

    /// Room for any item: when a search leaves this much, it found all there was.
    private let room: Int

    private init(_ directory: FileDescriptor, nodeSize: UInt64) {
        self.directory = directory
        search = TreeSearch(directory)
        room = TreeSearch.roomForAnyItem(nodeSize: nodeSize)
    }

    /// Fills each file's `path`, `links` and `namedIn`, side by side on the scan's workers.
    static func name(_ files: inout [PinnedFile], through directory: FileDescriptor) throws {
        let workers = min(ExtentScanner.workers, max(1, files.count / 64))
        let box = Named(files)
        let nodeSize = try TreeSearch.nodeSize(directory)
        Threads.concurrentPerform(iterations: workers) { worker in
            var names = InodeNames(directory, nodeSize: nodeSize)
            for index in stride(from: worker, to: box.count, by: workers) {
                do { try box.update(index) { try names.name(&$0) } } catch { box.fail(error) }
            }
        }
        files = try box.result()
    }

    private mutating func name(_ file: inout PinnedFile) throws {
        let candidates = file.namingCandidates
        for tree in candidates {
            guard let inode = try inode(file.inode, in: tree) else { continue }
            file.namedIn.id = tree
            file.links = inode.links
            if let (parent, name) = inode.name, let place = try path(of: parent, in: tree) {
                file.path = place + name
            }
            return
        }
        file.namedIn.id = candidates[0]
    }

    /// The inode's items in `tree`; nil when the tree has no such inode.
    private func inode(_ number: UInt64, in tree: UInt64) throws -> Inode? {
        var found: Inode?
        let from = TreeSearch.Key(objectid: number, type: BtrfsKey.inodeItem, offset: 0)
        let to = TreeSearch.Key(objectid: number, type: BtrfsKey.inodeExtref, offset: .max)
        do {
            // One call: an inode's items fit the buffer, which then keeps room for any item.
            var next: TreeSearch.Key? = from
            while let start = next {
                next = try search.search(tree: tree, from: start, to: to, doneWhenRoomFor: room) { item in
                    switch item.type {
                    case BtrfsKey.inodeItem where item.data.count >= 44:
                        // struct btrfs_inode_item: nlink at 40.
                        let links = UInt32(littleEndian: item.data.loadUnaligned(fromByteOffset: 40, as: UInt32.self))
                        found = Inode(links: Int(links), name: nil)
                    case BtrfsKey.inodeRef where found != nil && found?.name == nil:
                        // struct btrfs_inode_ref: index, name_len, then the name; the directory is the offset.
                        found?.name = Self.name(in: item.data, at: 8, directory: item.offset)
                    case BtrfsKey.inodeExtref where found != nil && found?.name == nil:
                        // struct btrfs_inode_extref: parent_objectid, index, name_len, then the name.
                        guard item.data.count >= 18 else { return }
                        found?.name = Self.name(in: item.data, at: 16, directory: item.data.loadLE(at: 0))
                    default: break
                    }
                }
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            return nil // the tree is gone
        }
        return found
    }

    /// The name whose 16-bit length is at `offset`, the bytes right after it.
    static func name(
        in data: UnsafeRawBufferPointer, at offset: Int, directory: UInt64
    ) -> (directory: UInt64, name: String)? {
        guard data.count >= offset + 2 else { return nil }
        let length = Int(UInt16(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        guard length > 0, data.count >= offset + 2 + length else { return nil }
        return (
            directory, ByteText.decode(UnsafeRawBufferPointer(rebasing: data[(offset + 2)..<(offset + 2 + length)]))
        )
    }

    /// The path of directory `inode` inside `tree`, ending in "/" ("" for the root), or nil.
    private mutating func path(of inode: UInt64, in tree: UInt64) throws -> String? {
        let place = Place(tree: tree, inode: inode)
        if let known = directories[place] { return known }
        var path: String?
        if inode == BtrfsKey.firstFreeObjectID {
            path = ""
        } else {
            do {
                let found = try InodeLookup.path(of: inode, inTree: tree, through: directory)
                path = found.isEmpty || found.hasSuffix("/") ? found : found + "/"
            } catch let error as SystemCallError where error.errno == ENOENT {
                path = nil
            }
        }
        directories[place] = path
        return path
    }

    /// The files being named, shared by the workers (each touches its own indices).
    private final class Named: @unchecked Sendable {
        private let lock = Lock()
        private var files: [PinnedFile]
        private var error: (any Error)?
        let count: Int

        init(_ files: [PinnedFile]) { self.files = files; count = files.count }

        func update(_ index: Int, _ body: (inout PinnedFile) throws -> Void) throws {
            var file = lock.withLock { files[index] }
            try body(&file)
            lock.withLock { files[index] = file }
        }

        func fail(_ failure: any Error) { lock.withLock { if error == nil { error = failure } } }

        func result() throws -> [PinnedFile] {
            try lock.withLock {
                if let error { throw error }
                return files
            }
        }
    }
}
