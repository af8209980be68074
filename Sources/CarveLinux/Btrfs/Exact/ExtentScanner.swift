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
        var references = PackedReferences()
        var inlineBytes: UInt64 = 0
        var hasInline = false
        var leafBytes: UInt64 = 0
        var fileExtents = 0
        var malformed = 0
        var bytesRead: UInt64 = 0
        var items = 0
        /// Deleted since it was listed: its references are on their way out with it.
        var gone = false
        /// A writable tree's inode records, when its state is to be kept.
        var records: InodeRecords?
        var error: (any Error)?
    }

    /// The extent map's order of `ids` (`ExtentMap.order`).
    static func mapOrder(_ ids: [UInt64], writable: Set<UInt64>) -> [UInt64] {
        ExtentMap.order(ids, writable: writable)
    }

    /// What a scan gives: the sizes, and the writable trees' states to keep (their
    /// read's generations are the caller's to set, from `LiveTrees`).
    struct Outcome {
        var exact: ExactSizes
        var states: [UInt64: WritableTreeState] = [:]
        /// The states that are new (the others are the cache's, unchanged).
        var fresh = Set<UInt64>()
    }

    /// Scans `subvolumes` (the top level is added) of the filesystem mounted at `mountpoint`.
    /// Each worker reads the next tree not yet taken; the readings are merged into the map
    /// in id order as they come, so memory holds the map plus one reading per worker,
    /// and the map is the same whichever worker was faster.
    /// `lineages` names, per subvolume id, the subvolume it shares inode numbers with
    /// (its source's UUID for a snapshot, its own otherwise): trees of one lineage are
    /// read around the directories found in the previous one (`DirectoryHints`).
    /// `cached` and `reused`: read-only trees known from the cache (`ExactSizesCache.reusable`),
    /// which are not read again; `plan`: trees read only where they changed since the
    /// cache's writable tree states (`IncrementalPlan`), first, on the seeded map.
    /// `keepingRecords`: writable trees read whole whose inode records are kept.
    func scan(
        subvolumes ids: [UInt64], lineages: [UInt64: SubvolumeUUID] = [:],
        progress: (@Sendable (ExtentScanProgress) -> Void)? = nil,
        cached: consuming ExactSizesCache? = nil, reused: [UInt64: Int] = [:], hints: DirectoryHints = DirectoryHints(),
        writable: Set<UInt64> = [], plan: IncrementalPlan = IncrementalPlan(), keepingRecords: Set<UInt64> = []
    ) throws -> Outcome {
        guard isRoot else { throw NeedsRootError.exactSizes }
        let started = Date()
        let directory = try FileDescriptor(directory: mountpoint)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let every = Self.mapOrder(ids + [BtrfsKey.fsTree], writable: writable)
        var seed: ExactSizes?
        var chains = ChainReads.Outcome()
        // Taken out of the parameter, so that the seeded map takes over its extents
        // rather than copying them.
        if var cache = cached.take(), cache.nodeSize == nodeSize {
            seed = cache.seed(subvolumes: every, reused: reused, carried: plan.carried)
            if !plan.chains.isEmpty { Allocator.giveLargeBlocksBack() }
            let searches = (0..<Self.workers).map { _ in TreeSearch(directory) }
            chains = try ChainReads { TreeChanges(tree: $0, searches: searches, nodeSize: nodeSize) }
                .run(plan, cache: cache, into: &seed!)
        }
        let derived = seed == nil ? [] : plan.derived
        let trees = seed == nil ? every : every.filter { reused[$0] == nil && !derived.contains($0) }
        let cachedSubvolumes = seed?.scan.cachedSubvolumes ?? 0
        if !trees.isEmpty { Allocator.giveLargeBlocksBack() }
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
                        tree: tree, lineage: lineages[tree], with: searches[worker], hints: hints, nodeSize: nodeSize,
                        keepsRecords: keepingRecords.contains(tree)))
            }
        }
        let result = try merge.result()
        let malformed = result.malformed + chains.malformed
        if malformed > 0 {
            throw RuntimeError(
                "\(mountpoint): \(malformed) file extent items could not be read; exact sizes would be wrong")
        }
        let report = ExtentScanReport(
            subvolumes: trees.count + chains.trees, items: result.items + chains.items,
            fileExtentItems: result.fileExtents, bytesRead: result.bytesRead + chains.bytesRead,
            seconds: Date().timeIntervalSince(started), cachedSubvolumes: cachedSubvolumes,
            changedSubvolumes: chains.trees)
        var outcome = Outcome(
            exact: ExactSizes(map: result.map, scan: report, nodeSize: nodeSize, treeBytes: result.treeBytes),
            states: chains.states, fresh: chains.fresh)
        for (tree, kept) in result.records {
            outcome.fresh.insert(tree)
            outcome.states[tree] = WritableTreeState(
                readFrom: 0, readUntil: 0, records: kept.records, repeated: kept.repeated)
        }
        return outcome
    }
}
