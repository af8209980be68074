import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Exact sizes without quotas: reads the file extent items (key type 108) of every
/// subvolume's tree, including the top level's, and builds the extent map. Every
/// subvolume must be read, snapshot or not: any reference keeps an extent alive.
/// Read-only; the tree search needs root.
struct ExtentScanner {

    /// What one file extent item says, from its little-endian packed layout
    /// (struct btrfs_file_extent_item).
    enum FileExtent: Equatable {
        case inline(bytes: UInt64)
        /// Regular or preallocated: on disk at `diskBytenr` (0 for a hole), `diskBytes` long.
        case onDisk(diskBytenr: UInt64, diskBytes: UInt64)
        /// Too short or of an unknown type: skipped, counted as such.
        case malformed

        static let headerSize = 21 // generation, ram_bytes, compression, encryption, other_encoding, type

        init(_ item: UnsafeRawBufferPointer) {
            guard item.count >= Self.headerSize else { self = .malformed; return }
            switch item[20] {
            case 0:
                self = .inline(bytes: UInt64(item.count - Self.headerSize))
            case 1, 2:
                guard item.count >= Self.headerSize + 32 else { self = .malformed; return }
                self = .onDisk(diskBytenr: item.loadLE(at: 21), diskBytes: item.loadLE(at: 29))
            default:
                self = .malformed
            }
        }
    }

    let mountpoint: String
    let isRoot: Bool

    /// Trees read at once: one per processor, at most 8. Warm, the tree search is kernel
    /// work, one core per tree. A tree leaves out the directory entries its lineage's
    /// previous tree already showed (DirectoryHints), so trees read side by side leave
    /// out less: Dispatch's concurrentPerform, which this replaced, ran one per core
    /// (asked for 4 on 2 cores), and 4 real threads on 2 cores read 10,000 small trees
    /// in twice the time (0.30 s against 0.15 s) and left fewer entries out.
    static let workers = min(8, max(2, Threads.availableProcessors))

    /// One tree's file extent references, read by one worker.
    struct TreeReading {
        var references: [ExtentKey] = []
        var inlineBytes: UInt64 = 0
        var hasInline = false
        var leafBytes: UInt64 = 0
        var fileExtents = 0
        var malformed = 0
        var bytesRead: UInt64 = 0
        var items = 0
        /// Deleted since it was listed: its references are on their way out with it.
        var gone = false
        var error: (any Error)?
    }

    /// The extent map's order of `ids`: the top level, the read-only trees by id
    /// (creation order), then the `writable` ones by id. A writable subvolume holds what
    /// its newest snapshot holds plus what changed since, so right after that snapshot
    /// an extent it shares with its snapshots stays one run; numbered by id, before its
    /// snapshots, each extent written since the first snapshot took a second run, a heap
    /// array of its own (on 1 M files and 50 snapshots, some 400,000 of them). Read-only
    /// trees stay in id order, as the cache's translation between numberings needs.
    static func mapOrder(_ ids: [UInt64], writable: Set<UInt64>) -> [UInt64] {
        // Each id's place looked up once, not twice per comparison of the sort.
        let sorted = Set(ids).sorted()
        return sorted.filter { $0 == BtrfsKey.fsTree || !writable.contains($0) }
            + sorted.filter { $0 != BtrfsKey.fsTree && writable.contains($0) }
    }

    /// Scans `subvolumes` (the top level is added) of the filesystem mounted at `mountpoint`.
    /// Each worker reads the next tree not yet taken; the readings are merged into the map
    /// in id order as they come, so memory holds the map plus one reading per worker,
    /// and the map is the same whichever worker was faster.
    /// `lineages` names, per subvolume id, the subvolume it shares inode numbers with
    /// (its source's UUID for a snapshot, its own otherwise): trees of one lineage are
    /// read around the directories found in the previous one (`DirectoryHints`).
    /// `cached` and `reused`: read-only trees known from the cache (`ExactSizesCache.reusable`),
    /// which are not read again.
    func scan(
        subvolumes ids: [UInt64], lineages: [UInt64: String] = [:],
        progress: (@Sendable (ExtentScanProgress) -> Void)? = nil,
        cached: consuming ExactSizesCache? = nil, reused: [UInt64: Int] = [:], hints: DirectoryHints = DirectoryHints(),
        writable: Set<UInt64> = []
    ) throws -> ExactSizes {
        guard isRoot else { throw NeedsRootError.exactSizes }
        let started = Date()
        let directory = try FileDescriptor(directory: mountpoint)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let every = Self.mapOrder(ids + [BtrfsKey.fsTree], writable: writable)
        var seed: ExactSizes?
        // Taken out of the parameter, so that the seeded map takes over its extents
        // rather than copying them.
        if var cache = cached.take(), cache.nodeSize == nodeSize {
            seed = cache.seed(subvolumes: every, reused: reused)
        }
        let trees = seed == nil ? every : every.filter { reused[$0] == nil }
        let cachedSubvolumes = seed?.scan.cachedSubvolumes ?? 0
        // Handed over, not copied: a map still held here as well would be copied whole
        // (its extents, sets and index) by the first tree merged into it.
        let merge = OrderedMerge(
            trees: trees,
            seed: seed.take() ?? ExactSizes(map: ExtentMap(subvolumes: every), scan: .init(), nodeSize: nodeSize),
            window: Self.workers, progress: progress)
        merge.cancellation = ExtentScanObserver.cancellation
        let searches = (0..<Self.workers).map { _ in TreeSearch(directory) }
        Threads.concurrentPerform(iterations: min(Self.workers, trees.count)) { worker in
            while let index = merge.take() {
                let tree = trees[index]
                merge.deliver(
                    index,
                    TreeReader.read(
                        tree: tree, lineage: lineages[tree], with: searches[worker], hints: hints, nodeSize: nodeSize))
            }
        }
        let result = try merge.result()
        if result.malformed > 0 {
            throw RuntimeError(
                "\(mountpoint): \(result.malformed) file extent items could not be read; exact sizes would be wrong")
        }
        let report = ExtentScanReport(
            subvolumes: trees.count, items: result.items, fileExtentItems: result.fileExtents,
            bytesRead: result.bytesRead, seconds: Date().timeIntervalSince(started),
            cachedSubvolumes: cachedSubvolumes)
        return ExactSizes(map: result.map, scan: report, nodeSize: nodeSize, treeBytes: result.treeBytes)
    }
}

