/// A writable tree's state in the cache file (see `ExactSizesCache`'s layout): the
/// generations its read spanned, its totals, the inodes read each run, its repeated extents
/// and its records. The records are kept as the file's bytes and checked only when a
/// run walks them (`InodeRecords.checked`): a run in which the tree did not change
/// reads none of them.
extension CacheWriter {
    mutating func state(_ state: WritableTreeState) {
        number(state.readFrom); number(state.readUntil)
        number(state.leafBytes); number(state.inlineBytes); number(UInt64(state.inlineRecords))
        number(UInt64(state.readEachRun.count))
        var previous: UInt64 = 0
        for inode in state.readEachRun {
            number(inode &- previous)
            previous = inode
        }
        number(UInt64(state.repeated.count))
        previous = 0
        for (key, count) in state.repeated.sorted(by: {
            ($0.key.diskBytenr, $0.key.diskBytes) < ($1.key.diskBytenr, $1.key.diskBytes)
        }) {
            number(key.diskBytenr &- previous); number(key.diskBytes); number(UInt64(count))
            previous = key.diskBytenr
        }
        number(UInt64(state.records.count))
        number(UInt64(state.records.bytes.count))
        bytes += state.records.bytes
    }
}

extension CacheReader {
    mutating func state(trees: Int) throws(ExactSizesCacheDamage) -> WritableTreeState {
        let readFrom = try number(), readUntil = try number()
        guard readFrom <= readUntil else { throw .malformed("a read that ended before it began") }
        let leafBytes = try number(), inlineBytes = try number()
        let inlineRecords = try count(atMost: bytes.count)
        var readEachRun: [UInt64] = []
        var inode: UInt64 = 0
        for index in 0..<(try count(atMost: bytes.count)) {
            let step = try number()
            guard index == 0 || step > 0 else { throw .malformed("inodes read each run out of order") }
            inode &+= step
            readEachRun.append(inode)
        }
        var repeated: [ExtentKey: UInt32] = [:]
        var bytenr: UInt64 = 0
        for _ in 0..<(try count(atMost: bytes.count)) {
            bytenr &+= try number()
            let key = ExtentKey(diskBytenr: bytenr, diskBytes: try number())
            let count = try number()
            guard count > 0, count <= UInt64(UInt32.max), repeated[key] == nil else {
                throw .malformed("a repeated extent counted twice or not at all")
            }
            repeated[key] = UInt32(count)
        }
        let records = try count(atMost: bytes.count)
        let length = try length()
        guard records <= length else { throw .malformed("more records than bytes") }
        defer { offset += length }
        return WritableTreeState(
            readFrom: readFrom, readUntil: readUntil,
            records: InodeRecords(bytes: bytes[offset..<offset + length], count: records, checked: false),
            repeated: repeated,
            totals: (
                leafBytes: leafBytes, inlineBytes: inlineBytes, inlineRecords: inlineRecords, readEachRun: readEachRun
            ))
    }
}
