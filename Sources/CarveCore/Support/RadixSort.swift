/// Unsigned 64-bit numbers in ascending order, sorted a byte at a time from the least
/// significant (LSD radix sort), through only the bytes in which they differ: the inode
/// numbers of one filesystem differ in two or three. A changed directory's entries come
/// in name-hash order; sorting a thousand directories of a thousand with the standard
/// library's sort, generic over its comparison, was a twelfth of a listing's own work
/// after 1% churn of a million files. Extents' keys are sorted the same way
/// (`ExtentKey+RadixSort`).
public enum RadixSort {
    /// Below this many, insertion sort: a pass's table of 256 counts costs more.
    static let fewest = 48

    /// `values` in ascending order.
    public static func sorted(_ values: [UInt64]) -> [UInt64] {
        var values = values
        sort(&values)
        return values
    }

    /// Sorts `values` in place.
    public static func sort(_ values: inout [UInt64]) {
        guard values.count > 1 else { return }
        let scratch = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: values.count)
        defer { scratch.deallocate() }
        values.withUnsafeMutableBufferPointer { sort($0, scratch: scratch) }
    }

    /// Sorts `values` in place, using `scratch` (at least as long) as the second buffer.
    @_optimize(speed)
    public static func sort(_ values: UnsafeMutableBufferPointer<UInt64>, scratch: UnsafeMutableBufferPointer<UInt64>) {
        guard values.count > fewest else { return insertionSort(values) }
        precondition(scratch.count >= values.count, "the scratch buffer holds every value")
        let first = values[0]
        var differing: UInt64 = 0
        for value in values { differing |= value ^ first }
        var buffers = (values.baseAddress!, scratch.baseAddress!)
        passes(&buffers, count: values.count, differing: differing) { $0 }
        // After an odd number of passes the sorted values are in the scratch buffer.
        if buffers.0 != values.baseAddress! { values.baseAddress!.update(from: buffers.0, count: values.count) }
    }

    /// One stable counting pass for each byte of `number` in which the elements differ
    /// (`differing`), least significant first, from `buffers.0` into `buffers.1`,
    /// swapping them after each: the sorted elements end in `buffers.0`.
    @inline(__always)
    static func passes<Element>(
        _ buffers: inout (UnsafeMutablePointer<Element>, UnsafeMutablePointer<Element>), count: Int,
        differing: UInt64, number: (Element) -> UInt64
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { counts in
            for byte in 0..<8 where (differing >> UInt64(byte * 8)) & 0xff != 0 {
                let shift = UInt64(byte * 8)
                let (source, target) = buffers
                for index in 0..<256 { counts[index] = 0 }
                for index in 0..<count { counts[Int(truncatingIfNeeded: number(source[index]) >> shift) & 0xff] += 1 }
                var start = 0
                for index in 0..<256 { (counts[index], start) = (start, start + counts[index]) }
                for index in 0..<count {
                    let digit = Int(truncatingIfNeeded: number(source[index]) >> shift) & 0xff
                    target[counts[digit]] = source[index]
                    counts[digit] += 1
                }
                buffers = (target, source)
            }
        }
    }

    @_optimize(speed)
    private static func insertionSort(_ values: UnsafeMutableBufferPointer<UInt64>) {
        guard values.count > 1 else { return }
        for index in 1..<values.count {
            let value = values[index]
            var slot = index
            while slot > 0, values[slot - 1] > value {
                values[slot] = values[slot - 1]
                slot -= 1
            }
            values[slot] = value
        }
    }
}
