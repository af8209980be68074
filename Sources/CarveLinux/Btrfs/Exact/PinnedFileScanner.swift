import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds the files behind the extents only a set of subvolumes holds (`PinnedExtents`):
/// reads the file extent items of each member that holds some of them first, only in
/// the tree blocks written since its search bound (`PinnedSearchBounds`: for a snapshot
/// of a series, what changed since the one before it), then whole the trees where that
/// left an extent without a file; names each file once (`InodeNames`). Read-only; the
/// tree search needs root.
struct PinnedFileScanner {
    let mountpoint: String

    /// What only `set` holds, from the filesystem's extent map `exact` and its `subvolumes`.
    func files(of set: [UInt64], subvolumes: [Volume], exact: ExactSizes) throws -> PinnedFiles {
        let started = Date()
        var extents = PinnedExtents(map: exact.map, deleting: set)
        let reclaim = exact.reclaim(deleting: set)
        guard !extents.isEmpty else { return PinnedFiles(files: [], reclaim: reclaim) }
        let directory = try FileDescriptor(directory: mountpoint)
        let trees = extents.firstHolders
        let bounds = PinnedSearchBounds.bounds(for: trees, in: subvolumes)
        var bytesRead = try read(trees, bounds: bounds, into: &extents, directory)
        let missed = extents.unattributedTrees
        if !missed.isEmpty { bytesRead += try read(missed, bounds: [:], into: &extents, directory) }
        var files = extents.files(lineages: PinnedExtents.lineages(of: subvolumes))
        try InodeNames.name(&files, through: directory)
        var pinned = PinnedFiles(files: files, reclaim: reclaim, unattributed: extents.unattributedBytes)
        pinned.scan = PinnedScanReport(
            trees: trees.count, whole: trees.filter { (bounds[$0] ?? 0) == 0 }.count, readAgain: missed.count,
            bytesRead: bytesRead, files: files.count, seconds: Date().timeIntervalSince(started))
        return pinned
    }

    /// Reads `trees` side by side, one worker per tree at a time, and attributes what
    /// they reference; a tree deleted meanwhile leaves its extents unattributed.
    /// Returns the bytes of tree items the searches returned.
    private func read(
        _ trees: [UInt64], bounds: [UInt64: UInt64], into extents: inout PinnedExtents, _ directory: FileDescriptor
    ) throws -> UInt64 {
        let workers = min(ExtentScanner.workers, trees.count)
        let searches = (0..<workers).map { _ in TreeSearch(directory) }
        let readings = Readings(count: trees.count)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let known = extents
        Threads.concurrentPerform(iterations: workers) { worker in
            while let index = readings.take() {
                let search = searches[worker]
                search.minimumTransaction = bounds[trees[index]] ?? 0
                readings.deliver(index, Self.references(in: trees[index], of: known, with: search, nodeSize: nodeSize))
            }
        }
        for reading in readings.all {
            if let error = reading.error { throw error }
            for (position, inode) in reading.found { extents.attribute(position, to: inode) }
        }
        return searches.reduce(0) { $0 + $1.bytesRead }
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
        private var next = 0
        private var stored: [Reading]

        init(count: Int) { stored = Array(repeating: Reading(), count: count) }

        func take() -> Int? {
            lock.withLock {
                guard next < stored.count else { return nil }
                next += 1
                return next - 1
            }
        }

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
        let listing = try subvolumes(of: filesystem, sizes: .exact)
        guard let scanned = listing.exact else { throw RuntimeError("\(filesystem.mountpoint): no exact sizes") }
        return try scanner.files(of: set, subvolumes: listing.subvolumes, exact: scanned)
    }
}
