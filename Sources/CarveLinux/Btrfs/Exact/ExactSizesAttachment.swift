import CarveCore
#if canImport(Glibc)
import Glibc
#endif

extension BtrfsSnapshotBackend {
    /// Fills the listing's sizes from a scan of every subvolume's extents, taking the
    /// read-only trees the cache knows from it, reading the writable trees it kept a
    /// state of only where they changed (`IncrementalPlan`), and keeping the new ones
    /// there. A cache that cannot be read is rebuilt (a note under --verbose); one that
    /// cannot be written leaves the sizes exact and costs the next run a full scan (one warning).
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
        var lineages: [UInt64: SubvolumeUUID] = [:]
        var ids: [UInt64] = []
        var writable = Set<UInt64>()
        var writablePaths: [UInt64: String] = [:]
        lineages.reserveCapacity(listing.subvolumes.count); ids.reserveCapacity(listing.subvolumes.count)
        // Fields read in place: iterating by value copied each of ten thousand (fat) subvolumes.
        for index in listing.subvolumes.indices {
            let id = listing.subvolumes[index].id
            lineages[id] = listing.subvolumes[index].parentUUID ?? listing.subvolumes[index].uuid
            ids.append(id)
            guard !listing.subvolumes[index].readOnly else { continue }
            writable.insert(id)
            if let path = listing.subvolumes[index].mountedPath { writablePaths[id] = path }
        }
        if let top = listing.filesystem.mounts.first(where: { $0.subvolumeID == ExtentMap.topLevel }) {
            writablePaths[ExtentMap.topLevel] = top.mountpoint
        }
        // Only a run that keeps a cache asks the kernel about the writable trees.
        let live = store == nil || !isRoot ? nil : LiveTrees(writablePaths)
        let reused = cached?.reusable(for: listing.subvolumes) ?? [:]
        var plan = IncrementalPlan()
        if let cached, let live {
            plan = IncrementalPlan(
                cache: cached, subvolumes: listing.subvolumes, reused: reused,
                live: live.atStart.mapValues {
                    .init(uuid: $0.uuid, generation: $0.generation, isChanging: $0.isChanging)
                })
            notes += plan.notes
        }
        let hints = DirectoryHints((cached?.directoryHints ?? [:]).mapValues { $0.map(DirectoryHints.Directory.init) })
        let cachedKeys = cached?.keys
        let cachedStates = cached.map(Self.states(of:)) ?? [:]
        let everyLive = Set(live?.atStart.keys ?? [:].keys)
        var outcome: ExtentScanner.Outcome
        do {
            // The cache is handed over, not kept here: the map takes over its extents.
            outcome = try scanner.scan(
                subvolumes: ids, lineages: lineages, progress: ExtentScanObserver.current,
                cached: cached.take(), reused: reused, hints: hints, writable: writable, plan: plan,
                keepingRecords: everyLive.subtracting(plan.carried.keys))
        } catch let unusable as StateUnusable {
            // Run again with the read-only trees of the cache only: every writable tree whole.
            notes.append("exact sizes cache: \(unusable): read whole")
            guard case .found(let again)? = store?.load(filesystem: uuid) else { throw unusable }
            outcome = try scanner.scan(
                subvolumes: ids, lineages: lineages, progress: ExtentScanObserver.current,
                cached: again, reused: again.reusable(for: listing.subvolumes), hints: hints, writable: writable,
                keepingRecords: everyLive)
        }
        let kept = Self.keptStates(outcome, live: live)
        // Taken out of the outcome, not copied from it: settling a map the outcome still
        // held copied its extents, sets and index (100 MB at 1.6 M extents).
        var exact = (consume outcome).exact
        let keptStates = Dictionary(kept.map { ($0.id, $0.state) }, uniquingKeysWith: { first, _ in first })
        if let store,
            ExactSizesCache.keys(keeping: listing.subvolumes, of: exact) != cachedKeys || keptStates != cachedStates
        {
            exact.map.settle()
            let bytes = ExactSizesCache.encoded(
                filesystem: uuid, keeping: listing.subvolumes, of: exact, states: kept,
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

    /// The cache's writable tree states, by id.
    private static func states(of cache: ExactSizesCache) -> [UInt64: WritableTreeState] {
        var states: [UInt64: WritableTreeState] = [:]
        for tree in cache.trees { if let state = tree.state { states[tree.id] = state } }
        return states
    }

    /// The states to keep: a new one spans the scan (its read began no later than the
    /// scan did and ended no earlier), and is kept only when its tree could be asked
    /// before and after, as the same subvolume.
    private static func keptStates(_ outcome: ExtentScanner.Outcome, live: LiveTrees?) -> [ExactSizesCache.KeptState] {
        guard let live else { return [] }
        let now = live.generationsNow()
        var kept: [ExactSizesCache.KeptState] = []
        for (id, state) in outcome.states {
            guard let start = live.atStart[id], let end = now[id] else { continue }
            var state = state
            if outcome.fresh.contains(id) { (state.readFrom, state.readUntil) = (start.generation, end) }
            kept.append(.init(id: id, uuid: start.uuid, generation: start.generation, state: state))
        }
        return kept
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
