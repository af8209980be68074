/// What the exact scan learnt of a filesystem's read-only snapshot trees, kept between
/// runs: a read-only tree cannot change while its generation stays (making it writable
/// and writing moves the generation), so a tree whose UUID and generation match is
/// not read again. The trees share one extent table, each extent with the set of trees
/// that reference it as runs (neighbouring snapshots share almost every extent, so
/// most sets are one run): a series costs about what its distinct extents cost.
public struct ExactSizesCache: Sendable, Hashable {
    /// One cached tree: the subvolume it was read from and what its reading gave
    /// besides its extents.
    public struct Tree: Sendable, Hashable {
        public var id: UInt64
        public var uuid: SubvolumeUUID
        public var generation: UInt64
        public var inlineBytes: UInt64
        public var hasInline: Bool
        /// `ExactSizes.treeBytes` of it.
        public var treeBytes: UInt64
        /// A writable tree's inodes, read again next run only where they changed; nil
        /// for a read-only tree, which is kept whole while its generation stays.
        public var state: WritableTreeState?
        /// True when it has a `state` (asked without copying the state, as `state != nil` did).
        public var isWritable: Bool {
            switch state {
            case .some: true
            case .none: false
            }
        }
        public init(
            id: UInt64, uuid: SubvolumeUUID, generation: UInt64, inlineBytes: UInt64 = 0, hasInline: Bool = false,
            treeBytes: UInt64 = 0, state: WritableTreeState? = nil
        ) {
            self.id = id; self.uuid = uuid; self.generation = generation; self.inlineBytes = inlineBytes
            self.hasInline = hasInline; self.treeBytes = treeBytes; self.state = state
        }
    }

    /// A directory whose entries the next read of its lineage's trees leaves out
    /// (CarveLinux's DirectoryHints): kept so that a run reading only the writable
    /// subvolume, with no snapshot of its lineage read before it, still leaves them out.
    public struct DirectoryHint: Sendable, Hashable {
        public var id: UInt64
        public var leafBytesPerSizeByte: Double
        public var entryLeafBytes: UInt64
        public init(id: UInt64, leafBytesPerSizeByte: Double, entryLeafBytes: UInt64) {
            self.id = id; self.leafBytesPerSizeByte = leafBytesPerSizeByte; self.entryLeafBytes = entryLeafBytes
        }
    }

    /// The filesystem's UUID: a file found under another name is not used.
    public var filesystem: String
    public var nodeSize: UInt64
    /// In the extent map's order (`ExtentMap.order`): the top level, the read-only trees
    /// by id, then the writable trees kept with their state, by id.
    public internal(set) var trees: [Tree]
    /// The extents, ascending by bytenr, and the indices in `trees` of those that reference each.
    var extents: [ExtentKey]
    var sets: [SubvolumeSet]
    /// By lineage (a source subvolume's UUID), ascending by id.
    public var directoryHints: [SubvolumeUUID: [DirectoryHint]] = [:]

    init(filesystem: String, nodeSize: UInt64, trees: [Tree], extents: [ExtentKey], sets: [SubvolumeSet]) {
        self.filesystem = filesystem; self.nodeSize = nodeSize; self.trees = trees
        self.extents = extents; self.sets = sets
    }

