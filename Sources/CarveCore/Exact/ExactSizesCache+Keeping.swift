/// What a run keeps of its extent map in the cache: the read-only trees it read whole and
/// the writable trees with their states, built as a cache or written straight to the file.
extension ExactSizesCache {
    /// A writable tree to keep with its state: the top level is not among a listing's
    /// subvolumes, so its UUID and generation come with it.
    public struct KeptState: Sendable {
        public var id: UInt64
        public var uuid: SubvolumeUUID
        public var generation: UInt64
        public var state: WritableTreeState
        public init(id: UInt64, uuid: SubvolumeUUID, generation: UInt64, state: WritableTreeState) {
            self.id = id; self.uuid = uuid; self.generation = generation; self.state = state
        }
    }

    /// What to keep of `exact`: the trees of `subvolumes` that are read-only and were
    /// read whole (a tree deleted during the scan has no `treeBytes`), and the writable
    /// trees of `states`.
    public init(filesystem: String, keeping subvolumes: [Volume], of exact: ExactSizes, states: [KeptState] = []) {
        let (skeleton, kept) = Self.keeping(filesystem: filesystem, subvolumes, of: exact, states)
        self = skeleton
        extents.reserveCapacity(kept.count); self.sets.reserveCapacity(kept.count)
        for (key, set) in kept {
            extents.append(key); self.sets.append(set)
        }
    }

    /// The file `init(filesystem:keeping:of:states:)` with `directoryHints` would encode to,
    /// written straight from the map, which `keeping` settles first (`ExtentMap.settle`;
    /// a caller settles its own, so that it is not copied): a run that writes the
    /// cache holds the map and the file, no sorted copy of the extents besides (48 bytes
    /// an extent: 72 MB at 1.5 M extents).
    public static func encoded(
        filesystem: String, keeping subvolumes: [Volume], of exact: ExactSizes, states: [KeptState] = [],
        directoryHints: [SubvolumeUUID: [DirectoryHint]]
    ) -> [UInt8] {
        let (skeleton, kept) = keeping(filesystem: filesystem, subvolumes, of: exact, states)
        var withHints = skeleton
        withHints.directoryHints = directoryHints
        return withHints.encoded(extentCount: kept.count, kept)
    }

    /// The cache's trees with no extents yet, and the extents of the settled map it keeps
    /// (those some kept tree references) in ascending order.
    private static func keeping(
        filesystem: String, _ subvolumes: [Volume], of exact: ExactSizes, _ states: [KeptState]
    ) -> (ExactSizesCache, KeptExtents) {
        // A copy only when the caller did not settle its own map.
        var exact = exact
        exact.map.settle()
        var trees: [UInt64: Tree] = [:]
        for subvolume in subvolumes where subvolume.readOnly {
            guard let treeBytes = exact.treeBytes[subvolume.id] else { continue }
            let inline = exact.map.inlineBytes[subvolume.id]
            trees[subvolume.id] = Tree(
                id: subvolume.id, uuid: subvolume.uuid, generation: subvolume.generation,
                inlineBytes: inline ?? 0, hasInline: inline != nil, treeBytes: treeBytes)
        }
        for kept in states {
            trees[kept.id] = Tree(
                id: kept.id, uuid: kept.uuid, generation: kept.generation, inlineBytes: kept.state.inlineBytes,
                hasInline: kept.state.inlineRecords > 0, treeBytes: exact.treeBytes[kept.id] ?? 0, state: kept.state)
        }
        let order = ExtentMap.order(Array(trees.keys), writable: Set(states.map(\.id)))
        var cacheIndex: [UInt64: Int] = [:]
        for (index, id) in order.enumerated() { cacheIndex[id] = index }
        let translation = IndexTranslation(exact.map.subvolumeIDs.map { cacheIndex[$0] ?? -1 })
        let skeleton = ExactSizesCache(
            filesystem: filesystem, nodeSize: exact.nodeSize, trees: order.map { trees[$0]! }, extents: [], sets: [])
        return (skeleton, KeptExtents(keys: exact.map.keys, sets: exact.map.sets, translation: translation))
    }

    /// The extents of a settled map that some kept tree references, in the map's
    /// (ascending) order, with their sets in the cache's numbering, found as they are
    /// walked: a list of their positions was 4 bytes an extent more at the peak.
    struct KeptExtents: Sequence {
        let keys: [ExtentKey]
        let sets: [SubvolumeSet]
        let translation: IndexTranslation
        let count: Int

        init(keys: [ExtentKey], sets: [SubvolumeSet], translation: IndexTranslation) {
            self.keys = keys; self.sets = sets; self.translation = translation
            count = sets.reduce(0) { $0 + (translation.keepsAny(of: $1) ? 1 : 0) }
        }

        struct Iterator: IteratorProtocol {
            let kept: KeptExtents
            var position = 0

            mutating func next() -> (ExtentKey, SubvolumeSet)? {
                while position < kept.keys.count {
                    defer { position += 1 }
                    let set = kept.sets[position]
                    guard kept.translation.keepsAny(of: set) else { continue }
                    return (kept.keys[position], kept.translation.isIdentity ? set : kept.translation.apply(set)!)
                }
                return nil
            }
        }

        func makeIterator() -> Iterator { Iterator(kept: self) }
    }
}
