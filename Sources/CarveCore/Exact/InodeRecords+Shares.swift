/// Cutting a tree's records into runs of about equal leaf bytes, for the searches that
/// read what changed to share (`TreeChanges`).
extension InodeRecords {
    /// The inodes that start the second and later of `parts` runs of records holding about
    /// equal leaf bytes (what their items fill: a directory weighs its entries, not one
    /// record), ascending and each once; fewer when one record outweighs a run. nil when
    /// the records' numbers do not hold: they may not have been checked yet, so each is
    /// read checked.
    ///
    /// Cut by records, a tree whose directories were made first put every directory
    /// entry in the first run: at a million files, one search read three quarters of
    /// what changed while the other waited.
    @_optimize(speed)
    public func inodes(splittingLeafBytesInto parts: Int) -> [UInt64]? {
        guard parts > 1, count > 1 else { return [] }
        // One pass, marking the leaf bytes before every `step`-th record: a second pass to
        // find the cuts would cost as much again for a finer cut than a search needs.
        let step = max(1, count / (parts * 64))
        var marks: [(inode: UInt64, before: UInt64)] = []
        marks.reserveCapacity(count / step + 1)
        var total: UInt64 = 0
        let whole = bytes.withUnsafeBufferPointer { stored in
            var offset = 0
            var inode: UInt64 = 0
            for index in 0..<count {
                guard let (distance, afterDistance) = Reader.checked(stored, at: offset),
                    let (length, start) = Reader.checked(stored, at: afterDistance),
                    length > 0, length <= UInt64(stored.count - start),
                    let leafBytes = Self.leafBytes(
                        of: UnsafeBufferPointer(rebasing: stored[start..<start + Int(length)]))
                else { return false }
                inode &+= distance
                offset = start + Int(length)
                if index % step == 0 { marks.append((inode, total)) }
                total &+= leafBytes
            }
            return true
        }
        guard whole else { return nil }
        var cuts: [UInt64] = []
        var mark = 0
        for part in 1..<parts {
            let share = UInt64(Double(total) * Double(part) / Double(parts))
            while mark < marks.count, marks[mark].before < share { mark += 1 }
            guard mark < marks.count else { break }
            if marks[mark].inode > (cuts.last ?? marks[0].inode) { cuts.append(marks[mark].inode) }
        }
        return cuts
    }

    /// A body's leaf bytes (after its flags, and its inline bytes when it has them), read
    /// checked; nil when the body does not hold them.
    @inline(__always)
    private static func leafBytes(of body: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var at = 1
        if body[0] & inlineFlag != 0 {
            guard let (_, end) = Reader.checked(body, at: at) else { return nil }
            at = end
        }
        return Reader.checked(body, at: at)?.0
    }
}
