/// A data extent on disk: where it starts and how many bytes it takes there
/// (the compressed size when compressed). Every file extent item pointing into
/// it, whatever part it uses, names the same extent.
public struct ExtentKey: Sendable, Hashable, Codable, Comparable {
    public var diskBytenr: UInt64
    public var diskBytes: UInt64
    public init(diskBytenr: UInt64, diskBytes: UInt64) { self.diskBytenr = diskBytenr; self.diskBytes = diskBytes }

    /// By where it starts, then by its size: the order of the cache's extents.
    public static func < (left: ExtentKey, right: ExtentKey) -> Bool {
        left.diskBytenr != right.diskBytenr ? left.diskBytenr < right.diskBytenr : left.diskBytes < right.diskBytes
    }
}

/// Which subvolumes reference which data extents, built one reference at a time
/// while the subvolume trees are read. Memory grows with the number of distinct
/// extents (one compact subvolume set each), not with the number of files or references.
///
/// An extent is freed only when no subvolume references any part of it, so a set
/// of subvolumes frees exactly the extents whose referencing subvolumes all lie in
/// the set, each counted once at its on-disk size.
public struct ExtentMap: Sendable {
    /// Volume ids in index order.
    public private(set) var subvolumeIDs: [UInt64] = []
    private var indices: [UInt64: UInt32] = [:]
    private var extents = ExtentTable()
    /// Bytes of inline extents per subvolume id: file data stored inside tree leaves,
    /// which is metadata and freed with the leaves, not counted as data here.
    public private(set) var inlineBytes: [UInt64: UInt64] = [:]

    /// The top-level subvolume's id (5), numbered first.
    public static let topLevel: UInt64 = 5

    /// The index order of a map of `ids`: the top level, the read-only trees by id
    /// (creation order), then the `writable` ones by id. A writable subvolume holds what
    /// its newest snapshot holds plus what changed since, so right after that snapshot
    /// an extent it shares with its snapshots stays one run; numbered by id, before its
    /// snapshots, each extent written since the first snapshot took a second run, a heap
    /// array of its own (on 1 M files and 50 snapshots, some 400,000 of them). Read-only
    /// trees stay in id order, as the cache's translation between numberings needs.
    public static func order(_ ids: [UInt64], writable: Set<UInt64>) -> [UInt64] {
        // Sorted and walked beside the writable ids, sorted too: hashing each of ten
        // thousand ids into a set, then twice more to ask whether it is writable, cost more.
        let writable = writable.sorted()
        var readOnlyInOrder: [UInt64] = [], writableInOrder: [UInt64] = []
        readOnlyInOrder.reserveCapacity(ids.count)
        var next = 0
        var last: UInt64?
        for id in ids.sorted() where id != last {
            last = id
            while next < writable.count && writable[next] < id { next += 1 }
            if id != topLevel && next < writable.count && writable[next] == id {
                writableInOrder.append(id)
            } else {
                readOnlyInOrder.append(id)
            }
        }
        return readOnlyInOrder + writableInOrder
    }

    /// `subvolumes` fixes the index order; give them in `order`'s order, so that the
    /// sets of extents shared by consecutive snapshots stay one run.
    public init(subvolumes: [UInt64] = []) {
        // Room made first: growing the table rehashed every id already in it, ten thousand times over.
        indices.reserveCapacity(subvolumes.count); subvolumeIDs.reserveCapacity(subvolumes.count)
        for id in subvolumes { _ = index(of: id) }
    }

    /// A map of `subvolumes` holding `keys` (distinct) with their `sets` (indices into
    /// `subvolumes`), which become its storage: handed over as the only reference,
    /// they are not copied (a map seeded from the cache holds its extents once).
    init(subvolumes: [UInt64], keys: [ExtentKey], sets: [SubvolumeSet]) {
        self.init(subvolumes: subvolumes)
        extents = ExtentTable(keys: keys, sets: sets)
    }

    /// Makes room for `count` distinct extents (a map seeded from the cache, whose size is known).
    public mutating func reserveExtents(_ count: Int) { extents.reserve(count) }

    /// Records every reference of one subvolume at once (a scanned tree): each a
    /// regular or preallocated file extent item pointing into the extent at
    /// `diskBytenr`. Holes (`diskBytenr` 0) free nothing and are skipped.
    public mutating func addReferences(subvolume: UInt64, _ references: [ExtentKey]) {
        let member = index(of: subvolume)
        references.withUnsafeBufferPointer { extents.insert($0, member: member) }
    }

    /// As `addReferences`, for references in ascending order: merged with the map's
    /// extents while those are in order (`ExtentTable.insert(ascending:member:)`).
    public mutating func addReferences(subvolume: UInt64, ascending references: [ExtentKey]) {
        let member = index(of: subvolume)
        references.withUnsafeBufferPointer { extents.insert(ascending: $0, member: member) }
    }

