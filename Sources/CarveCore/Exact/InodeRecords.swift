/// One object of a writable tree as the incremental read keeps it: an inode (or, above
/// the last inode number, a special object such as the orphan items), with what its
/// items hold that sizes and the next read need.
public struct InodeRecord: Sendable, Hashable {
    /// The last inode number (BTRFS_LAST_FREE_OBJECTID): above it lie special objects
    /// (orphan items and the like), which are read again on every run.
    public static let lastInode = UInt64.max - 255

    public var inode: UInt64
    public var isDirectory = false
    /// No name left (nlink 0): unlinked while open, or being deleted; read again each run.
    public var unlinked = false
    /// The directories holding a name of it (its INODE_REF and INODE_EXTREF items).
    public var parents: [UInt64] = []
    /// Bytes of its inline extents; nil when it has none.
    public var inlineBytes: UInt64?
    /// Leaf bytes of its items (directory entries a read left out, estimated).
    public var leafBytes: UInt64 = 0
    /// The extents of its regular and preallocated file extent items, holes left out.
    public var references: [ExtentKey] = []

    public init(
        inode: UInt64, isDirectory: Bool = false, unlinked: Bool = false, parents: [UInt64] = [],
        inlineBytes: UInt64? = nil, leafBytes: UInt64 = 0, references: [ExtentKey] = []
    ) {
        self.inode = inode; self.isDirectory = isDirectory; self.unlinked = unlinked; self.parents = parents
        self.inlineBytes = inlineBytes; self.leafBytes = leafBytes; self.references = references
    }
}

/// A tree's inode records, ascending by inode, packed as the cache stores them: per
/// record its inode as the distance from the previous one, its body's length, and the
/// body (flags, inline bytes, leaf bytes, parents as distances from the inode, extents
/// as distances from the previous one in 4 KiB units when aligned). About 15 bytes a
/// small file; a body never refers to another, so a record that did not change is
/// copied as it is, and the cache's bytes are used without decoding until a run changes
/// something.
public struct InodeRecords: Sendable, Hashable {
    public private(set) var bytes: ArraySlice<UInt8>
    public private(set) var count: Int
    /// Written by this process, or read from a file and checked (`checked()`): only
    /// such records are walked, so a forged file never makes a read go out of bounds.
    public private(set) var isChecked = true

    public init() { bytes = []; count = 0 }

    init(bytes: ArraySlice<UInt8>, count: Int, checked: Bool = true) {
        self.bytes = bytes; self.count = count; isChecked = checked
    }

