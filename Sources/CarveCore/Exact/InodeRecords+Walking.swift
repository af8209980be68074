/// Reading packed `InodeRecords` in place: a record as an `Entry`, a `Cursor` over them,
/// and the check a cache file's records pass before any of this walks them.
extension InodeRecords {
    /// One record in place: its inode and body, decoded field by field on demand.
    public struct Entry {
        public let inode: UInt64
        let body: ArraySlice<UInt8>

        public var isDirectory: Bool { body[body.startIndex] & directoryFlag != 0 }
        public var unlinked: Bool { body[body.startIndex] & unlinkedFlag != 0 }

        /// Calls `body` with each parent directory.
        @_optimize(speed)
        public func forEachParent(_ visit: (UInt64) -> Void) {
            body.withUnsafeBufferPointer { body in
                var reader = Reader(body)
                reader.skipToParents()
                for _ in 0..<reader.next() { visit(inode &- unzigzag(reader.next())) }
            }
        }

        /// Whether it has inline extents; its extents into `references` (emptied first).
        @_optimize(speed)
        public func references(into references: inout [ExtentKey]) -> Bool {
            references.removeAll(keepingCapacity: true)
            return body.withUnsafeBufferPointer { Self.references(of: $0, into: &references) }
        }

        @inline(__always)
        private static func references(of body: UnsafeBufferPointer<UInt8>, into references: inout [ExtentKey]) -> Bool
        {
            var reader = Reader(body)
            let flags = reader.flags
            if flags & inlineFlag != 0 { _ = reader.next() }
            _ = reader.next()
            for _ in 0..<reader.next() { _ = reader.next() }
            let unit: UInt64 = flags & alignedFlag != 0 ? 4096 : 1
            var last: UInt64 = 0
            for _ in 0..<reader.next() {
                last = last &+ unzigzag(reader.next())
                references.append(ExtentKey(diskBytenr: last &* unit, diskBytes: reader.next() &* unit))
            }
            return flags & inlineFlag != 0
        }

        public var record: InodeRecord { body.withUnsafeBufferPointer { record(from: $0) } }

        private func record(from body: UnsafeBufferPointer<UInt8>) -> InodeRecord {
            var reader = Reader(body)
            let flags = reader.flags
            var record = InodeRecord(
                inode: inode, isDirectory: flags & directoryFlag != 0, unlinked: flags & unlinkedFlag != 0)
            if flags & inlineFlag != 0 { record.inlineBytes = reader.next() }
            record.leafBytes = reader.next()
            let parents = reader.next()
            for _ in 0..<parents { record.parents.append(inode &- unzigzag(reader.next())) }
            let references = reader.next()
            record.references.reserveCapacity(Int(references))
            let unit: UInt64 = flags & alignedFlag != 0 ? 4096 : 1
            var last: UInt64 = 0
            for _ in 0..<references {
                last = last &+ unzigzag(reader.next())
                record.references.append(ExtentKey(diskBytenr: last &* unit, diskBytes: reader.next() &* unit))
            }
            return record
        }
    }

    /// Calls `visit` with each record, ascending.
    @_optimize(speed)
    public func forEach(_ visit: (Entry) -> Void) {
        var cursor = Cursor(self)
        while let entry = cursor.next() { visit(entry) }
    }

    /// Calls `visit` with each record's inode, each of its parents among `directories`
    /// (ascending, each once) with that parent's position among them, and whether the
    /// record is a directory itself, in the records' order. Read in place, no entry made:
    /// a changed directory's children were found by a walk over a million entries that
    /// cost a fifth of a listing that read 1% of them again.
    @_optimize(speed)
    public func forEachChild(
        of directories: [UInt64],
        _ visit: (_ inode: UInt64, _ parent: UInt64, _ position: Int, _ isDirectory: Bool) -> Void
    ) {
        precondition(isChecked, "records read from a file are checked before they are walked")
        guard let among = Directories(directories) else { return }
        bytes.withUnsafeBufferPointer { stored in
            var offset = 0
            var inode: UInt64 = 0
            while offset < stored.count {
                inode &+= checkedNumber(stored, at: &offset)
                let length = Int(checkedNumber(stored, at: &offset))
                var reader = Reader(UnsafeBufferPointer(rebasing: stored[offset..<(offset + length)]))
                offset += length
                let isDirectory = reader.bytes[0] & Self.directoryFlag != 0
                reader.skipToParents()
                for _ in 0..<reader.next() {
                    let parent = inode &- unzigzag(reader.next())
                    guard let position = among.position(of: parent) else { continue }
                    visit(inode, parent, position, isDirectory)
                }
            }
        }
    }

    /// Where a parent is among the directories asked: a bit each over their span when it
    /// is under 16 M inodes (2 MiB), its position the bits set before it (counted per
    /// word once), else a binary search. A search of a thousand directories for each of a
    /// million parents was a third of the walk.
    private struct Directories {
        let sorted: [UInt64]
        let lowest: UInt64
        let highest: UInt64
        let bits: [UInt64]
        /// How many directories the words of `bits` before each hold.
        let before: [Int]

        init?(_ sorted: [UInt64]) {
            guard let lowest = sorted.first, let highest = sorted.last else { return nil }
            self.sorted = sorted; self.lowest = lowest; self.highest = highest
            let span = highest - lowest
            guard span < 1 << 24 else { (bits, before) = ([], []); return }
            var bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
            for directory in sorted { bits[Int((directory - lowest) / 64)] |= 1 << ((directory - lowest) % 64) }
            var before = [Int](repeating: 0, count: bits.count)
            for word in bits.indices.dropFirst() { before[word] = before[word - 1] + bits[word - 1].nonzeroBitCount }
            self.bits = bits; self.before = before
        }

