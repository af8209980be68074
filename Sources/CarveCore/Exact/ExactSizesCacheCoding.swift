/// Why a cache file was not used; it is then rebuilt.
public enum ExactSizesCacheDamage: Error, Equatable, CustomStringConvertible {
    /// Shorter than its header says, or than any header.
    case truncated
    /// Not a carve cache file at all.
    case notACacheFile
    /// Written by a carve with another layout.
    case otherVersion(UInt32)
    /// The checksum does not match: a byte changed since it was written.
    case checksum
    /// The checksum matches but the content contradicts itself (a bug, or a forged file).
    case malformed(String)

    public var description: String {
        switch self {
        case .truncated: "it is truncated"
        case .notACacheFile: "it is not a carve cache file"
        case .otherVersion(let version): "it is of version \(version), not \(ExactSizesCache.version)"
        case .checksum: "its checksum does not match"
        case .malformed(let what): "it is malformed (\(what))"
        }
    }
}

/// The file layout: a 32-byte header (magic "carve-xc", version, zero, payload length,
/// checksum of the payload; little-endian) and the payload of LEB128 numbers: the
/// filesystem UUID, the node size, the trees in the map's order (id, UUID, generation,
/// inline bytes + 1 or 0, tree bytes, 1 for a writable tree kept with its state or 0),
/// then the extents ascending by bytenr, each as the distance from the previous one,
/// its length and its runs of tree indices (distance from the previous run's end,
/// length - 1), then each writable tree's state (`WritableTreeState`: the generations
/// its read spanned, its totals, the inodes it reads each run and its repeated extents as distances
/// from the previous one, its records' count and bytes as `InodeRecords` packs them),
/// then the directory hints of each lineage (its UUID, then per directory its id as the
/// distance from the previous one, the bits of its leaf bytes per size byte, its
/// entries' leaf bytes). About 7 bytes per extent of a series, 15 per file of a
/// writable tree. Version 2 added the writable trees: a version 1 file is rebuilt.
extension ExactSizesCache {
    public static let version: UInt32 = 2
    static let magic = Array("carve-xc".utf8)
    static let headerSize = 32

    public func encoded() -> [UInt8] { encoded(extentCount: extents.count, zip(extents, sets)) }

    /// This cache's trees and hints with the `extentCount` extents of `given` (ascending
    /// by key) in place of its own. A sequence, not a closure that calls back per extent:
    /// the writer it captured was checked for exclusive access at every byte.
    func encoded<Extents: Sequence<(ExtentKey, SubvolumeSet)>>(extentCount: Int, _ given: Extents) -> [UInt8] {
        // The header's room first, filled in at the end, and room for about 7 bytes an
        // extent: growing by doubling and then copying the payload behind the header
        // held up to three times the file (30 MB for 1.5 M extents) at once.
        var out = CacheWriter()
        // The writable trees' records too: a million files' 15 MB appended past the
        // reservation doubled the buffer (40 MB more at the first listing's peak).
        let records = trees.reduce(0) {
            $0 + ($1.state.map { $0.records.bytes.count + 10 * $0.readEachRun.count + 24 * $0.repeated.count } ?? 0)
        }
        out.bytes.reserveCapacity(Self.headerSize + 8 * extentCount + 64 * trees.count + records + 4096)
        out.bytes += [UInt8](repeating: 0, count: Self.headerSize)
        out.text(filesystem)
        out.number(nodeSize)
        out.number(UInt64(trees.count))
        for tree in trees {
            out.number(tree.id); out.text(tree.uuid.text); out.number(tree.generation)
            out.number(tree.hasInline ? tree.inlineBytes + 1 : 0); out.number(tree.treeBytes)
            out.number(tree.state == nil ? 0 : 1)
        }
        out.number(UInt64(extentCount))
        out.extents(given)
        // Each state read where it is: a map made a copy of all ten thousand (a megabyte).
        for index in trees.indices { if let state = trees[index].state { out.state(state) } }
        out.number(UInt64(directoryHints.count))
        for (lineage, hints) in directoryHints.sorted(by: { $0.key.text < $1.key.text }) {
            out.text(lineage.text)
            out.number(UInt64(hints.count))
            var id: UInt64 = 0
            for hint in hints {
                out.number(hint.id &- id); out.number(hint.leafBytesPerSizeByte.bitPattern);
                out.number(hint.entryLeafBytes)
                id = hint.id
            }
        }
        var header = Self.magic
        // No slice kept past the checksum: one still held would make the change below copy.
        let checksum = Self.checksum(out.bytes[Self.headerSize...])
        // The version's word holds the version, then four zero bytes.
        for value in [UInt64(Self.version), UInt64(out.bytes.count - Self.headerSize), checksum] {
            header += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        out.bytes.replaceSubrange(0..<Self.headerSize, with: header)
        return out.bytes
    }

    // Compiled for speed, not for size as the rest of the module: measured while the
    // extents' loop was still here (it is in RawCacheReader now, compiled for speed too),
    // decoding took a fifth fewer instructions; what stays is the loop over the trees.
    @_optimize(speed)
    public init(decoding bytes: [UInt8]) throws(ExactSizesCacheDamage) {
        guard bytes.count >= Self.headerSize else { throw .truncated }
        guard Array(bytes[0..<8]) == Self.magic else { throw .notACacheFile }
        func word(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        let version = UInt32(truncatingIfNeeded: word(8))
        guard version == Self.version, word(8) >> 32 == 0 else { throw .otherVersion(version) }
        guard UInt64(bytes.count - Self.headerSize) == word(16) else { throw .truncated }
        let payload = bytes[Self.headerSize...]
        guard Self.checksum(payload) == word(24) else { throw .checksum }
        var reader = CacheReader(bytes: payload)
        let filesystem = try reader.text()
        let nodeSize = try reader.number()
        let treeCount = try reader.count(atMost: payload.count)
        var trees: [Tree] = []
        trees.reserveCapacity(treeCount)
        for _ in 0..<treeCount {
            let id = try reader.number(), uuid = SubvolumeUUID(try reader.text()), generation = try reader.number()
            let inline = try reader.number(), treeBytes = try reader.number(), kind = try reader.number()
            guard kind <= 1 else { throw .malformed("a tree of no known kind") }
            trees.append(
                Tree(
                    id: id, uuid: uuid, generation: generation, inlineBytes: inline == 0 ? 0 : inline - 1,
                    hasInline: inline != 0, treeBytes: treeBytes,
                    state: kind == 1 ? WritableTreeState(readFrom: 0, readUntil: 0, records: InodeRecords()) : nil))
        }
        // `order` lists each id once, so an id written twice fails this too.
        let ids = trees.map(\.id)
        var writable = Set<UInt64>()
        for index in trees.indices where trees[index].isWritable { writable.insert(trees[index].id) }
        guard ExtentMap.order(ids, writable: writable) == ids else { throw .malformed("trees out of order") }
        let extentCount = try reader.count(atMost: payload.count)
        // With the sixteenth to spare that the map seeded from them keeps for a run's new
        // extents: they become its storage, and growing them later would copy them.
        let (extents, sets) = try reader.extents(count: extentCount, treeCount: treeCount)
        for index in trees.indices where trees[index].state != nil {
            trees[index].state = try reader.state(trees: treeCount)
        }
        var hints: [SubvolumeUUID: [DirectoryHint]] = [:]
        for _ in 0..<(try reader.count(atMost: payload.count)) {
            let lineage = SubvolumeUUID(try reader.text())
            var list: [DirectoryHint] = []
            var id: UInt64 = 0
            for _ in 0..<(try reader.count(atMost: payload.count)) {
                id = id &+ (try reader.number())
                let ratio = Double(bitPattern: try reader.number())
                guard ratio.isFinite, ratio >= 0 else { throw .malformed("a directory hint of no size") }
                list.append(DirectoryHint(id: id, leafBytesPerSizeByte: ratio, entryLeafBytes: try reader.number()))
            }
            hints[lineage] = list
        }
        guard reader.atEnd else { throw .malformed("bytes after the last directory hint") }
        self.init(filesystem: filesystem, nodeSize: nodeSize, trees: trees, extents: extents, sets: sets)
        directoryHints = hints
    }

    /// A 64-bit checksum over 8-byte words, each step a bijection of the state: any
    /// one changed word (so any flipped byte) changes the result.
    public static func checksum(_ bytes: [UInt8]) -> UInt64 { checksum(bytes[...]) }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var state: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                state = (state ^ word) &* 0x0000_0100_0000_01B3
                state ^= state >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            for (shift, index) in (offset..<raw.count).enumerated() { tail |= UInt64(raw[index]) << (8 * shift) }
            state = (state ^ tail) &* 0x0000_0100_0000_01B3
            state ^= state >> 29
        }
        return state
    }
}

