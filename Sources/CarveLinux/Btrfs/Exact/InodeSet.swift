/// Inode numbers, for the loops of a changed tree's read: open addressing with a
/// multiplicative hash and linear probing. `Set<UInt64>` hashes with SipHash, about a
/// hundred instructions an operation; reading 1% of 200,000 files again asked hundreds
/// of thousands of them.
struct InodeSet {
    /// Each slot's number plus one; 0: an empty slot.
    private var slots: [UInt64]
    /// Whether UInt64.max is held: plus one, it would read as an empty slot.
    private var holdsMax = false
    private(set) var count = 0
    /// log2 of the number of slots.
    private var bits: Int

    init() {
        bits = 4
        slots = Array(repeating: 0, count: 1 << bits)
    }

    @_optimize(speed)
    func contains(_ inode: UInt64) -> Bool {
        guard inode != .max else { return holdsMax }
        let (stored, bits) = (inode &+ 1, bits)
        return slots.withUnsafeBufferPointer { slots in
            var slot = Self.slot(inode, bits: bits)
            while slots[slot] != 0 {
                if slots[slot] == stored { return true }
                slot = (slot + 1) & (slots.count - 1)
            }
            return false
        }
    }

    /// True when `inode` was not held before.
    @discardableResult
    @_optimize(speed)
    mutating func insert(_ inode: UInt64) -> Bool {
        guard inode != .max else {
            defer { holdsMax = true }
            if !holdsMax { count += 1 }
            return !holdsMax
        }
        // At most half full: probes stay short.
        if (count + 1) * 2 > slots.count { grow() }
        let bits = bits
        guard slots.withUnsafeMutableBufferPointer({ Self.place(inode &+ 1, in: $0, bits: bits) }) else { return false }
        count += 1
        return true
    }

    /// Puts a stored number in its slot; false when it is there already.
    @inline(__always)
    private static func place(_ stored: UInt64, in slots: UnsafeMutableBufferPointer<UInt64>, bits: Int) -> Bool {
        var slot = Self.slot(stored &- 1, bits: bits)
        while slots[slot] != 0 {
            if slots[slot] == stored { return false }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = stored
        return true
    }

    @_optimize(speed)
    private mutating func grow() {
        bits += 1
        var grown = [UInt64](repeating: 0, count: 1 << bits)
        let bits = bits
        slots.withUnsafeBufferPointer { old in
            grown.withUnsafeMutableBufferPointer { grown in
                for stored in old where stored != 0 { _ = Self.place(stored, in: grown, bits: bits) }
            }
        }
        slots = grown
    }

    /// The top `bits` bits of the number mixed (an odd multiplier, then a finaliser's
    /// shift and multiply): inodes of one directory lie close together, and the
    /// multiplications spread them.
    @inline(__always)
    private static func slot(_ inode: UInt64, bits: Int) -> Int {
        let mixed = inode &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: ((mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9) >> UInt64(64 - bits))
    }
}
