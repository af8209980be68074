/// The extents of an `ExtentMap` and their subvolume sets in flat arrays, found
/// through an open-addressing index keyed by disk bytenr. A scan adds millions of
/// references, almost all to extents already known (snapshots share them), so a
/// lookup must cost a multiply and a probe or two: no per-key hashing of a generic
/// dictionary, no allocation per reference.
struct ExtentTable: Sendable {
    private(set) var keys: [ExtentKey] = []
    private(set) var sets: [SubvolumeSet] = []
    /// About two slots a key when built (`slotCount(for:)`), and grown by half once
    /// seven slots in ten are taken, so probe runs stay short. Doubled at one in two,
    /// a scan's 1.6 M extents were left in 4.2 M slots (33 MB), a quarter of a first
    /// listing's peak; grown so, they take 3.1 M. Any count (a slot is picked by
    /// multiplying, not masking), so that an index sized for a known count is not
    /// rounded up to the next power of two (on 1.5 M extents that rounding alone cost 32 MB).
    /// Empty while no lookup needed it, the keys then in ascending order: a run that
    /// reads no tree (the cache current) only sums the sets, and building the index of
    /// 1.5 M extents was a sixth of its time.
    private var slots = [Slot](repeating: Slot(), count: 16)

    var count: Int { keys.count }

    /// 8 bytes: where the key is and a tag of its bytenr, so that a probe past other
    /// keys reads the index only; the key itself is read once, to confirm a match.
    /// (A 16-byte slot holding the whole bytenr made the index 43 bytes an extent
    /// after rounding; this one is 16.)
    private struct Slot {
        var tag: UInt32 = 0
        /// Position in `keys` plus one, 0 for an empty slot.
        var stored: UInt32 = 0
        init() {}
        init(_ key: ExtentKey, position: Int) {
            tag = ExtentTable.tag(key.diskBytenr); stored = UInt32(position + 1)
        }
    }

    init() {}

    /// A table of `keys` (distinct) and their `sets`, taken as they are: the arrays
    /// become the table's storage (no copy when the caller hands over its only
    /// reference), only the index is built.
    init(keys: [ExtentKey], sets: [SubvolumeSet]) {
        precondition(keys.count == sets.count, "one set per key")
        self.keys = keys
        self.sets = sets
        let ascending = keys.withUnsafeBufferPointer { keys in
            keys.indices.dropFirst().allSatisfy { keys[$0 - 1] < keys[$0] }
        }
        slots = []
        if !ascending || keys.isEmpty { indexIfNeeded() }
    }

    /// An index's slots for `count` keys, built at once: two a key with a sixteenth to spare.
    private static func slotCount(for count: Int) -> Int { max(16, 2 * (count + count / 16)) }

    /// Builds the index a change needs (the keys stop being in order).
    private mutating func indexIfNeeded() {
        if slots.isEmpty { rebuildIndex(slotCount: Self.slotCount(for: keys.count)) }
    }

    /// Makes room for `count` extents at once: a table grown by doubling holds the old
    /// index and the new one together at each step (on a million extents, tens of MB
    /// more at the peak than the table itself).
    mutating func reserve(_ count: Int) {
        // The arrays with a sixteenth to spare (a run adds a few).
        keys.reserveCapacity(count + count / 16)
        sets.reserveCapacity(count + count / 16)
        let wanted = Self.slotCount(for: count)
        if wanted > slots.count { rebuildIndex(slotCount: wanted) }
    }

    /// Once a scan is done: the index is dropped and the extents put in ascending order
    /// in place, so that lookups halve the keys and the cache is written from the table
    /// as it stands. The index (16 bytes an extent) and the sorted copy the cache's
    /// writer made were most of a first listing's peak; the arrays' spare room is not
    /// given back, because copying them to fit held both copies at once, and room never
    /// written to is never paged in.
    mutating func settle() {
        guard !slots.isEmpty else { return }
        slots = []
        keys.withUnsafeMutableBufferPointer { keys in
            sets.withUnsafeMutableBufferPointer { sets in sortJointly(keys, sets) }
        }
    }

    /// The keys are in ascending order: the index is not built (`settle`).
    var isSettled: Bool { slots.isEmpty }

    /// Adds `member` to the set of the extent `key`, making the extent if it is new.
    mutating func insert(_ key: ExtentKey, member: UInt32) {
        indexIfNeeded()
        let found = position(of: key)
        if found >= 0 {
            sets[found].insert(member)
            return
        }
        store(key, set: SubvolumeSet(member))
    }

    /// Adds `member` to the sets of all `references` in one pass over the storage.
    mutating func insert(_ references: UnsafeBufferPointer<ExtentKey>, member: UInt32) {
        for key in references where key.diskBytenr != 0 { insert(key, member: member) }
    }

    /// Adds `member` to the sets of `references`, ascending, making the extents that are
    /// new. While the keys are in order (no index built: a run's first change), the two
    /// are merged (`SortedExtents`): a new snapshot's million references, each found
    /// through the index, missed the cache three times apiece (0.4 s of a listing after
    /// one was taken). Through the index when there is one.
    mutating func insert(ascending references: UnsafeBufferPointer<ExtentKey>, member: UInt32) {
        guard slots.isEmpty else { return insert(references, member: member) }
        SortedExtents.merge(references, into: &keys, sets: &sets, member: member) { _ in }
    }

    /// As `insert(ascending:member:)`, counting in `repeated` each reference to an extent
    /// `member` already had (`insert(_:member:repeated:)`).
    mutating func insert(
        ascending references: UnsafeBufferPointer<ExtentKey>, member: UInt32, repeated: inout [ExtentKey: UInt32]
    ) {
        guard slots.isEmpty else { return insert(references, member: member, repeated: &repeated) }
        SortedExtents.merge(references, into: &keys, sets: &sets, member: member) { repeated[$0, default: 0] += 1 }
    }

