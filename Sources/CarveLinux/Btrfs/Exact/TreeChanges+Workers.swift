import CarveCore

/// A changed tree's read on every worker's search at once (`TreeChanges.searches`): the
/// leaves written since the state, and the inodes read again. Most of the read is the
/// kernel's copying of items, one search at a time; at a million files after 1% churn
/// the workers ran side by side on the machine's two processors. Both are cut in more
/// pieces than there are workers, each taken by whichever worker is free: a changed
/// directory weighs as much as a thousand files.
extension TreeChanges {
    /// How many ranges of the tree each worker's share is cut into.
    static let rangesPerWorker = 8

    /// The inode ranges the workers search, in order and covering every object: cut where
    /// the state's records hold about equal leaf bytes. One range for a small state
    /// (below `sharing.records`: a thread costs more), or one whose records do not hold
    /// (their check then says why).
    func ranges(sharing records: InodeRecords) -> [ClosedRange<UInt64>] {
        let first = BtrfsKey.firstFreeObjectID
        guard searches.count > 1, records.count >= sharing.records,
            let cuts = records.inodes(splittingLeafBytesInto: searches.count * Self.rangesPerWorker)
        else { return [first...UInt64.max] }
        let bounds = [first] + cuts.filter { $0 > first && $0 <= InodeRecord.lastInode }
        return bounds.indices.map { index in
            bounds[index]...(index + 1 < bounds.count ? bounds[index + 1] - 1 : UInt64.max)
        }
    }

    /// `inodes` (ascending, each once) read again one by one, `directories` telling for
    /// each whether it is known as a directory (`readInode`): the records and the
    /// inodes each names, in order, and the malformed items found. Shared between the
    /// workers' searches, one inode at a time, when there are at least `sharing.reads`.
    func readInodes(
        _ inodes: [UInt64], directories: [Bool]
    ) throws -> (
        records: [InodeRecord?], children: [[UInt64]], malformed: Int
    ) {
        let workers = inodes.count >= sharing.reads ? searches.count : 1
        let parts = (0..<workers).map { _ in ReadPart() }
        let next = TakeNext(inodes.count)
        Threads.concurrentPerform(iterations: workers) { worker in
            let part = parts[worker]
            do {
                while let index = next.take() {
                    let (record, children) = try readInode(
                        inodes[index], directory: directories[index], malformed: &part.malformed,
                        with: searches[worker])
                    part.read.append((index, record, children))
                }
            } catch {
                part.error = error
            }
        }
        if let error = parts.lazy.compactMap(\.error).first { throw error }
        var records = [InodeRecord?](repeating: nil, count: inodes.count)
        var children = [[UInt64]](repeating: [], count: inodes.count)
        for part in parts {
            for (index, record, named) in part.read { (records[index], children[index]) = (record, named) }
        }
        return (records, children, parts.reduce(0) { $0 + $1.malformed })
    }

    /// What one worker read, by the position of each inode asked, kept apart until all are done.
    private final class ReadPart: @unchecked Sendable {
        var read: [(index: Int, record: InodeRecord?, children: [UInt64])] = []
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
