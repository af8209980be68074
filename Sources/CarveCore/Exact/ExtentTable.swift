/// The extents of an `ExtentMap` and their subvolume sets in flat arrays, found
/// through an open-addressing index keyed by disk bytenr. A scan adds millions of
/// references, almost all to extents already known (snapshots share them), so a
/// lookup must cost a multiply and a probe or two: no per-key hashing of a generic
/// dictionary, no allocation per reference.
struct ExtentTable: Sendable {
    private(set) var keys: [ExtentKey] = []
    private(set) var sets: [SubvolumeSet] = []
    /// The count is a power of two at least twice the number of keys, so probe runs
    /// stay short.
    private var slots = [Slot](repeating: Slot(), count: 16)
    private var shift = UInt64(64 - 4)

    var count: Int { keys.count }

    /// A copy of the key beside its position, so that a probe reads one cache line
    /// rather than chasing into `keys`. 16 bytes.
    private struct Slot {
        var bytenr: UInt64 = 0
        /// The low half of disk_num_bytes: the whole of it for any data extent
        /// (at most 128 MiB); `keys` decides when it is not.
        var bytes: UInt32 = 0
        /// Position in `keys` plus one, 0 for an empty slot.
        var stored: UInt32 = 0
        init() {}
        init(_ key: ExtentKey, position: Int) {
            bytenr = key.diskBytenr; bytes = UInt32(truncatingIfNeeded: key.diskBytes); stored = UInt32(position + 1)
        }
    }

    /// Makes room for `count` extents at once: a table grown by doubling holds the old
    /// index and the new one together at each step (on a million extents, tens of MB
    /// more at the peak than the table itself).
    mutating func reserve(_ count: Int) {
        // The arrays with a sixteenth to spare (a run adds a few); the index exactly,
        // since a power of two too many would double it.
        keys.reserveCapacity(count + count / 16)
        sets.reserveCapacity(count + count / 16)
        guard count * 2 > slots.count else { return }
        var size = slots.count
        while count * 2 > size { size *= 2 }
        shift = UInt64(64 - size.trailingZeroBitCount)
        let stored = keys
        slots = [Slot](repeating: Slot(), count: size)
        let mask = size - 1
        for (index, key) in stored.enumerated() {
            var slot = Self.slot(key.diskBytenr, shift: shift)
            while slots[slot].stored != 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(key, position: index)
        }
    }

    /// Adds `member` to the set of the extent `key`, making the extent if it is new.
    mutating func insert(_ key: ExtentKey, member: UInt32) {
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

    /// Stores `set` as the whole set of `key` (decoding).
    mutating func store(_ key: ExtentKey, set: SubvolumeSet) {
        let found = position(of: key)
        if found >= 0 { sets[found] = set; return }
        slots[-found - 1] = Slot(key, position: keys.count)
        keys.append(key)
        sets.append(set)
        if keys.count * 2 > slots.count { grow() }
    }

    func set(of key: ExtentKey) -> SubvolumeSet? {
        let found = position(of: key)
        return found >= 0 ? sets[found] : nil
    }

    /// The position of `key` in `keys`, or -(empty slot + 1) where it would go.
    private func position(of key: ExtentKey) -> Int {
        let mask = slots.count - 1
        var slot = Self.slot(key.diskBytenr, shift: shift)
        let bytes = UInt32(truncatingIfNeeded: key.diskBytes)
        while true {
            let probe = slots[slot]
            if probe.stored == 0 { return -slot - 1 }
            if probe.bytenr == key.diskBytenr && probe.bytes == bytes
                && (key.diskBytes <= UInt32.max || keys[Int(probe.stored) - 1] == key)
            {
                return Int(probe.stored) - 1
            }
            slot = (slot + 1) & mask
        }
    }

    /// Fibonacci hashing: the high bits of bytenr times 2^64/phi, so extents on
    /// aligned addresses spread over the whole index.
    private static func slot(_ bytenr: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (bytenr &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        shift -= 1
        var fresh = [Slot](repeating: Slot(), count: slots.count * 2)
        let mask = fresh.count - 1
        for (index, key) in keys.enumerated() {
            var slot = Self.slot(key.diskBytenr, shift: shift)
            while fresh[slot].stored != 0 { slot = (slot + 1) & mask }
            fresh[slot] = Slot(key, position: index)
        }
        slots = fresh
    }
}

/// Equality, hashing and coding see the map's content, not the order the table
/// happened to store it in.
extension ExtentMap: Hashable, Codable {
    private enum CodingKeys: String, CodingKey { case subvolumeIDs, extents, inlineBytes }
    private struct Entry: Codable { var key: ExtentKey; var set: SubvolumeSet }

    private var sortedEntries: [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(extentCount)
        forEachExtent { entries.append(Entry(key: $0, set: $1)) }
        return entries.sorted { ($0.key.diskBytenr, $0.key.diskBytes) < ($1.key.diskBytenr, $1.key.diskBytes) }
    }

    public static func == (left: ExtentMap, right: ExtentMap) -> Bool {
        guard left.subvolumeIDs == right.subvolumeIDs, left.inlineBytes == right.inlineBytes,
            left.extentCount == right.extentCount
        else { return false }
        var same = true
        left.forEachExtent { key, set in if same && right.set(of: key) != set { same = false } }
        return same
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(subvolumeIDs)
        hasher.combine(inlineBytes)
        hasher.combine(extentCount)
        hasher.combine(totalBytes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(subvolumes: try container.decode([UInt64].self, forKey: .subvolumeIDs))
        for entry in try container.decode([Entry].self, forKey: .extents) { restore(entry.key, set: entry.set) }
        for (id, bytes) in try container.decode([UInt64: UInt64].self, forKey: .inlineBytes) {
            addInline(subvolume: id, bytes: bytes)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subvolumeIDs, forKey: .subvolumeIDs)
        try container.encode(sortedEntries, forKey: .extents)
        try container.encode(inlineBytes, forKey: .inlineBytes)
    }
}