        @inline(__always)
        func position(of parent: UInt64) -> Int? {
            guard parent >= lowest, parent <= highest else { return nil }
            guard bits.isEmpty else {
                let at = parent - lowest, word = Int(at / 64), bit: UInt64 = 1 << (at % 64)
                let held = bits.withUnsafeBufferPointer { $0[word] }
                guard held & bit != 0 else { return nil }
                return before.withUnsafeBufferPointer { $0[word] } + (held & (bit - 1)).nonzeroBitCount
            }
            var low = 0, high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < parent { low = middle + 1 } else { high = middle }
            }
            return low < sorted.count && sorted[low] == parent ? low : nil
        }
    }

    /// Walks the records in order; `next(atLeast:)` skips ahead by bodies' lengths.
    public struct Cursor {
        private let bytes: ArraySlice<UInt8>
        private var offset: Int
        private var inode: UInt64 = 0
        private var pending: Entry?

        public init(_ records: InodeRecords) {
            precondition(records.isChecked, "records read from a file are checked before they are walked")
            bytes = records.bytes; offset = bytes.startIndex
        }

        @_optimize(speed)
        public mutating func next() -> Entry? {
            if let entry = pending {
                pending = nil
                return entry
            }
            guard offset < bytes.endIndex else { return nil }
            let start = skip()
            return Entry(inode: inode, body: bytes[start..<offset])
        }

        /// The first record at or after `inode`, without returning it from `next` until asked:
        /// nil when none is left.
        @_optimize(speed)
        public mutating func peek(atLeast inode: UInt64) -> Entry? {
            if let entry = pending {
                if entry.inode >= inode { return entry }
                pending = nil
            }
            // Skipped by their lengths, no entry made: a slice per record passed over
            // retained and released the storage each time.
            while offset < bytes.endIndex {
                let start = skip()
                if self.inode >= inode {
                    pending = Entry(inode: self.inode, body: bytes[start..<offset])
                    return pending
                }
            }
            return nil
        }

        /// Moves past the next record, taking its inode; where its body starts.
        private mutating func skip() -> Int {
            inode &+= number()
            let length = Int(number())
            defer { offset += length }
            return offset
        }

        private mutating func number() -> UInt64 { checkedNumber(bytes, at: &offset) }
    }

    /// Checks records read from a file: every length within the bytes, inodes ascending,
    /// each body decoding to its end. Costs a pass; run once when a cache is loaded.
    /// Through the buffer: through the slice, a million files' records cost a sixth of a
    /// listing that read 1% of them again (issue 33, part 3).
    @_optimize(speed)
    static func validated(_ bytes: ArraySlice<UInt8>, count: Int) -> InodeRecords? {
        let whole = bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            var inode: UInt64 = 0
            for index in 0..<count {
                guard let (step, afterStep) = Reader.checked(bytes, at: offset), index == 0 || step > 0,
                    // Inodes that wrapped around would not be ascending.
                    !inode.addingReportingOverflow(step).overflow,
                    let (length, start) = Reader.checked(bytes, at: afterStep), length <= UInt64(bytes.count - start),
                    length > 0
                else { return false }
                inode += step
                let end = start + Int(length)
                guard Reader.bodyIsWhole(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return false }
                offset = end
            }
            return offset == bytes.count
        }
        return whole ? InodeRecords(bytes: bytes, count: count) : nil
    }

    /// LEB128 numbers from a body that was written whole (see `validated`), read in place.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var flags: UInt8 {
            mutating get {
                defer { offset += 1 }
                return bytes[offset]
            }
        }

        @inline(__always)
        mutating func next() -> UInt64 { checkedNumber(bytes, at: &offset) }

        mutating func skipToParents() {
            let flags = self.flags
            if flags & inlineFlag != 0 { _ = next() }
            _ = next()
        }

        /// A number at `offset` that lies within `bytes` and fits 64 bits, and where it ends.
        /// Most numbers are one byte: those are read without the loop or a call.
        @inline(__always)
        static func checked(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (UInt64, Int)? {
            guard offset < bytes.count else { return nil }
            let first = bytes[offset]
            return first < 0x80 ? (UInt64(first), offset + 1) : checkedLong(bytes, at: offset)
        }

        @_optimize(speed)
        private static func checkedLong(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (UInt64, Int)? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            var at = offset
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                guard shift < 64, shift < 63 || byte <= 1 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return (value, at) }
                shift += 7
            }
            return nil
        }

        /// Whether `body` holds its fields exactly, with counts it can hold.
        @_optimize(speed)
        static func bodyIsWhole(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
            var at = 1
            func number() -> UInt64? {
                guard let (value, end) = checked(body, at: at) else { return nil }
                at = end
                return value
            }
            let flags = body[0]
            guard flags & ~(directoryFlag | unlinkedFlag | inlineFlag | alignedFlag) == 0 else { return false }
            if flags & inlineFlag != 0 { guard number() != nil else { return false } }
            guard number() != nil, let parents = number(), parents <= UInt64(body.count) else { return false }
            for _ in 0..<parents { guard number() != nil else { return false } }
            guard let references = number(), references <= UInt64(body.count) else { return false }
            for _ in 0..<references * 2 { guard number() != nil else { return false } }
            return at == body.count
        }
    }
}
