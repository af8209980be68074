/// The extents the quick way: nearly every extent of a series is one run of trees, five
/// numbers of fifty bytes at most. With that much left, they are read through a pointer
/// held in a register, without a bound checked per byte or a number that can throw, and
/// taken when all of them hold. Any extent they do not take (more runs, a number past
/// eight bytes, anything the careful way might refuse) is read again from its start the
/// careful way, which then throws what it always threw: the quick way only has to be
/// sure of what it takes. Read the careful way, they were half of a repeated listing's
/// instructions, some 220 an extent.
extension RawCacheReader {
    /// Extents `index` on, into `keys` and `sets`, while fifty bytes are left; `index`
    /// and `bytenr` as the careful way leaves them.
    @inline(__always)
    mutating func quickExtents(
        count: Int, treeCount: Int,
        _ keys: UnsafeMutablePointer<ExtentKey>, _ sets: UnsafeMutablePointer<SubvolumeSet>,
        _ index: inout Int, _ bytenr: inout UInt64
    ) throws(ExactSizesCacheDamage) {
        // With more trees than a UInt32 counts (never, in a file of this size), no run
        // is taken the quick way: below, a bound within them is a bound within UInt32.
        guard let start = base.baseAddress, treeCount <= 1 << 32, base.count >= 50 else { return }
        let roomEnds = start + (base.count - 50), trees = UInt64(treeCount)
        // Locals, not the stored properties, so that the loop keeps them in registers;
        // the extent written to by a pointer each, not at an index (one register fewer).
        var at = start + offset, last = bytenr, key = keys + index, set = sets + index
        let keysEnd = keys + count
        defer { offset = at - start; index = key - keys; bytenr = last }
        while key != keysEnd && at <= roomEnds {
            var cursor = at, short = true
            let step: UInt64, diskBytes: UInt64, runCount: UInt64, gap: UInt64, length: UInt64
            let word = UInt64(littleEndian: at.loadUnaligned(as: UInt64.self))
            // Small files packed close: a step and a size of two bytes each, a run count
            // of 1 and a run's two numbers of a byte each, seven bytes taken apart in one
            // load. On a million small files, 43 instructions an extent in all, against 62
            // with the numbers read one by one.
            if word & 0x0080_80FF_8080_8080 == 0x0000_0001_0080_0080 && word & 0xFF00 != 0 && word & 0xFF00_0000 != 0 {
                // Both at once: each number's high byte shifted down a bit onto its low one.
                let pair = word & 0x007F_007F | word >> 1 & 0x3F80_3F80
                (step, diskBytes) = (pair & 0xFFFF, pair >> 16 & 0xFFFF)
                (runCount, gap, length) = (1, word >> 40 & 0x7F, word >> 48 & 0x7F)
                cursor += 7
            } else {
                step = Self.quickNumber(&cursor, &short)
                diskBytes = Self.quickNumber(&cursor, &short)
                // The usual rest, a run count of 1 and a run's two numbers of a byte each, in one load.
                let rest = UInt32(littleEndian: cursor.loadUnaligned(as: UInt32.self))
                if rest & 0x0080_80FF == 1 {
                    (runCount, gap, length) = (1, UInt64(rest >> 8 & 0x7F), UInt64(rest >> 16 & 0x7F))
                    cursor += 3
                } else {
                    runCount = Self.quickNumber(&cursor, &short)
                    gap = Self.quickNumber(&cursor, &short)
                    length = Self.quickNumber(&cursor, &short)
                }
            }
            // A run's numbers are of 56 bits at most: their sum cannot wrap. A bytenr
            // past the one before is ascending and not 0 in one comparison; a step that
            // wraps past 0 (refused or not) is left to the careful way.
            let next = last &+ step, upper = gap &+ length
            if short && next > last && runCount == 1 && upper < trees {
                key.initialize(to: ExtentKey(diskBytenr: next, diskBytes: diskBytes))
                set.initialize(to: SubvolumeSet(UInt32(truncatingIfNeeded: gap), UInt32(truncatingIfNeeded: upper)))
                last = next
                at = cursor
            } else {
                offset = at - start
                // A copy to hand over: `last` itself, handed to a call, would live in memory.
                var before = last
                let (read, runs) = try extent(after: &before, first: key == keys, treeCount: treeCount)
                last = before
                key.initialize(to: read)
                set.initialize(to: runs)
                at = start + offset
            }
            key += 1
            set += 1
        }
    }

    /// A number of eight bytes at most from `cursor`, with eight bytes there to read;
    /// `short` is cleared for a longer one (read no further: the careful way reads it).
    @inline(__always)
    private static func quickNumber(_ cursor: inout UnsafeRawPointer, _ short: inout Bool) -> UInt64 {
        let byte = cursor.load(as: UInt8.self)
        if byte < 0x80 {
            cursor += 1
            return UInt64(byte)
        }
        // Two bytes, the other common length (bytenr steps and sizes), without the loop.
        let second = cursor.load(fromByteOffset: 1, as: UInt8.self)
        if second < 0x80 {
            // A number ended on a zero byte is the careful way's to refuse.
            short = short && second != 0
            cursor += 2
            return UInt64(byte & 0x7F) | UInt64(second) << 7
        }
        var value = UInt64(byte & 0x7F) | UInt64(second & 0x7F) << 7
        var position = 2, next: UInt8
        repeat {
            next = cursor.load(fromByteOffset: position, as: UInt8.self)
            value |= UInt64(next & 0x7F) << UInt64(7 &* position)
            position &+= 1
        } while next >= 0x80 && position < 8
        short = short && next < 0x80 && next != 0
        cursor += position
        return value
    }
}
