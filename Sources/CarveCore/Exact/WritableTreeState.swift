/// What the cache keeps of a writable tree so that the next run reads only what changed
/// since (CarveLinux's `TreeChanges`): every inode's record, and the transactions the
/// read that made them spanned. A tree search whose minimum transaction is `readFrom + 1`
/// returns every leaf written since that read began; an inode whose items changed had
/// its inode item rewritten (btrfs updates it with every change of its extents), and
/// an inode that is gone left a directory changed or was already unlinked.
public struct WritableTreeState: Sendable, Hashable {
    /// The tree's committed generation when the read began.
    public var readFrom: UInt64
    /// Its committed generation when the read ended: a snapshot taken in a later
    /// transaction holds the tree as it was after the read.
    public var readUntil: UInt64
    public var records: InodeRecords
    /// Per extent the tree references more than once, the references beyond the first.
    public var repeated: [ExtentKey: UInt32]
    /// The records' leaf bytes, summed.
    public var leafBytes: UInt64
    /// The records' inline bytes, summed, and how many records have any.
    public var inlineBytes: UInt64
    public var inlineRecords: Int
    /// Records read again on every run, ascending: inodes with no name left (they go
    /// without changing a directory) and special objects.
    public var readEachRun: [UInt64]

    public init(
        readFrom: UInt64, readUntil: UInt64, records: InodeRecords, repeated: [ExtentKey: UInt32] = [:],
        totals: (leafBytes: UInt64, inlineBytes: UInt64, inlineRecords: Int, readEachRun: [UInt64])? = nil
    ) {
        self.readFrom = readFrom; self.readUntil = readUntil; self.records = records; self.repeated = repeated
        var sums = (leafBytes: UInt64(0), inlineBytes: UInt64(0), inlineRecords: 0, readEachRun: [UInt64]())
        if let totals {
            sums = totals
        } else {
            records.forEach { entry in
                let record = entry.record
                sums.leafBytes &+= record.leafBytes
                if let inline = record.inlineBytes { sums.inlineBytes &+= inline; sums.inlineRecords += 1 }
                if record.isReadEachRun { sums.readEachRun.append(record.inode) }
            }
        }
        (leafBytes, inlineBytes, inlineRecords, readEachRun) = sums
    }

    /// Inline bytes as the extent map keeps them: nil when no record has any.
    public var inline: UInt64? { inlineRecords > 0 ? inlineBytes : nil }

    /// This state with `changes` (ascending by inode; nil removes) applied to its records
    /// and totals. `replaced` sees each record a change replaced or removed.
    public func applying(
        _ changes: [(inode: UInt64, record: InodeRecord?)], readFrom: UInt64, readUntil: UInt64,
        repeated: [ExtentKey: UInt32], replaced: (InodeRecord) -> Void = { _ in }
    ) -> WritableTreeState {
        var sums = (
            leafBytes: leafBytes, inlineBytes: inlineBytes, inlineRecords: inlineRecords, readEachRun: [UInt64]()
        )
        var gone = Set<UInt64>()
        func count(_ record: InodeRecord, _ sign: Int) {
            sums.leafBytes = sign > 0 ? sums.leafBytes &+ record.leafBytes : sums.leafBytes &- record.leafBytes
            guard let bytes = record.inlineBytes else { return }
            sums.inlineBytes = sign > 0 ? sums.inlineBytes &+ bytes : sums.inlineBytes &- bytes
            sums.inlineRecords += sign
        }
        let records = records.applying(changes) { old in
            count(old, -1)
            if old.isReadEachRun { gone.insert(old.inode) }
            replaced(old)
        }
        var added: [UInt64] = []
        for change in changes {
            guard let record = change.record else { continue }
            count(record, 1)
            if record.isReadEachRun { added.append(record.inode) }
        }
        sums.readEachRun = (readEachRun.filter { !gone.contains($0) } + added).sorted()
        return WritableTreeState(
            readFrom: readFrom, readUntil: readUntil, records: records, repeated: repeated, totals: sums)
    }
}

extension InodeRecord {
    /// An unlinked inode or a special object: read again on every run.
    public var isReadEachRun: Bool { unlinked || inode > Self.lastInode }
}
