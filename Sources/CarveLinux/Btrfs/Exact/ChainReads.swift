import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs an `IncrementalPlan`'s chains on a map seeded from the cache: each step reads a
/// tree only where it changed since its base (`TreeChanges`). A snapshot's references
/// are then all of its records' (its base's records with the changes made); the
/// writable tree's cached references are changed where its files changed. The base a
/// step moves to (an untouched snapshot, then the tree itself) moves the writable
/// tree's references with it, so they always hold what the latest base holds.
struct ChainReads {
    let tree: (UInt64) -> TreeChanges

    struct Outcome {
        /// The writable trees' states: as cached when nothing was read again, else new
        /// (`fresh`: their read's generations are the caller's to set).
        var states: [UInt64: WritableTreeState] = [:]
        var fresh = Set<UInt64>()
        var trees = 0
        var items = 0
        var bytesRead: UInt64 = 0
        var malformed = 0
    }

    /// Runs every chain of `plan` from the states of `cache` into `exact`.
    /// Throws `StateUnusable` when a state does not fit the map or the tree.
    func run(_ plan: IncrementalPlan, cache: ExactSizesCache, into exact: inout ExactSizes) throws -> Outcome {
        var outcome = Outcome()
        for chain in plan.chains {
            let cached = cache.trees[chain.cacheIndex]
            guard var base = cached.state else { continue }
            let writable = plan.carried[cached.id] != nil ? cached.id : nil
            var repeated = base.repeated
            var baseIsCached = true
            for step in chain.steps {
                let read: TreeChanges.Result
                do {
                    read = try tree(step.tree).read(base: base, threshold: step.threshold)
                } catch let error as SystemCallError where error.errno == ENOENT {
                    // Deleted while the scan ran: the scan is run again, reading what is left whole.
                    throw StateUnusable(tree: step.tree)
                }
                if let checked = read.checkedBase {
                    base.records = checked
                } else if !read.changes.isEmpty {
                    guard let checked = base.records.checked() else { throw StateUnusable(tree: step.tree) }
                    base.records = checked
                }
                outcome.trees += 1
                outcome.items += read.items
                outcome.bytesRead += read.bytesRead
                outcome.malformed += read.malformed
                var removed: [ExtentKey] = []
                let next = base.applying(
                    read.changes, readFrom: base.readFrom, readUntil: base.readUntil, repeated: repeated
                ) { removed += $0.references }
                // A snapshot's references first: while the map's extents are still in order
                // they are merged in, not looked up one by one. (Its sets and the writable
                // tree's are apart: the order changes nothing in the map.)
                if !step.isWritable { try addReferences(of: next, to: &exact, tree: step.tree) }
                if let writable, step.isWritable || step.continues {
                    let added = read.changes.flatMap { $0.record?.references ?? [] }
                    guard
                        exact.map.changeReferences(
                            subvolume: writable, added: added, removed: removed, repeated: &repeated)
                    else { throw StateUnusable(tree: writable) }
                }
                let treeBytes = ExactSizes.treeEstimate(leafBytes: next.leafBytes, nodeSize: exact.nodeSize)
                if step.isWritable {
                    var state = next
                    state.repeated = repeated
                    if baseIsCached && read.changes.isEmpty {
                        // Nothing read again: the cached state still holds, and nothing need be written.
                        state = base
                    } else {
                        outcome.fresh.insert(step.tree)
                    }
                    outcome.states[step.tree] = state
                    exact.map.setInline(subvolume: step.tree, bytes: state.inline)
                } else if step.continues {
                    (base, baseIsCached) = (next, false)
                }
                exact.treeBytes[step.tree] = treeBytes
            }
        }
        return outcome
    }

    /// A snapshot's references, all of its records', and its inline bytes, into the map.
    private func addReferences(of state: WritableTreeState, to exact: inout ExactSizes, tree: UInt64) throws {
        var references: [ExtentKey] = [], held: [ExtentKey] = []
        references.reserveCapacity(state.records.count)
        guard let records = state.records.checked() else { throw StateUnusable(tree: tree) }
        records.forEach { entry in
            _ = entry.references(into: &held)
            references += held
        }
        RadixSort.sort(&references)
        exact.map.addReferences(subvolume: tree, ascending: references)
        if let inline = state.inline { exact.map.addInline(subvolume: tree, bytes: inline) }
    }
}