    /// As `addReferences`, for a tree's references as a scan's worker packed them.
    public mutating func addReferences(subvolume: UInt64, _ references: PackedReferences) {
        let member = index(of: subvolume)
        references.forEachBatch { extents.insert($0, member: member) }
    }

    /// As `addReferences`, for a writable tree whose state is kept: counts in `repeated`,
    /// per extent the tree references more than once, the references beyond the first.
    public mutating func addReferences(
        subvolume: UInt64, _ references: PackedReferences, repeated: inout [ExtentKey: UInt32]
    ) {
        let member = index(of: subvolume)
        references.forEachBatch { extents.insert($0, member: member, repeated: &repeated) }
    }

    /// A tree's references after some of its files changed: each of `added` joins it,
    /// each of `removed` leaves it, and an extent stays the tree's while any reference
    /// to it is left (`repeated` as `addReferences` counts them). False, with the map
    /// then unusable, when a reference to remove was not the tree's: the state the
    /// changes were made against was not this map's.
    public mutating func changeReferences(
        subvolume: UInt64, added: [ExtentKey], removed: [ExtentKey], repeated: inout [ExtentKey: UInt32]
    ) -> Bool {
        let member = index(of: subvolume)
        // In order, so that while the extents are in order too (the cache's) both are
        // merged with them rather than looked up through an index built for the purpose.
        var (added, removed) = (added, removed)
        RadixSort.sort(&added)
        RadixSort.sort(&removed)
        // Added first, so that a reference moved between two files never leaves the tree.
        added.withUnsafeBufferPointer { extents.insert(ascending: $0, member: member, repeated: &repeated) }
        var leaving: [ExtentKey] = []
        for key in removed where key.diskBytenr != 0 {
            if let more = repeated[key] {
                repeated[key] = more > 1 ? more - 1 : nil
            } else {
                leaving.append(key)
            }
        }
        return leaving.withUnsafeBufferPointer { extents.remove(ascending: $0, member: member) }
    }

    /// Whether `subvolume` references the extent `key`.
    public func references(_ key: ExtentKey, subvolume: UInt64) -> Bool {
        guard let member = indices[subvolume] else { return false }
        return extents.contains(key, member: member)
    }

    /// Sets `subvolume`'s inline bytes (nil: it has no inline extent).
    public mutating func setInline(subvolume: UInt64, bytes: UInt64?) {
        _ = index(of: subvolume)
        inlineBytes[subvolume] = bytes
    }

    /// Records an inline extent of `bytes` in `subvolume`.
    public mutating func addInline(subvolume: UInt64, bytes: UInt64) {
        _ = index(of: subvolume)
        inlineBytes[subvolume, default: 0] += bytes
    }

    /// Puts the extents in ascending order and drops the index a scan built: called once
    /// the scan is done (`ExtentTable.settle`). A change made after builds it again.
    public mutating func settle() { extents.settle() }

    /// The extents are in ascending order of key (`settle`, or a map seeded from the cache).
    var isSettled: Bool { extents.isSettled }

    /// The number of distinct data extents.
    public var extentCount: Int { extents.count }

    /// On-disk bytes of every data extent referenced by any subvolume.
    public var totalBytes: UInt64 { extents.keys.reduce(0) { $0 + $1.diskBytes } }

    func set(of key: ExtentKey) -> SubvolumeSet? { extents.set(of: key) }

    /// The extents and their sets, by position (`forEachExtent`'s order).
    var keys: [ExtentKey] { extents.keys }
    var sets: [SubvolumeSet] { extents.sets }

    mutating func restore(_ key: ExtentKey, set: SubvolumeSet) { extents.store(key, set: set) }

    /// Every extent with its set, in no particular order.
    func forEachExtent(_ body: (ExtentKey, SubvolumeSet) -> Void) {
        for (key, set) in zip(extents.keys, extents.sets) { body(key, set) }
    }

    /// Per subvolume id: on-disk bytes of the extents only it references (what
    /// deleting it alone frees). Every subvolume of the map has an entry.
    public func exclusiveBytes() -> [UInt64: UInt64] { byID(exclusiveBytesByPosition()) }

    /// Per subvolume id: on-disk bytes of every extent it references (each once).
    public func referencedBytes() -> [UInt64: UInt64] { byID(referencedBytesByPosition()) }

    /// Where subvolume `id` is in `subvolumeIDs`, if the map knows it.
    public func position(of id: UInt64) -> Int? { indices[id].map(Int.init) }

