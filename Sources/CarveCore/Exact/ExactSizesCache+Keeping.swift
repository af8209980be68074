/// What a run keeps of its extent map in the cache: the read-only trees it read whole and
/// the writable trees with their states, built as a cache or written straight to the file.
extension ExactSizesCache {
    /// A writable tree to keep with its state: the top level is not among a listing's
    /// subvolumes, so its UUID and generation come with it.
    public struct KeptState: Sendable {
        public var id: UInt64
        public var uuid: String
        public var generation: UInt64
        public var state: WritableTreeState
        public init(id: UInt64, uuid: String, generation: UInt64, state: WritableTreeState) {
            self.id = id; self.uuid = uuid; self.generation = generation; self.state = state
        }
    }

    /// What to keep of `exact`: the trees of `subvolumes` that are read-only and were
    /// read whole (a tree deleted during the scan has no `treeBytes`), and the writable
    /// trees of `states`.
    public init(filesystem: String, keeping subvolumes: [Volume], of exact: ExactSizes, states: [KeptState] = []) {
        let (skeleton, order, translation) = Self.keeping(filesystem: filesystem, subvolumes, of: exact, states)
        self = skeleton
        let keys = exact.map.keys, sets = exact.map.sets
        extents.reserveCapacity(order.count); self.sets.reserveCapacity(order.count)
        for position in order {
            extents.append(keys[Int(position)]); self.sets.append(translation.apply(sets[Int(position)])!)
        }
    }

    /// The file `init(filesystem:keeping:of:states:)` with `directoryHints` would encode to,
    /// written straight from the map: a run that writes the cache then holds the map,
    /// a permutation (4 bytes an extent) and the file, not a sorted copy of the
    /// extents and their sets besides (48 bytes an extent: 72 MB at 1.5 M extents).
    public static func encoded(
        filesystem: String, keeping subvolumes: [Volume], of exact: ExactSizes, states: [KeptState] = [],
        directoryHints: [String: [DirectoryHint]]
    ) -> [UInt8] {
        let (kept, order, translation) = keeping(filesystem: filesystem, subvolumes, of: exact, states)
        var skeleton = kept
        skeleton.directoryHints = directoryHints
        let keys = exact.map.keys, sets = exact.map.sets
        return skeleton.encoded(
            extentCount: order.count,
            order.lazy.map { position in
                let set = sets[Int(position)]
                return (keys[Int(position)], translation.isIdentity ? set : translation.apply(set)!)
            })
    }

    /// The cache's trees with no extents yet, the positions in the map of the extents
    /// it keeps (those some kept tree references), sorted by key, and the translation
    /// of their sets.
    private static func keeping(
        filesystem: String, _ subvolumes: [Volume], of exact: ExactSizes, _ states: [KeptState]
    ) -> (
        ExactSizesCache, [UInt32], IndexTranslation
    ) {
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
        // Sorted through (bytenr, position) pairs of 16 bytes, then narrowed to the
        // positions: a sorted copy of (key, set) pairs and two arrays mapped from it
        // held 64 bytes an extent at the peak, on top of the map.
        var pairs: [(bytenr: UInt64, position: UInt32)] = []
        pairs.reserveCapacity(exact.map.extentCount)
        var position: UInt32 = 0
        exact.map.forEachExtent { key, set in
            if translation.keepsAny(of: set) { pairs.append((key.diskBytenr, position)) }
            position += 1
        }
        let keys = exact.map.keys
        pairs.sort {
            $0.bytenr != $1.bytenr
                ? $0.bytenr < $1.bytenr : keys[Int($0.position)].diskBytes < keys[Int($1.position)].diskBytes
        }
        let positions = pairs.map(\.position)
        pairs = []
        let skeleton = ExactSizesCache(
            filesystem: filesystem, nodeSize: exact.nodeSize, trees: order.map { trees[$0]! }, extents: [], sets: [])
        return (skeleton, positions, translation)
    }
}
