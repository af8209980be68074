import CarveCore

/// The second part of a changed tree's read (`TreeChanges`): the inodes read again one by
/// one, those whose items changed and those a changed directory no longer names.
extension TreeChanges {
    /// Reads `changed` again, then the inodes the state held in a changed directory that
    /// it no longer names, and so on for directories found gone.
    @_optimize(speed)
    func reread(
        _ changed: Set<UInt64>, directories: Set<UInt64>, base: InodeRecords, result: inout Result
    ) throws -> [(inode: UInt64, record: InodeRecord?)] {
        // What was read in an `InodeSet`, what each directory names in sorted runs: a Set
        // per directory read and a dictionary of the records cost a fifth of a listing
        // after 1% churn.
        var reading = Rereading()
        let first = RadixSort.sorted(Array(changed))
        try reading.read(first, directories: first.map(directories.contains), with: self, result: &result)
        // Directories to look into: those read again (their names now), and those gone.
        var looked = InodeSet()
        var pending = Self.ascending(Array(directories) + reading.openedOrGone(wereDirectories: nil))
        while !pending.isEmpty {
            for directory in pending { looked.insert(directory) }
            let (suspects, wereDirectories) = Self.suspects(
                in: base, of: pending, read: reading.read, children: reading.children)
            let before = reading.records.count
            try reading.read(suspects, directories: suspects.map(wereDirectories.contains), with: self, result: &result)
            // A suspect that is a directory, or was one and is gone, may have held inodes of
            // its own. (A file gone held none: walking every record again for the files
            // deleted since was two thirds of the walks.)
            pending = reading.openedOrGone(from: before, wereDirectories: wereDirectories)
                .filter { !looked.contains($0) }
        }
        reading.records.sort { $0.inode < $1.inode }
        return reading.records
    }

    /// The records read again, and what was learnt of them.
    private struct Rereading {
        var records: [(inode: UInt64, record: InodeRecord?)] = []
        /// Inodes read again.
        var read = InodeSet()
        /// The inodes each directory read again names.
        var children: [UInt64: [UInt64]] = [:]

        /// Reads `inodes` again (ascending, each once; `directories`: each known as one,
        /// see `readInode`) but those read already, on every worker's search.
        mutating func read(
            _ inodes: [UInt64], directories: [Bool], with changes: TreeChanges, result: inout Result
        ) throws {
            let fresh = inodes.indices.filter { !read.contains(inodes[$0]) }
            let found = try changes.readInodes(fresh.map { inodes[$0] }, directories: fresh.map { directories[$0] })
            for (index, position) in fresh.enumerated() {
                read.insert(inodes[position])
                records.append((inodes[position], found.records[index]))
                if let record = found.records[index], record.isDirectory {
                    children[inodes[position]] = found.children[index]
                }
            }
            result.reread += fresh.count
            result.malformed += found.malformed
        }

        /// Of the records read from position `start` on, the directories and those gone
        /// that `wereDirectories` holds (or all gone, without it), ascending.
        func openedOrGone(from start: Int = 0, wereDirectories: InodeSet?) -> [UInt64] {
            TreeChanges.ascending(
                records[start...].filter { $0.record?.isDirectory ?? wereDirectories?.contains($0.inode) ?? true }
                    .map(\.inode))
        }
    }

    /// The inodes the state held in `directories` (ascending) that were not read again
    /// and that their directory, when read again, no longer names, ascending, each once;
    /// and those of them the state held as directories. What was read comes in as a
    /// constant: captured as a variable, each look was checked for exclusive access.
    @_optimize(speed)
    private static func suspects(
        in base: InodeRecords, of directories: [UInt64], read: InodeSet, children: [UInt64: [UInt64]]
    ) -> (inodes: [UInt64], wereDirectories: InodeSet) {
        var suspects: [UInt64] = []
        var wereDirectories = InodeSet()
        let named = NamedChildren(directories, children: children)
        defer { named.free() }
        // The directories' children first, then whether each was read or is still named
        // there: a lookup for each of a million records cost more than the walk.
        base.forEachChild(of: directories) { inode, _, position, isDirectory in
            guard !read.contains(inode), !named.names(at: position, inode) else { return }
            suspects.append(inode)
            if isDirectory { wereDirectories.insert(inode) }
        }
        // An inode held in two of the directories is visited twice, one visit after the other.
        return (ascending(suspects), wereDirectories)
    }

    /// What each directory of a walk names, asked in the walk's order: the children of
    /// each directory sorted, one run each, with a cursor that moves on as the walk's
    /// inodes ascend. A hash set of every (directory, child) pair missed the cache on
    /// nearly every look. The cursors live outside the value, so asking changes nothing
    /// a closure captures.
    private struct NamedChildren {
        let names: [UInt64]
        /// Where each directory's run ends in `names`.
        let ends: [Int]
        let cursors: UnsafeMutableBufferPointer<Int>

        init(_ directories: [UInt64], children: [UInt64: [UInt64]]) {
            var names: [UInt64] = []
            var ends: [Int] = []
            let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: directories.count)
            var longest = 0
            for (index, directory) in directories.enumerated() {
                starts[index] = names.count
                names += children[directory] ?? []
                ends.append(names.count)
                longest = max(longest, names.count - starts[index])
            }
            // Each run sorted where it lies, through one scratch buffer.
            let scratch = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: longest)
            defer { scratch.deallocate() }
            names.withUnsafeMutableBufferPointer { names in
                for index in ends.indices {
                    RadixSort.sort(.init(rebasing: names[starts[index]..<ends[index]]), scratch: scratch)
                }
            }
            self.names = names; self.ends = ends; cursors = starts
        }

        func free() { cursors.deallocate() }

        /// Whether the directory at `position` names `inode`, asked for ascending
        /// inodes of each directory.
        @inline(__always)
        func names(at position: Int, _ inode: UInt64) -> Bool {
            var cursor = cursors[position]
            while cursor < ends[position], names[cursor] < inode { cursor += 1 }
            cursors[position] = cursor
            return cursor < ends[position] && names[cursor] == inode
        }
    }

    /// `inodes` sorted, each once.
    static func ascending(_ inodes: [UInt64]) -> [UInt64] {
        var sorted = RadixSort.sorted(inodes)
        var kept = 0
        for index in sorted.indices where index == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }
}
