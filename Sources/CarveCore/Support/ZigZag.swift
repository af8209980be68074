/// A distance that may be negative, as a number that is small when the distance is
/// small either way: 0, -1, 1, -2 … become 0, 1, 2, 3 … (the cache's records, a
/// scan's packed references).
func zigzag(_ value: UInt64) -> UInt64 { (value << 1) ^ UInt64(bitPattern: Int64(bitPattern: value) >> 63) }

func unzigzag(_ value: UInt64) -> UInt64 { (value >> 1) ^ (0 &- (value & 1)) }
