import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds the files behind the extents only a set of subvolumes holds (`PinnedExtents`).
/// For each member that holds some of them first: asks btrfs for their files one by
/// one by their back references (`BackReferences`) when they are few beside its tree,
/// else reads its file extent items, only in the tree blocks written since its search
/// bound (`PinnedSearchBounds`: for a snapshot of a series, what changed since the one
/// before it). A tree where that left an extent without a file is then read whole.
/// Each file is named once (`InodeNames`). Read-only; needs root.
struct PinnedFileScanner {
    let mountpoint: String

    /// One worker's task: a tree to search from a transaction on, or extents to look up.
    enum Work {
        case search(tree: UInt64, from: UInt64)
        case lookUp(tree: UInt64, positions: ArraySlice<Int>)
    }

    /// Extents looked up in one task: enough to share them between workers, few enough
    /// that a task is not one worker's whole share.
    static let lookUpsPerTask = 256

    /// What only `set` holds, from the filesystem's extent map `exact` and its `subvolumes`.
    func files(of set: [UInt64], subvolumes: [Volume], exact: ExactSizes) throws -> PinnedFiles {
        let started = Date()
        var extents = PinnedExtents(map: exact.map, deleting: set)
        let reclaim = exact.reclaim(deleting: set)
        let directory = try FileDescriptor(directory: mountpoint)
        let checksums = try Self.checksumBytes(of: reclaim.data, directory)
        guard !extents.isEmpty else {
            var nothing = PinnedFiles(files: [], reclaim: reclaim)
            nothing.checksumBytes = checksums
            return nothing
        }
        var searched: [UInt64] = []
        var lookUps: [Work] = []
        let byTree = extents.positionsByFirstHolder
        for tree in extents.firstHolders {
            let positions = byTree[tree] ?? []
            guard
                PinnedSearchBounds.looksUpBackReferences(
                    extents: positions.count, treeBytes: exact.treeBytes[tree], nodeSize: exact.nodeSize)
            else {
                searched.append(tree)
                continue
            }
            for first in stride(from: 0, to: positions.count, by: Self.lookUpsPerTask) {
                let last = min(first + Self.lookUpsPerTask, positions.count)
                lookUps.append(.lookUp(tree: tree, positions: positions[first..<last]))
            }
        }
        let bounds = PinnedSearchBounds.bounds(for: searched, in: subvolumes)
        // Trees first: the longest tasks, started before the short ones fill the gaps.
        let work = searched.map { Work.search(tree: $0, from: bounds[$0] ?? 0) } + lookUps
        var bytesRead = try read(work, into: &extents, directory)
        let missed = extents.unattributedTrees
        if !missed.isEmpty {
            bytesRead += try read(missed.map { .search(tree: $0, from: 0) }, into: &extents, directory)
        }
        var files = extents.files(lineages: PinnedExtents.lineages(of: subvolumes))
        try InodeNames.name(&files, through: directory)
        var pinned = PinnedFiles(files: files, reclaim: reclaim, unattributed: extents.unattributedBytes)
        pinned.checksumBytes = checksums
        pinned.scan = PinnedScanReport(
            lookedUp: extents.count - searched.reduce(0) { $0 + (byTree[$1]?.count ?? 0) }, trees: searched.count,
            whole: searched.filter { (bounds[$0] ?? 0) == 0 }.count, readAgain: missed.count, bytesRead: bytesRead,
            files: files.count, seconds: Date().timeIntervalSince(started))
        return pinned
    }

