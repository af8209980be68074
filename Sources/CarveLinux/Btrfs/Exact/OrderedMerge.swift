import Glibc
import CarveCore

/// Hands trees to the scan's workers and merges their readings into one extent map
/// in tree order: a worker that finishes early waits for the trees before its own,
/// so at most one reading per worker is held, and the runs of each extent's
/// subvolume set grow at their end (the cheap path). The first error stops the
/// hand-out; the scan reports it.
final class OrderedMerge: @unchecked Sendable {
    struct Result {
        var map: ExtentMap
        var treeBytes: [UInt64: UInt64] = [:]
        var fileExtents = 0
        var malformed = 0
        var items = 0
        var bytesRead: UInt64 = 0
        var error: (any Error)?
    }

    private let condition = Condition()
    private let trees: [UInt64]
    private let nodeSize: UInt64
    private let progress: (@Sendable (ExtentScanProgress) -> Void)?
    private var nextToTake = 0
    private var nextToMerge = 0
    private var merged: Result

    init(trees: [UInt64], nodeSize: UInt64, progress: (@Sendable (ExtentScanProgress) -> Void)?) {
        self.trees = trees
        self.nodeSize = nodeSize
        self.progress = progress
        merged = Result(map: ExtentMap(subvolumes: trees))
    }

    /// The index of the next tree to read, or nil when all are taken or one failed.
    func take() -> Int? {
        condition.lock(); defer { condition.unlock() }
        guard merged.error == nil, nextToTake < trees.count else { return nil }
        nextToTake += 1
        return nextToTake - 1
    }

    /// Merges the reading of tree `index` once every tree before it is merged.
    func deliver(_ index: Int, _ reading: ExtentScanner.TreeReading) {
        condition.lock(); defer { condition.unlock() }
        while nextToMerge != index && merged.error == nil { condition.wait() }
        defer { nextToMerge += 1; condition.broadcast() }
        guard merged.error == nil else { return }
        if let error = reading.error { merged.error = error; return }
        merged.bytesRead += reading.bytesRead; merged.items += reading.items
        if !reading.gone {
            let tree = trees[index]
            merged.map.addReferences(subvolume: tree, reading.references)
            if reading.hasInline { merged.map.addInline(subvolume: tree, bytes: reading.inlineBytes) }
            merged.fileExtents += reading.fileExtents; merged.malformed += reading.malformed
            merged.treeBytes[tree] = ExactSizes.treeEstimate(leafBytes: reading.leafBytes, nodeSize: nodeSize)
        }
        progress?(ExtentScanProgress(subvolumesDone: index + 1, subvolumesTotal: trees.count, bytesRead: merged.bytesRead))
    }

    /// The merged map once every worker is done; throws the first error.
    func result() throws -> Result {
        condition.lock(); defer { condition.unlock() }
        if let error = merged.error { throw error }
        return merged
    }
}
