import CarveCore

/// A changed tree's read on every worker's search at once (`TreeChanges.searches`): the
/// leaves written since the state, and the inodes read again, split by inode. Most of the
/// read is the kernel's copying of items, one search at a time; at a million files after
/// 1% churn the two halves ran side by side on the machine's two processors.
extension TreeChanges {
    /// The inode ranges the workers search, in order and covering every object: split at
    /// the inodes of the state's records that share them out evenly. One range for a
    /// small state (below `sharing.records`: a thread costs more), or one whose records
    /// do not hold (their check then says why).
    func ranges(sharing records: InodeRecords) -> [ClosedRange<UInt64>] {
        let first = BtrfsKey.firstFreeObjectID
        guard searches.count > 1, records.count >= sharing.records else { return [first...UInt64.max] }
        var bounds = [first]
        for worker in 1..<searches.count {
            guard let inode = records.inode(atRecord: records.count * worker / searches.count),
                inode > bounds[bounds.count - 1], inode <= InodeRecord.lastInode
            else { return [first...UInt64.max] }
            bounds.append(inode)
        }
        return bounds.indices.map { index in
            bounds[index]...(index + 1 < bounds.count ? bounds[index + 1] - 1 : UInt64.max)
        }
    }

    /// `inodes` (ascending, each once) read again one by one, `directories` telling for
    /// each whether it is known as a directory (`readInode`): the records and the
    /// inodes each names, in order, and the malformed items found. Split in order
    /// between the workers' searches when there are at least `sharing.reads`.
    func readInodes(
        _ inodes: [UInt64], directories: [Bool]
    ) throws -> (
        records: [InodeRecord?], children: [[UInt64]], malformed: Int
    ) {
        let workers = inodes.count >= sharing.reads ? searches.count : 1
        let parts = (0..<workers).map { _ in ReadPart() }
        let share = (inodes.count + workers - 1) / max(workers, 1)
        Threads.concurrentPerform(iterations: workers) { worker in
            let part = parts[worker]
            do {
                for index in (worker * share)..<min(inodes.count, (worker + 1) * share) {
                    let (record, children) = try readInode(
                        inodes[index], directory: directories[index], malformed: &part.malformed,
                        with: searches[worker])
                    part.records.append(record)
                    part.children.append(children)
                }
            } catch {
                part.error = error
            }
        }
        if let error = parts.lazy.compactMap(\.error).first { throw error }
        return (parts.flatMap(\.records), parts.flatMap(\.children), parts.reduce(0) { $0 + $1.malformed })
    }

    /// What one worker read, kept apart until all are done.
    private final class ReadPart: @unchecked Sendable {
        var records: [InodeRecord?] = []
        var children: [[UInt64]] = []
        var malformed = 0
        var error: (any Error)?
    }
}

/// The state's records, checked once when first needed by any worker (`InodeRecords.checked`).
final class CheckedOnce: @unchecked Sendable {
    private let lock = Lock()
    private let records: InodeRecords
    private let tree: UInt64
    private var checked: InodeRecords?

    init(_ records: InodeRecords, tree: UInt64) { self.records = records; self.tree = tree }

    /// The records checked; throws `StateUnusable` when they do not hold what they say.
    func get() throws -> InodeRecords {
        try lock.withLock {
            if let checked { return checked }
            guard let made = records.checked() else { throw StateUnusable(tree: tree) }
            checked = made
            return made
        }
    }

    /// The records, if a worker needed them checked.
    var ifChecked: InodeRecords? { lock.withLock { checked } }
}
