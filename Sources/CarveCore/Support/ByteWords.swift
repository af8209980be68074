/// Byte tests eight bytes at a time, on a word loaded from a buffer (the classic
/// SWAR tests: a byte below n is found as a borrow into its high bit). Names and
/// output are looked through for a handful of bytes (control characters, quotes, the
/// lead byte of a carried byte); a byte at a time that cost more per snapshot than
/// the rest of its row. Inlinable: the writers in other modules call these per cell.
public enum ByteWords {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that is zero, and perhaps of bytes above one
    /// that is (a borrow carries): test it against zero, never read its bits one by one.
    @inlinable public static func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }

    /// Nonzero when a byte of `word` equals `byte`.
    @inlinable public static func bytes(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
        zeroBytes(word ^ (ones &* UInt64(byte)))
    }

    /// Nonzero when a byte of `word` is below `limit` (at most 0x80).
    @inlinable public static func bytes(_ word: UInt64, below limit: UInt8) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }

    /// True when `found` is nonzero for a word of `bytes` (the last word overlapping the
    /// one before), or `tail` for a byte of a buffer shorter than a word.
    @inlinable public static func any(
        in bytes: UnsafeRawBufferPointer, _ found: (UInt64) -> UInt64, tail: (UInt8) -> Bool
    ) -> Bool {
        guard bytes.count >= 8 else { return bytes.contains(where: tail) }
        var offset = 0
        while true {
            if found(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) != 0 { return true }
            if offset + 8 == bytes.count { return false }
            offset = min(offset + 8, bytes.count - 8)
        }
    }
}