extension BtrfsSnapshotBackend {
    /// Fills the listing's sizes from a scan of every subvolume's extents, taking the
    /// read-only trees the cache knows from it and keeping the new ones there. A cache
    /// that cannot be read is rebuilt (a note under --verbose); one that cannot be
    /// written leaves the sizes exact and costs the next run a full scan (one warning).
    func attachExactSizes(to listing: inout VolumeListing) throws {
        let options = ExactScanOptions.current
        let store = options.useCache ? ExactSizesCacheStore.fromEnvironment() : nil
        let uuid = listing.filesystem.uuid
        var cached: ExactSizesCache?
        var notes: [String] = []
        switch store?.load(filesystem: uuid) {
        case .found(let cache)?: cached = cache
        case .unusable(let why)?: notes.append("exact sizes cache not used, rebuilt: \(why)")
        case .missing?, nil: break
        }
        let scanner = ExtentScanner(mountpoint: listing.filesystem.mountpoint, isRoot: isRoot)
        var lineages: [UInt64: String] = [:]
        var ids: [UInt64] = []
        var writable = Set<UInt64>()
        lineages.reserveCapacity(listing.subvolumes.count); ids.reserveCapacity(listing.subvolumes.count)
        // Fields read in place: iterating by value copied each of ten thousand (fat) subvolumes.
        for index in listing.subvolumes.indices {
            let id = listing.subvolumes[index].id
            lineages[id] = listing.subvolumes[index].parentUUID ?? listing.subvolumes[index].uuid
            ids.append(id)
            if !listing.subvolumes[index].readOnly { writable.insert(id) }
        }
        let reused = cached?.reusable(for: listing.subvolumes) ?? [:]
        let hints = DirectoryHints((cached?.directoryHints ?? [:]).mapValues { $0.map(DirectoryHints.Directory.init) })
        let cachedKeys = cached?.keys
        // The cache is handed over, not kept here: the map takes over its extents.
        var exact = try scanner.scan(
            subvolumes: ids, lineages: lineages, progress: ExtentScanObserver.current,
            cached: cached.take(), reused: reused, hints: hints, writable: writable)
        if let store, ExactSizesCache.keys(keeping: listing.subvolumes, of: exact) != cachedKeys {
            exact.map.shrinkToFit()
            let bytes = ExactSizesCache.encoded(
                filesystem: uuid, keeping: listing.subvolumes, of: exact,
                directoryHints: hints.all.mapValues { $0.map(\.hint) })
            do {
                try store.save(filesystem: uuid, encoded: bytes)
            } catch {
                if CacheWarning.first() {
                    listing.warnings.append(
                        "\(error): sizes are exact, but the next run reads every snapshot's tree again")
                }
            }
        }
        exact.notes = notes
        listing.attach(exact)
    }
}

/// A cache that cannot be written is said once a run, not once per filesystem.
enum CacheWarning {
    private static let lock = Lock()
    nonisolated(unsafe) private static var given = false

    static func first() -> Bool {
        lock.lock(); defer { lock.unlock() }
        defer { given = true }
        return !given
    }
}

extension DirectoryHints.Directory {
    init(_ hint: ExactSizesCache.DirectoryHint) {
        self.init(id: hint.id, leafBytesPerSizeByte: hint.leafBytesPerSizeByte, entryLeafBytes: hint.entryLeafBytes)
    }

    var hint: ExactSizesCache.DirectoryHint {
        .init(id: id, leafBytesPerSizeByte: leafBytesPerSizeByte, entryLeafBytes: entryLeafBytes)
    }
}