    /// The index of the cached tree `id`, if any.
    public func index(of id: UInt64) -> Int? {
        // By bisection of the read-only trees (ascending by id after the top level), then
        // among the few writable ones: hashing ten thousand UUID strings cost more than the rest.
        // Through the buffer: a tree read through the array's subscript was copied, its state too.
        trees.withUnsafeBufferPointer { trees in
            var low = trees.first?.id == ExtentMap.topLevel ? 1 : 0
            if low == 1 && id == ExtentMap.topLevel { return 0 }
            var end = trees.count
            while end > low, trees[end - 1].isWritable {
                if trees[end - 1].id == id { return end - 1 }
                end -= 1
            }
            var high = end
            while low < high {
                let middle = (low + high) / 2
                if trees[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < end && trees[low].id == id ? low : nil
        }
    }

    /// The subvolumes of `subvolumes` whose tree is cached: read-only, same id, UUID
    /// and generation. By subvolume id, the index of its cached tree.
    public func reusable(for subvolumes: [Volume]) -> [UInt64: Int] {
        var found: [UInt64: Int] = [:]
        found.reserveCapacity(subvolumes.count)
        // Fields read through the buffers: iterating by value, or through the arrays'
        // subscripts, copied every (fat) subvolume and every cached tree.
        trees.withUnsafeBufferPointer { trees in
            subvolumes.withUnsafeBufferPointer { volumes in
                // Both ascend by id most often: the tree after the last one found is tried
                // before a bisection (whose steps each missed the cache, trees being large).
                var next = 0
                for volume in volumes.indices where volumes[volume].readOnly {
                    let id = volumes[volume].id
                    guard let index = next < trees.count && trees[next].id == id ? next : index(of: id),
                        !trees[index].isWritable, trees[index].generation == volumes[volume].generation,
                        trees[index].uuid == volumes[volume].uuid
                    else { continue }
                    found[id] = index
                    next = index + 1
                }
            }
        }
        return found
    }

    /// The extent map of `subvolumes` (every tree of the scan, the read-only ones
    /// ascending by id among them, as the cache numbers its trees) holding the
    /// cached trees of `reused` (as `reusable` gives), with their tree sizes and counts;
    /// the other trees are then read into it. The cache hands its extents to the map
    /// and keeps none (its trees and hints stay): on 1.5 M extents, holding both
    /// copies while the map was built cost 48 MB at the peak.
    /// `carried`: writable trees (as `reused`) whose references are taken over too, to be
    /// changed where their files changed; their tree sizes are not (they are read again).
    public mutating func seed(subvolumes: [UInt64], reused: [UInt64: Int], carried: [UInt64: Int] = [:]) -> ExactSizes {
        var treeBytes: [UInt64: UInt64] = [:]
        treeBytes.reserveCapacity(reused.count + carried.count)
        var inline: [(UInt64, UInt64)] = []
        var target = [Int](repeating: -1, count: trees.count)
        // Most runs carry no writable tree over, and then that table is not asked. A
        // tree's fields are read in place (a copy of each, three strings, cost more).
        let carries = !carried.isEmpty
        for (position, id) in subvolumes.enumerated() {
            if carries, let index = carried[id] {
                target[index] = position
                if trees[index].hasInline { inline.append((id, trees[index].inlineBytes)) }
            }
            guard let index = reused[id] else { continue }
            target[index] = position
            if trees[index].hasInline { inline.append((id, trees[index].inlineBytes)) }
            treeBytes[id] = trees[index].treeBytes
        }
        let translation = IndexTranslation(target)
        // Taken out first, so that the arrays have one owner and change in place.
        var keys = extents, moved = sets
        extents = []; sets = []
        // Nothing renumbered (a run after one that changed nothing): every set stays as it
        // is, and a million and a half of them are not rebuilt one by one.
        if !translation.isIdentity {
            var kept = 0
            for index in keys.indices {
                guard let set = translation.apply(moved[index]) else { continue }
                keys[kept] = keys[index]; moved[kept] = set
                kept += 1
            }
            keys.removeLast(keys.count - kept); moved.removeLast(moved.count - kept)
        }
        var map = ExtentMap(subvolumes: subvolumes, keys: keys, sets: moved)
        for (id, bytes) in inline { map.addInline(subvolume: id, bytes: bytes) }
        let report = ExtentScanReport(cachedSubvolumes: reused.count)
        return ExactSizes(map: map, scan: report, nodeSize: nodeSize, treeBytes: treeBytes)
    }

    /// A tree as the cache knows it: its id, UUID and generation.
    public struct TreeKey: Sendable, Hashable {
        var id: UInt64
        var generation: UInt64
        var uuid: SubvolumeUUID
    }

    /// The read-only trees by (id, UUID, generation), ascending by id: two caches of the same keys
    /// hold the same content, so a run that read nothing new need not write. A sorted
    /// list, not a set of strings: ten thousand keys were ten thousand strings made and hashed.
    public var keys: [TreeKey] {
        var keys: [TreeKey] = []
        keys.reserveCapacity(trees.count)
        trees.withUnsafeBufferPointer { trees in
            for index in trees.indices where !trees[index].isWritable {
                keys.append(TreeKey(id: trees[index].id, generation: trees[index].generation, uuid: trees[index].uuid))
            }
        }
        return Self.keys(keys)
    }

    /// The keys a cache of `subvolumes` would have after `exact` (as `init(keeping:of:)`
    /// keeps them), without building it: a run that read nothing new writes nothing.
    public static func keys(keeping subvolumes: [Volume], of exact: ExactSizes) -> [TreeKey] {
        var kept: [TreeKey] = []
        kept.reserveCapacity(subvolumes.count)
        // By index: iterating by value copied every (fat) subvolume.
        for index in subvolumes.indices where subvolumes[index].readOnly {
            let id = subvolumes[index].id
            guard exact.treeBytes[id] != nil else { continue }
            kept.append(TreeKey(id: id, generation: subvolumes[index].generation, uuid: subvolumes[index].uuid))
        }
        return Self.keys(kept)
    }

    private static func keys(_ trees: [TreeKey]) -> [TreeKey] {
        trees.sorted { $0.id < $1.id }
    }

    public var extentCount: Int { extents.count }
}

/// Moves subvolume sets from one numbering to another that keeps the order (a cache's
/// trees to a scan's, or back), dropping members that have no place there. A run whose
/// members land on consecutive places stays one run: one step per run, not per member.
struct IndexTranslation {
    private let target: [Int]
    /// For each index, the last index of the stretch from it whose targets are consecutive.
    private let stretchEnd: [Int]

    /// Every index keeps its number: `apply` gives back the set it is given (a set
    /// holds no index beyond the trees, as the cache's decoding makes sure).
    let isIdentity: Bool

    /// `target[i]`: the new index of old index `i`, or -1 when it has none; increasing where set.
    init(_ target: [Int]) {
        self.target = target
        isIdentity = target.indices.allSatisfy { target[$0] == $0 }
        var ends = [Int](repeating: 0, count: target.count)
        var index = target.count - 1
        while index >= 0 {
            let next = index + 1
            ends[index] =
                next < target.count && target[index] >= 0 && target[next] == target[index] + 1 ? ends[next] : index
            index -= 1
        }
        stretchEnd = ends
    }

    /// Whether any member of `set` has a place in the new numbering (`apply` gives a set).
    func keepsAny(of set: SubvolumeSet) -> Bool {
        var found = false
        set.forEachRun { lower, upper in
            guard !found else { return }
            var index = Int(lower)
            let last = min(Int(upper), target.count - 1)
            while index <= last {
                if target[index] >= 0 { found = true; return }
                index += 1
            }
        }
        return found
    }

    func apply(_ set: SubvolumeSet) -> SubvolumeSet? {
        var result: SubvolumeSet?
        set.forEachRun { lower, upper in
            var index = Int(lower)
            let last = min(Int(upper), target.count - 1)
            while index <= last {
                guard target[index] >= 0 else { index += 1; continue }
                let end = min(stretchEnd[index], last)
                let (from, to) = (UInt32(target[index]), UInt32(target[end]))
                if result == nil { result = SubvolumeSet(from, to) } else { result!.append(from, to) }
                index = end + 1
            }
        }
        return result
    }
}
