/// Which trees a scan reads only where they changed since the cache's writable tree
/// states, and which it must read whole (`ExactSizesCache`, CarveLinux's `TreeChanges`).
///
/// From each kept state of a writable tree, in creation order: each read-only snapshot
/// of that tree taken in a transaction after the state's read ended (so it holds the
/// tree as it was then or later), then the tree itself. An untouched snapshot (its
/// generation still its creation's) becomes the base of the next step: the tree as of
/// its transaction. Every other tree is read whole, and so is a writable tree whose
/// state cannot be trusted: another subvolume under the same id (its UUID), a generation
/// below the state's (it went backwards), a tree being changed in an open transaction,
/// one that is now read-only, or one that cannot be opened to be asked.
public struct IncrementalPlan: Sendable, Equatable {
    /// A writable tree as the kernel holds it now (CarveLinux's `LiveTrees`).
    public struct Live: Sendable, Equatable {
        public var uuid: SubvolumeUUID
        public var generation: UInt64
        /// Being changed in an open transaction.
        public var isChanging: Bool
        public init(uuid: SubvolumeUUID, generation: UInt64, isChanging: Bool) {
            self.uuid = uuid; self.generation = generation; self.isChanging = isChanging
        }
    }

    public struct Step: Sendable, Equatable {
        public var tree: UInt64
        /// The search's minimum transaction: every leaf written since the base was read.
        public var threshold: UInt64
        /// The writable tree itself, whose cached references are carried and changed.
        public var isWritable: Bool
        /// A snapshot that becomes the base of the next step.
        public var continues: Bool
    }

    public struct Chain: Sendable, Equatable {
        /// The cached tree whose state is the first base.
        public var cacheIndex: Int
        public var steps: [Step]
    }

    public var chains: [Chain] = []
    /// Writable trees whose cached references are taken over: by id, their cache index.
    public var carried: [UInt64: Int] = [:]
    /// Why a kept state was not used, for --verbose.
    public var notes: [String] = []

    /// Every tree a chain reads.
    public var derived: Set<UInt64> { Set(chains.flatMap { $0.steps.map(\.tree) }) }

    public init() {}

    /// `reused`: the read-only trees taken from the cache as they are (`reusable`);
    /// `live`: the writable trees (the top level among them) that could be asked.
    public init(cache: ExactSizesCache, subvolumes: [Volume], reused: [UInt64: Int], live: [UInt64: Live]) {
        var byID: [UInt64: Int] = [:]
        byID.reserveCapacity(subvolumes.count)
        for index in subvolumes.indices { byID[subvolumes[index].id] = index }
        // Trees a chain reads, besides the reused ones: neither is read twice.
        var chained = Set<UInt64>()
        // Only the writable trees: taking each of ten thousand trees out of the array copied it.
        for index in cache.trees.indices where cache.trees[index].isWritable {
            let tree = cache.trees[index]
            guard let state = tree.state else { continue }
            var chain = Chain(cacheIndex: index, steps: [])
            var threshold = state.readFrom + 1
            var after = state.readUntil
            for snapshot in Self.snapshotsToRead(of: tree.uuid, in: subvolumes, reused: reused, chained: chained)
            where subvolumes[snapshot].createdGeneration > after {
                let snapshot = subvolumes[snapshot]
                // Taken in its own transaction, untouched since: the tree as of that transaction.
                let continues = snapshot.generation == snapshot.createdGeneration
                chain.steps.append(
                    Step(tree: snapshot.id, threshold: threshold, isWritable: false, continues: continues))
                chained.insert(snapshot.id)
                if continues { (threshold, after) = (snapshot.createdGeneration, snapshot.createdGeneration - 1) }
            }
            let volume = byID[tree.id].map { subvolumes[$0] }
            if tree.id != ExtentMap.topLevel && volume == nil {
                // Deleted: nothing to read; its snapshots taken since were read above.
            } else if let why = Self.unusable(tree, state, volume: volume, live: live[tree.id]) {
                notes.append("subvolume \(tree.id) read whole: \(why)")
            } else {
                chain.steps.append(Step(tree: tree.id, threshold: threshold, isWritable: true, continues: false))
                carried[tree.id] = index
            }
            if !chain.steps.isEmpty { chains.append(chain) }
        }
    }

    /// The indices of the read-only snapshots of the tree `uuid` names that no one has
    /// read yet, oldest transaction first. Read in place: passing each of ten thousand
    /// volumes to a closure copied it.
    static func snapshotsToRead(
        of uuid: SubvolumeUUID, in subvolumes: [Volume], reused: [UInt64: Int], chained: Set<UInt64>
    ) -> [Int] {
        guard !uuid.isEmpty else { return [] }
        var found: [Int] = []
        for index in subvolumes.indices where subvolumes[index].readOnly && subvolumes[index].parentUUID == uuid {
            let id = subvolumes[index].id
            if reused[id] == nil && !chained.contains(id) { found.append(index) }
        }
        return found.sorted {
            (subvolumes[$0].createdGeneration, subvolumes[$0].id) < (
                subvolumes[$1].createdGeneration, subvolumes[$1].id
            )
        }
    }

    /// Why the writable tree of a kept state must be read whole, or nil.
    static func unusable(
        _ tree: ExactSizesCache.Tree, _ state: WritableTreeState, volume: Volume?, live: Live?
    ) -> String? {
        if tree.id != ExtentMap.topLevel {
            guard let volume else { return "it is gone" }
            if volume.readOnly { return "it is read-only now" }
            if volume.uuid != tree.uuid { return "another subvolume took its id" }
            if volume.generation < state.readFrom { return "its generation went back" }
        }
        guard let live else { return "it cannot be opened to ask the kernel" }
        if live.uuid != tree.uuid { return "another subvolume took its id" }
        if live.generation < state.readFrom { return "its generation went back" }
        if live.isChanging { return "an open transaction is changing it" }
        return nil
    }
}