    /// `exclusiveBytes` by position in `subvolumeIDs`: no table of ten thousand ids made
    /// for a caller that walks its own subvolumes.
    public func exclusiveBytesByPosition() -> [UInt64] {
        var totals = [UInt64](repeating: 0, count: subvolumeIDs.count)
        forEachExtent { key, set in if set.isSingle { totals[Int(set.lower)] += key.diskBytes } }
        return totals
    }

    /// `referencedBytes` by position in `subvolumeIDs`.
    public func referencedBytesByPosition() -> [UInt64] {
        // A difference array over indices: each run adds its extent's bytes once.
        var delta = [Int64](repeating: 0, count: subvolumeIDs.count + 1)
        forEachExtent { key, set in
            set.forEachRun { lower, upper in
                delta[Int(lower)] += Int64(key.diskBytes)
                delta[Int(upper) + 1] -= Int64(key.diskBytes)
            }
        }
        var totals = [UInt64](repeating: 0, count: subvolumeIDs.count)
        var running: Int64 = 0
        for index in totals.indices {
            running += delta[index]
            totals[index] = UInt64(running)
        }
        return totals
    }

    /// On-disk bytes that deleting every subvolume in `ids` together frees: the
    /// extents referenced by members of the set only. Ids the map does not know are ignored.
    public func reclaim(deleting ids: some Sequence<UInt64>) -> UInt64 {
        var total: UInt64 = 0
        forEachExtent(onlyIn: ids) { key, _ in total += key.diskBytes }
        return total
    }

    /// Every extent that only members of `ids` reference, with its set: what `reclaim`
    /// counts, one extent at a time (`PinnedExtents` finds the files they belong to).
    func forEachExtent(onlyIn ids: some Sequence<UInt64>, _ body: (ExtentKey, SubvolumeSet) -> Void) {
        // prefix[i] counts members among indices below i, so a run lies inside the
        // set exactly when the count over it equals its length.
        var member = [Bool](repeating: false, count: subvolumeIDs.count)
        for id in ids { if let index = indices[id] { member[Int(index)] = true } }
        var prefix = [Int](repeating: 0, count: member.count + 1)
        for index in member.indices { prefix[index + 1] = prefix[index] + (member[index] ? 1 : 0) }
        forEachExtent { key, set in
            var inside = true
            set.forEachRun { lower, upper in
                if prefix[Int(upper) + 1] - prefix[Int(lower)] != Int(upper - lower) + 1 { inside = false }
            }
            if inside { body(key, set) }
        }
    }

    /// What deleting `order` one after another frees: element k is the reclaim of
    /// the first k+1 together (not a sum of single reclaims). One pass over the extents.
    public func reclaimCurve(deleting order: [UInt64]) -> [UInt64] {
        guard !order.isEmpty else { return [] }
        // An extent comes free at the step of its last referencer to go; never when
        // a referencer is not in `order`.
        let never = Int.max
        var step = [Int](repeating: never, count: subvolumeIDs.count)
        for (position, id) in order.enumerated() {
            if let index = indices[id], step[Int(index)] == never { step[Int(index)] = position }
        }
        let latest = RangeMaximum(step)
        var freedAt = [UInt64](repeating: 0, count: order.count)
        forEachExtent { key, set in
            var last = 0
            set.forEachRun { lower, upper in last = max(last, latest.maximum(Int(lower), Int(upper))) }
            if last != never { freedAt[last] += key.diskBytes }
        }
        var running: UInt64 = 0
        return freedAt.map {
            running += $0; return running
        }
    }

    private mutating func index(of id: UInt64) -> UInt32 {
        if let index = indices[id] { return index }
        let index = UInt32(subvolumeIDs.count)
        indices[id] = index
        subvolumeIDs.append(id)
        return index
    }

    private func byID(_ totals: [UInt64]) -> [UInt64: UInt64] {
        var result: [UInt64: UInt64] = [:]
        result.reserveCapacity(subvolumeIDs.count)
        for (index, id) in subvolumeIDs.enumerated() { result[id] = totals[index] }
        return result
    }
}

/// Maximum over any index range in O(1) after O(n log n) set-up (a sparse table),
/// so that an extent shared by thousands of snapshots costs one lookup per run.
struct RangeMaximum {
    private var levels: [[Int]]

    init(_ values: [Int]) {
        levels = [values]
        var width = 1
        while width * 2 <= values.count {
            let previous = levels[levels.count - 1]
            levels.append((0...(values.count - width * 2)).map { max(previous[$0], previous[$0 + width]) })
            width *= 2
        }
    }

    /// The maximum of values[lower...upper].
    func maximum(_ lower: Int, _ upper: Int) -> Int {
        let length = upper - lower + 1
        let level = Int.bitWidth - 1 - length.leadingZeroBitCount
        let row = levels[level]
        return max(row[lower], row[upper - (1 << level) + 1])
    }
}