    public static func == (left: InodeRecords, right: InodeRecords) -> Bool {
        left.count == right.count && left.bytes.elementsEqual(right.bytes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(bytes.count)
    }

    /// These records once checked whole (a pass over them), or nil when they do not
    /// hold what they say: the cache file was forged or written by a bug.
    public func checked() -> InodeRecords? {
        isChecked ? self : Self.validated(bytes, count: count)
    }

    /// Records given in ascending order of inode.
    public init(_ records: some Sequence<InodeRecord>) {
        var writer = Writer()
        for record in records { writer.append(record) }
        self = writer.records
    }

    public var all: [InodeRecord] {
        var result: [InodeRecord] = []
        result.reserveCapacity(count)
        forEach { result.append($0.record) }
        return result
    }

    private static let directoryFlag: UInt8 = 1, unlinkedFlag: UInt8 = 2, inlineFlag: UInt8 = 4
    private static let alignedFlag: UInt8 = 8

    /// Appends records in ascending order of inode.
    public struct Writer {
        var bytes: [UInt8] = []
        var count = 0
        var previous: UInt64 = 0
        private var body: [UInt8] = []

        public init() {}

        public var records: InodeRecords { InodeRecords(bytes: bytes[...], count: count) }

        public mutating func append(_ record: InodeRecord) {
            body.removeAll(keepingCapacity: true)
            let aligned = record.references.allSatisfy { $0.diskBytenr % 4096 == 0 && $0.diskBytes % 4096 == 0 }
            var flags: UInt8 = record.isDirectory ? directoryFlag : 0
            if record.unlinked { flags |= unlinkedFlag }
            if record.inlineBytes != nil { flags |= inlineFlag }
            if aligned { flags |= alignedFlag }
            body.append(flags)
            if let inline = record.inlineBytes { Self.number(inline, into: &body) }
            Self.number(record.leafBytes, into: &body)
            Self.number(UInt64(record.parents.count), into: &body)
            for parent in record.parents { Self.number(zigzag(record.inode &- parent), into: &body) }
            Self.number(UInt64(record.references.count), into: &body)
            let unit: UInt64 = aligned ? 4096 : 1
            var last: UInt64 = 0
            for reference in record.references {
                let at = reference.diskBytenr / unit
                Self.number(zigzag(at &- last), into: &body)
                Self.number(reference.diskBytes / unit, into: &body)
                last = at
            }
            appendBody(inode: record.inode, body[...])
        }

        /// Appends a record's body as another `InodeRecords` holds it.
        mutating func appendBody(inode: UInt64, _ body: ArraySlice<UInt8>) {
            precondition(count == 0 || inode > previous, "records in ascending order of inode")
            Self.number(inode &- previous, into: &bytes)
            Self.number(UInt64(body.count), into: &bytes)
            bytes.append(contentsOf: body)
            previous = inode
            count += 1
        }

        static func number(_ value: UInt64, into bytes: inout [UInt8]) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
    }

    /// One record in place: its inode and body, decoded field by field on demand.
    public struct Entry {
        public let inode: UInt64
        let body: ArraySlice<UInt8>

        public var isDirectory: Bool { body[body.startIndex] & directoryFlag != 0 }
        public var unlinked: Bool { body[body.startIndex] & unlinkedFlag != 0 }

        /// Calls `body` with each parent directory.
        public func forEachParent(_ visit: (UInt64) -> Void) {
            var reader = Reader(body)
            reader.skipToParents()
            for _ in 0..<reader.next() { visit(inode &- unzigzag(reader.next())) }
        }

        /// Whether it has inline extents; its extents into `references` (emptied first).
        public func references(into references: inout [ExtentKey]) -> Bool {
            references.removeAll(keepingCapacity: true)
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

        public var record: InodeRecord {
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
    public func forEach(_ visit: (Entry) -> Void) {
        var cursor = Cursor(self)
        while let entry = cursor.next() { visit(entry) }
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

        public mutating func next() -> Entry? {
            if let entry = pending {
                pending = nil
                return entry
            }
            guard offset < bytes.endIndex else { return nil }
            var reader = Reader(bytes[offset...])
            inode &+= reader.next()
            let length = Int(reader.next())
            let start = reader.offset
            offset = start + length
            return Entry(inode: inode, body: bytes[start..<offset])
        }

        /// The first record at or after `inode`, without returning it from `next` until asked:
        /// nil when none is left.
        public mutating func peek(atLeast inode: UInt64) -> Entry? {
            while let entry = next() {
                if entry.inode >= inode {
                    pending = entry
                    return entry
                }
            }
            return nil
        }
    }

    /// These records with `changes` (ascending by inode; a record replaces or adds its
    /// inode's, nil removes it) applied. `replaced` sees each old record that a change
    /// replaced or removed. Unchanged records are copied as they are.
    public func applying(
        _ changes: [(inode: UInt64, record: InodeRecord?)], replaced: (InodeRecord) -> Void = { _ in }
    ) -> InodeRecords {
        guard !changes.isEmpty else { return self }
        var writer = Writer()
        writer.bytes.reserveCapacity(bytes.count + changes.count * 16)
        var cursor = Cursor(self)
        var old = cursor.next()
        for change in changes {
            while let entry = old, entry.inode < change.inode {
                writer.appendBody(inode: entry.inode, entry.body)
                old = cursor.next()
            }
            if let entry = old, entry.inode == change.inode {
                replaced(entry.record)
                old = cursor.next()
            }
            if let record = change.record { writer.append(record) }
        }
        while let entry = old {
            writer.appendBody(inode: entry.inode, entry.body)
            old = cursor.next()
        }
        return writer.records
    }

    /// Checks records read from a file: every length within the bytes, inodes ascending,
    /// each body decoding to its end. Costs a pass; run once when a cache is loaded.
    static func validated(_ bytes: ArraySlice<UInt8>, count: Int) -> InodeRecords? {
        var offset = bytes.startIndex
        var inode: UInt64 = 0
        for index in 0..<count {
            guard let (step, afterStep) = Reader.checked(bytes, at: offset), index == 0 || step > 0,
                let (length, start) = Reader.checked(bytes, at: afterStep), length <= UInt64(bytes.endIndex - start),
                length > 0
            else { return nil }
            inode &+= step
            let end = start + Int(length)
            guard Reader.bodyIsWhole(bytes[start..<end]) else { return nil }
            offset = end
        }
        return offset == bytes.endIndex ? InodeRecords(bytes: bytes, count: count) : nil
    }

    /// LEB128 numbers from a body that was written whole (see `validated`).
    struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes; offset = bytes.startIndex }

        var flags: UInt8 {
            mutating get {
                defer { offset += 1 }
                return bytes[offset]
            }
        }

        mutating func next() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func skipToParents() {
            let flags = self.flags
            if flags & inlineFlag != 0 { _ = next() }
            _ = next()
        }

        /// A number at `offset` that lies within `bytes` and fits 64 bits, and where it ends.
        static func checked(_ bytes: ArraySlice<UInt8>, at offset: Int) -> (UInt64, Int)? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            var at = offset
            while at < bytes.endIndex {
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
        static func bodyIsWhole(_ body: ArraySlice<UInt8>) -> Bool {
            var at = body.startIndex + 1
            func number() -> UInt64? {
                guard let (value, end) = checked(body, at: at) else { return nil }
                at = end
                return value
            }
            let flags = body[body.startIndex]
            guard flags & ~(directoryFlag | unlinkedFlag | inlineFlag | alignedFlag) == 0 else { return false }
            if flags & inlineFlag != 0 { guard number() != nil else { return false } }
            guard number() != nil, let parents = number(), parents <= UInt64(body.count) else { return false }
            for _ in 0..<parents { guard number() != nil else { return false } }
            guard let references = number(), references <= UInt64(body.count) else { return false }
            for _ in 0..<references * 2 { guard number() != nil else { return false } }
            return at == body.endIndex
        }
    }
}

private func zigzag(_ value: UInt64) -> UInt64 { (value << 1) ^ UInt64(bitPattern: Int64(bitPattern: value) >> 63) }
private func unzigzag(_ value: UInt64) -> UInt64 { (value >> 1) ^ (0 &- (value & 1)) }