    /// Takes `member` out of the sets of `references` (ascending), and out of the table
    /// each extent left with no member: merged while the keys are in order, through the
    /// index when there is one. False when `member` did not reference one of them (the
    /// table is then not to be used).
    mutating func remove(ascending references: UnsafeBufferPointer<ExtentKey>, member: UInt32) -> Bool {
        guard slots.isEmpty else { return references.allSatisfy { remove($0, member: member) } }
        return SortedExtents.remove(references, from: &keys, sets: &sets, member: member)
    }

    /// As `insert(_:member:)`, counting in `repeated` each reference to an extent
    /// `member` already had (a writable tree's reflinks, whose state is kept).
    mutating func insert(
        _ references: UnsafeBufferPointer<ExtentKey>, member: UInt32, repeated: inout [ExtentKey: UInt32]
    ) {
        guard !references.isEmpty else { return }
        indexIfNeeded()
        for key in references where key.diskBytenr != 0 {
            let found = position(of: key)
            if found < 0 {
                store(key, set: SubvolumeSet(member))
            } else if !sets[found].insert(member) {
                repeated[key, default: 0] += 1
            }
        }
    }

    /// Takes `member` out of the set of `key`, and the extent out when no member is
    /// left; false when `member` did not reference it.
    mutating func remove(_ key: ExtentKey, member: UInt32) -> Bool {
        indexIfNeeded()
        let found = position(of: key)
        guard found >= 0 else { return false }
        switch sets[found].remove(member) {
        case false?: return false
        case true?: return true
        case nil:
            removeExtent(at: found)
            return true
        }
    }

    /// Whether `member` references `key`.
    func contains(_ key: ExtentKey, member: UInt32) -> Bool {
        let found = position(of: key)
        return found >= 0 && sets[found].contains(member)
    }

    /// Removes the extent at `position`: its slot by backward shift (linear probing
    /// keeps no tombstones), then the last extent moved into its place.
    private mutating func removeExtent(at position: Int) {
        let count = slots.count
        var hole = Self.slot(keys[position].diskBytenr, count: count)
        while Int(slots[hole].stored) - 1 != position {
            hole += 1
            if hole == count { hole = 0 }
        }
        var next = hole
        while true {
            next += 1
            if next == count { next = 0 }
            let probe = slots[next]
            if probe.stored == 0 { break }
            let home = Self.slot(keys[Int(probe.stored) - 1].diskBytenr, count: count)
            // The entry at `next` may move back into the hole unless its home lies
            // cyclically in (hole, next].
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                slots[hole] = probe
                hole = next
            }
        }
        slots[hole] = Slot()
        let last = keys.count - 1
        if position != last {
            var moved = Self.slot(keys[last].diskBytenr, count: count)
            while Int(slots[moved].stored) - 1 != last {
                moved += 1
                if moved == count { moved = 0 }
            }
            slots[moved].stored = UInt32(position + 1)
            keys[position] = keys[last]
            sets[position] = sets[last]
        }
        keys.removeLast()
        sets.removeLast()
    }

    /// Stores `set` as the whole set of `key` (decoding).
    mutating func store(_ key: ExtentKey, set: SubvolumeSet) {
        indexIfNeeded()
        let found = position(of: key)
        if found >= 0 { sets[found] = set; return }
        slots[-found - 1] = Slot(key, position: keys.count)
        keys.append(key)
        sets.append(set)
        if keys.count * 10 > slots.count * 7 { rebuildIndex(slotCount: slots.count + slots.count / 2) }
    }

    func set(of key: ExtentKey) -> SubvolumeSet? {
        let found = position(of: key)
        return found >= 0 ? sets[found] : nil
    }

    /// Where `key` is in `keys`, or nil when the table does not hold it.
    func index(of key: ExtentKey) -> Int? {
        let found = position(of: key)
        return found >= 0 ? found : nil
    }

    /// The position of `key` in `keys`, or -(empty slot + 1) where it would go.
    private func position(of key: ExtentKey) -> Int {
        if slots.isEmpty { return sortedPosition(of: key) }
        let count = slots.count
        var slot = Self.slot(key.diskBytenr, count: count)
        let tag = Self.tag(key.diskBytenr)
        while true {
            let probe = slots[slot]
            if probe.stored == 0 { return -slot - 1 }
            if probe.tag == tag && keys[Int(probe.stored) - 1] == key { return Int(probe.stored) - 1 }
            slot += 1
            if slot == count { slot = 0 }
        }
    }

    /// The position of `key` found by halving the ascending keys, or -1.
    private func sortedPosition(of key: ExtentKey) -> Int {
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : -1
    }

    /// Fibonacci hashing: bytenr times 2^64/phi, whose high bits, scaled to the slot
    /// count, spread extents on aligned addresses over the whole index.
    private static func slot(_ bytenr: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: (bytenr &* 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: UInt64(count)).high)
    }

    /// The bytenr's bits above the 4 KiB alignment: keys whose tags differ differ.
    private static func tag(_ bytenr: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: bytenr >> 12) }

    private mutating func rebuildIndex(slotCount: Int) {
        slots = []
        var fresh = [Slot](repeating: Slot(), count: slotCount)
        for (index, key) in keys.enumerated() {
            var slot = Self.slot(key.diskBytenr, count: slotCount)
            while fresh[slot].stored != 0 {
                slot += 1
                if slot == slotCount { slot = 0 }
            }
            fresh[slot] = Slot(key, position: index)
        }
        slots = fresh
    }
}
