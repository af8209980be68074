/// Inode numbers, or pairs of them (a directory and a child it names), for the loops of a
/// changed tree's read: open addressing with a multiplicative hash and linear probing.
/// `Set<UInt64>` hashes with SipHash, about a hundred instructions an operation; reading
/// 1% of 200,000 files again asked six hundred thousand of them.
struct InodeSet {
    /// Two numbers a slot, side by side: the pair's first number plus one (0: an empty
    /// slot), and its second number.
    private var slots: [UInt64]
    /// Pairs whose first number is UInt64.max, which plus one would read as empty.
    private var wrapped: Set<Pair> = []
    private(set) var count = 0
    /// log2 of the number of slots.
    private var bits: Int

    private struct Pair: Hashable {
        var first: UInt64
        var second: UInt64
    }

    init() {
        bits = 4
        slots = Array(repeating: 0, count: 2 << bits)
    }

    func contains(_ inode: UInt64) -> Bool { contains(inode, 0) }

    @discardableResult
    mutating func insert(_ inode: UInt64) -> Bool { insert(inode, 0) }

    @_optimize(speed)
    func contains(_ first: UInt64, _ second: UInt64) -> Bool {
        guard first != .max else { return wrapped.contains(Pair(first: first, second: second)) }
        let (stored, bits) = (first &+ 1, bits)
        return slots.withUnsafeBufferPointer { slots in
            var slot = Self.slot(first, second, bits: bits)
            let mask = (1 << bits) - 1
            while slots[2 * slot] != 0 {
                if slots[2 * slot] == stored && slots[2 * slot + 1] == second { return true }
                slot = (slot + 1) & mask
            }
            return false
        }
    }

    /// True when the pair was not held before.
    @discardableResult
    @_optimize(speed)
    mutating func insert(_ first: UInt64, _ second: UInt64) -> Bool {
        guard first != .max else {
            let inserted = wrapped.insert(Pair(first: first, second: second)).inserted
            if inserted { count += 1 }
            return inserted
        }
        // At most half full: probes stay short.
        if (count + 1) * 4 > slots.count { grow() }
        let bits = bits
        guard slots.withUnsafeMutableBufferPointer({ Self.place(first &+ 1, second, in: $0, bits: bits) }) else {
            return false
        }
        count += 1
        return true
    }

    /// Puts a stored pair in its slot; false when it is there already.
    @inline(__always)
    private static func place(
        _ stored: UInt64, _ second: UInt64, in slots: UnsafeMutableBufferPointer<UInt64>, bits: Int
    ) -> Bool {
        var slot = Self.slot(stored &- 1, second, bits: bits)
        let mask = (1 << bits) - 1
        while slots[2 * slot] != 0 {
            if slots[2 * slot] == stored && slots[2 * slot + 1] == second { return false }
            slot = (slot + 1) & mask
        }
        slots[2 * slot] = stored
        slots[2 * slot + 1] = second
        return true
    }

    @_optimize(speed)
    private mutating func grow() {
        bits += 1
        var grown = [UInt64](repeating: 0, count: 2 << bits)
        let bits = bits
        slots.withUnsafeBufferPointer { old in
            grown.withUnsafeMutableBufferPointer { grown in
                for slot in 0..<(old.count / 2) where old[2 * slot] != 0 {
                    _ = Self.place(old[2 * slot], old[2 * slot + 1], in: grown, bits: bits)
                }
            }
        }
        slots = grown
    }

    /// The top `bits` bits of the pair mixed (two odd multipliers, then a finaliser's
    /// shift and multiply): inodes of one directory lie close together, and the
    /// multiplications spread them.
    @inline(__always)
    private static func slot(_ first: UInt64, _ second: UInt64, bits: Int) -> Int {
        let mixed = (first &* 0x9E37_79B9_7F4A_7C15) ^ (second &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: ((mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9) >> UInt64(64 - bits))
    }
}