/// LEB128 numbers and length-prefixed UTF-8 text, appended.
struct CacheWriter {
    var bytes: [UInt8] = []
    /// Most numbers are below 128: one byte, appended without a loop or a call.
    @inline(__always)
    mutating func number(_ value: UInt64) {
        if value < 0x80 { return bytes.append(UInt8(value)) }
        longNumber(value)
    }

    // Compiled for speed, not for size as the rest of the module: there each byte's
    // append was a call, a third of the cache written after 1% of a million files changed.
    @_optimize(speed)
    private mutating func longNumber(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
    mutating func text(_ value: String) {
        number(UInt64(value.utf8.count))
        bytes += value.utf8
    }
}

/// Reads what `CacheWriter` wrote; any read past the end or overlong number is damage.
struct CacheReader {
    let bytes: ArraySlice<UInt8>
    var offset: Int
    var atEnd: Bool { offset == bytes.endIndex }

    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes; offset = bytes.startIndex }

    /// A number; most are below 128, one byte, read here without a call (a million
    /// extents are several million numbers).
    @inline(__always)
    mutating func number() throws(ExactSizesCacheDamage) -> UInt64 {
        guard offset < bytes.endIndex else { throw .truncated }
        let first = bytes[offset]
        if first < 0x80 {
            offset += 1
            return UInt64(first)
        }
        return try longNumber()
    }

    @_optimize(speed)
    private mutating func longNumber() throws(ExactSizesCacheDamage) -> UInt64 {
        try leb128 {
            guard offset < bytes.endIndex else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }
    }

    /// A count that cannot exceed `limit` (each counted thing takes a byte or more).
    @inline(__always)
    mutating func count(atMost limit: Int) throws(ExactSizesCacheDamage) -> Int {
        let value = try number()
        guard value <= UInt64(limit) else { throw .malformed("a count larger than the file") }
        return Int(value)
    }

    /// The length of bytes that follow it, within the bytes left. (Measured after the
    /// length is read: measured before, the room counted the length's own bytes, and a
    /// forged length ran past the end; the exact-cache fuzz target found it.)
    mutating func length() throws(ExactSizesCacheDamage) -> Int {
        let value = try number()
        guard value <= UInt64(bytes.endIndex - offset) else { throw .truncated }
        return Int(value)
    }

    mutating func text() throws(ExactSizesCacheDamage) -> String {
        let length = try length()
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }
}
