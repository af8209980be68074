import Glibc
import CarveCore

/// Hands trees to the scan's workers and merges their readings into one extent map
/// in tree order, so the runs of each extent's subvolume set grow at their end (the
/// cheap path). A reading that arrives before those of earlier trees is parked; the
/// worker that delivers the missing one merges every parked reading it unblocks. No
/// worker waits on a delivery (waking every waiter per tree cost more than reading
/// 10,000 one-leaf trees); a worker waits only when `window` readings are ahead of
/// the merge, which bounds what is held. The scan passes its worker count (10,000
/// one-leaf trees read in 0.11 s so, 0.13 s with twice the window). The first error
/// stops the hand-out; the scan reports it.
final class OrderedMerge: @unchecked Sendable {
    struct Result {
        var map: ExtentMap
        var treeBytes: [UInt64: UInt64] = [:]
        var fileExtents = 0
        var malformed = 0
        var items = 0
        var bytesRead: UInt64 = 0
        var error: (any Error)?
        /// The writable trees read with their inode records: those and their repeated extents.
        var records: [UInt64: (records: InodeRecords, repeated: [ExtentKey: UInt32])] = [:]
    }

    private let condition = Condition()
    private let trees: [UInt64]
    private let nodeSize: UInt64
    private let window: Int
    private let progress: (@Sendable (ExtentScanProgress) -> Void)?
    private var nextToTake = 0
    private var nextToMerge = 0
    private var parked: [Int: ExtentScanner.TreeReading] = [:]
    private var waitingForRoom = 0
    private var merged: Result

    /// `seed`: the map (numbering every tree of the scan) and tree sizes of the trees
    /// known already; `trees`, the ones to read into it.
    init(trees: [UInt64], seed: ExactSizes, window: Int, progress: (@Sendable (ExtentScanProgress) -> Void)?) {
        self.trees = trees
        self.nodeSize = seed.nodeSize
        self.window = max(1, window)
        self.progress = progress
        merged = Result(map: seed.map, treeBytes: seed.treeBytes)
    }

    /// Every tree read, none known.
    convenience init(
        trees: [UInt64], nodeSize: UInt64, window: Int, progress: (@Sendable (ExtentScanProgress) -> Void)?
    ) {
        let seed = ExactSizes(map: ExtentMap(subvolumes: trees), scan: .init(), nodeSize: nodeSize)
        self.init(trees: trees, seed: seed, window: window, progress: progress)
    }

    /// Checked before each tree is handed out.
    var cancellation: CancellationFlag?

    /// The index of the next tree to read, or nil when all are taken, one failed or
    /// the scan was interrupted.
    func take() -> Int? {
        condition.lock(); defer { condition.unlock() }
        if cancellation?.isCancelled == true, merged.error == nil { merged.error = ScanInterrupted() }
        while merged.error == nil, nextToTake < trees.count, nextToTake - nextToMerge >= window {
            waitingForRoom += 1
            condition.wait()
            waitingForRoom -= 1
        }
        guard merged.error == nil, nextToTake < trees.count else { return nil }
        nextToTake += 1
        return nextToTake - 1
    }

    /// Parks the reading of tree `index` and merges every reading now next in order.
    func deliver(_ index: Int, _ reading: ExtentScanner.TreeReading) {
        condition.lock(); defer { condition.unlock() }
        parked[index] = reading
        let before = nextToMerge
        while let next = parked.removeValue(forKey: nextToMerge) {
            merge(next, of: nextToMerge)
            nextToMerge += 1
        }
        if (nextToMerge != before || merged.error != nil) && waitingForRoom > 0 { condition.broadcast() }
    }

    private func merge(_ reading: ExtentScanner.TreeReading, of index: Int) {
        guard merged.error == nil else { return }
        if let error = reading.error { merged.error = error; parked = [:]; return }
        merged.bytesRead += reading.bytesRead; merged.items += reading.items
        if !reading.gone {
            let tree = trees[index]
            if let records = reading.records {
                var repeated: [ExtentKey: UInt32] = [:]
                merged.map.addReferences(subvolume: tree, reading.references, repeated: &repeated)
                merged.records[tree] = (records, repeated)
            } else {
                merged.map.addReferences(subvolume: tree, reading.references)
            }
            if reading.hasInline { merged.map.addInline(subvolume: tree, bytes: reading.inlineBytes) }
            merged.fileExtents += reading.fileExtents; merged.malformed += reading.malformed
            merged.treeBytes[tree] = ExactSizes.treeEstimate(leafBytes: reading.leafBytes, nodeSize: nodeSize)
        }
        progress?(
            ExtentScanProgress(subvolumesDone: index + 1, subvolumesTotal: trees.count, bytesRead: merged.bytesRead))
    }

    /// The merged map once every worker is done; throws the first error.
    func result() throws -> Result {
        condition.lock(); defer { condition.unlock() }
        if let error = merged.error { throw error }
        return merged
    }
}