    /// The checksums of `data` bytes on disk: a checksum of the filesystem's size
    /// (BTRFS_IOC_FS_INFO with its checksum information) per sector.
    static func checksumBytes(of data: UInt64, _ directory: FileDescriptor) throws -> UInt64 {
        var info = btrfs_ioctl_fs_info_args()
        info.flags = UInt64(BTRFS_FS_INFO_FLAG_CSUM_INFO)
        guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_FS_INFO(), &info) == 0 else {
            throw SystemCallError(
                "cannot read the btrfs filesystem of \(directory.path)", call: "ioctl(BTRFS_IOC_FS_INFO)", errno: errno)
        }
        guard info.sectorsize > 0 else { return 0 }
        return (data + UInt64(info.sectorsize) - 1) / UInt64(info.sectorsize) * UInt64(info.csum_size)
    }

    /// Does `work` side by side, a task per worker at a time, and attributes what it
    /// found; returns the bytes of tree items the searches returned. A tree deleted
    /// meanwhile, or an extent btrfs cannot resolve, leaves extents unattributed.
    private func read(_ work: [Work], into extents: inout PinnedExtents, _ directory: FileDescriptor) throws -> UInt64 {
        let workers = min(ExtentScanner.workers, work.count)
        let searches = (0..<workers).map { _ in TreeSearch(directory) }
        let lookUps = (0..<workers).map { _ in BackReferences(directory) }
        let readings = Readings(count: work.count)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let known = extents
        Threads.concurrentPerform(iterations: workers) { worker in
            while let index = readings.take() {
                switch work[index] {
                case .search(let tree, let bound):
                    searches[worker].minimumTransaction = bound
                    readings.deliver(
                        index, Self.references(in: tree, of: known, with: searches[worker], nodeSize: nodeSize))
                case .lookUp(let tree, let positions):
                    readings.deliver(index, Self.lookUp(positions, heldFirstBy: tree, of: known, with: lookUps[worker]))
                }
            }
        }
        for reading in readings.all {
            if let error = reading.error { throw error }
            for (position, inode) in reading.found { extents.attribute(position, to: inode) }
        }
        return searches.reduce(0) { $0 + $1.bytesRead }
    }

    /// The lowest inode of `tree` referencing each extent at `positions`.
    static func lookUp(
        _ positions: ArraySlice<Int>, heldFirstBy tree: UInt64, of extents: PinnedExtents, with lookUp: BackReferences
    ) -> Reading {
        var reading = Reading()
        for position in positions {
            var lowest = UInt64.max
            let complete = lookUp.forEach(of: extents.key(at: position).diskBytenr) { inode, subvolume in
                if subvolume == tree && inode < lowest { lowest = inode }
            }
            if complete && lowest != .max { reading.found.append((position, lowest)) }
        }
        return reading
    }

    /// One tree's references to the extents it holds first: (position, inode) pairs.
    static func references(
        in tree: UInt64, of extents: PinnedExtents, with search: TreeSearch, nodeSize: UInt64
    ) -> Reading {
        var reading = Reading()
        var next: TreeSearch.Key? = TreeSearch.Key(objectid: BtrfsKey.firstFreeObjectID, type: 0, offset: 0)
        let end = TreeSearch.Key(objectid: BtrfsKey.lastFreeObjectID, type: BtrfsKey.fileExtent, offset: .max)
        let room = TreeSearch.roomForAnyItem(nodeSize: nodeSize)
        do {
            while let from = next {
                next = try search.search(tree: tree, from: from, to: end, doneWhenRoomFor: room) { item in
                    guard item.type == BtrfsKey.fileExtent,
                        case .onDisk(let bytenr, let bytes) = ExtentScanner.FileExtent(item.data), bytenr != 0,
                        let position = extents.position(
                            of: ExtentKey(diskBytenr: bytenr, diskBytes: bytes), firstHeldBy: tree)
                    else { return }
                    reading.found.append((position, item.objectid))
                }
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            // Deleted since it was listed: its extents stay counted, unnamed.
        } catch {
            reading.error = error
        }
        return reading
    }

    struct Reading {
        var found: [(position: Int, inode: UInt64)] = []
        var error: (any Error)?
    }

    /// Hands out tree indices and keeps each tree's reading in its place.
    final class Readings: @unchecked Sendable {
        private let lock = Lock()
        private let taken: TakeNext
        private var stored: [Reading]

        init(count: Int) { stored = Array(repeating: Reading(), count: count); taken = TakeNext(count) }

        func take() -> Int? { taken.take() }

        func deliver(_ index: Int, _ reading: Reading) { lock.withLock { stored[index] = reading } }

        var all: [Reading] { lock.withLock { stored } }
    }
}

extension BtrfsSnapshotBackend: PinnedFileReading {
    /// The subvolumes come from the root tree (no owners, no mounts: the bounds and
    /// lineages need only ids, UUIDs and generations), unless there is no extent map
    /// yet, when the listing with exact sizes brings both.
    public func pinnedFiles(of set: [UInt64], on filesystem: Filesystem, exact: ExactSizes?) throws -> PinnedFiles {
        guard isRoot else { throw NeedsRootError("reading exact sizes (--sizes exact)") }
        let scanner = PinnedFileScanner(mountpoint: filesystem.mountpoint)
        if let exact { return try scanner.files(of: set, subvolumes: try everySubvolume(of: filesystem), exact: exact) }
        var listing = try subvolumes(of: filesystem, sizes: .exact)
        try finishListing(&listing, sizes: .exact)
        guard let scanned = listing.exact else { throw RuntimeError("\(filesystem.mountpoint): no exact sizes") }
        return try scanner.files(of: set, subvolumes: listing.subvolumes, exact: scanned)
    }
}
