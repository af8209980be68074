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
        // Compared as memory: a byte at a time through the generic sequence path, a
        // million files' records took a seventh of a listing that changed nothing.
        guard left.count == right.count, left.bytes.count == right.bytes.count else { return false }
        return left.bytes.withUnsafeBytes { a in right.bytes.withUnsafeBytes { b in sameBytes(a, b) } }
    }

    /// Equal buffers of equal length, compared eight bytes at a time.
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= a.count {
            guard
                a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        return a[offset...].elementsEqual(b[offset...])
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

    static let directoryFlag: UInt8 = 1, unlinkedFlag: UInt8 = 2, inlineFlag: UInt8 = 4
    static let alignedFlag: UInt8 = 8

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
            body.withUnsafeBufferPointer { appendBody(inode: inode, $0) }
        }

        mutating func appendBody(inode: UInt64, _ body: UnsafeBufferPointer<UInt8>) {
            precondition(count == 0 || inode > previous, "records in ascending order of inode")
            Self.number(inode &- previous, into: &bytes)
            Self.number(UInt64(body.count), into: &bytes)
            bytes.append(contentsOf: body)
            previous = inode
            count += 1
        }

        /// Appends `count` records as another `InodeRecords` holds them, the first of them
        /// at its distance from this writer's last (`applying` makes sure), `last` the inode of the last.
        mutating func appendCopied(_ records: UnsafeBufferPointer<UInt8>, count: Int, last: UInt64) {
            bytes.append(contentsOf: records)
            previous = last
            self.count += count
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

    /// These records with `changes` (ascending by inode; a record replaces or adds its
    /// inode's, nil removes it) applied. `replaced` sees each old record that a change
    /// replaced or removed. Unchanged records are copied as they are.
    @_optimize(speed)
    public func applying(
        _ changes: [(inode: UInt64, record: InodeRecord?)], replaced: (InodeRecord) -> Void = { _ in }
    ) -> InodeRecords {
        guard !changes.isEmpty else { return self }
        precondition(isChecked, "records read from a file are checked before they are walked")
        var writer = Writer()
        writer.bytes.reserveCapacity(bytes.count + changes.count * 16)
        var next = 0
        // Walked through the buffer, not entries: an entry's slice retained and released
        // the storage once per record, a third of a run that rewrote 1% of a million files.
        bytes.withUnsafeBufferPointer { stored in
            var offset = 0
            var inode: UInt64 = 0
            // Records that follow an unchanged record written just before them are byte
            // for byte what they were (an inode is a distance from the one before): copied
            // as one stretch, not appended one by one, a tenth of the same run.
            var stretch = (start: 0, count: 0, last: UInt64(0))
            var follows = false
            while offset < stored.count {
                let recordStart = offset
                inode &+= checkedNumber(stored, at: &offset)
                let length = Int(checkedNumber(stored, at: &offset))
                let bodyStart = offset
                offset += length
                let changed = next < changes.count && changes[next].inode <= inode
                if !changed && follows {
                    if stretch.count == 0 { stretch.start = recordStart }
                    stretch.count += 1; stretch.last = inode
                    continue
                }
                if stretch.count > 0 {
                    writer.appendCopied(
                        UnsafeBufferPointer(rebasing: stored[stretch.start..<recordStart]), count: stretch.count,
                        last: stretch.last)
                    stretch.count = 0
                }
                follows = true
                while next < changes.count, changes[next].inode < inode {
                    if let record = changes[next].record { writer.append(record) }
                    next += 1
                }
                let body = UnsafeBufferPointer(rebasing: stored[bodyStart..<offset])
                guard next < changes.count, changes[next].inode == inode else {
                    writer.appendBody(inode: inode, body)
                    continue
                }
                let from = bytes.startIndex + bodyStart
                replaced(Entry(inode: inode, body: bytes[from..<(from + length)]).record)
                if let record = changes[next].record { writer.append(record) }
                next += 1
                // The next record's distance was from this one: written again, not copied.
                follows = false
            }
            if stretch.count > 0 {
                writer.appendCopied(
                    UnsafeBufferPointer(rebasing: stored[stretch.start...]), count: stretch.count, last: stretch.last)
            }
        }
        for change in changes[next...] { if let record = change.record { writer.append(record) } }
        return writer.records
    }

}

/// The LEB128 number at `offset` of records written whole or checked (`validated`),
/// which moves past it: the one reading of a number, whatever holds the bytes.
@inline(__always)
func checkedNumber<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at offset: inout Int) -> UInt64
where Bytes.Index == Int {
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
