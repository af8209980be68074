extension RadixSort {
    /// Sorts `keys` in place in `ExtentKey`'s order (where they start, then their size):
    /// the passes over the sizes' differing bytes, then over the starts'. A new snapshot's
    /// million references, sorted by the standard library's sort, took as long as the
    /// merge they were sorted for took without it.
    @_optimize(speed)
    public static func sort(_ keys: inout [ExtentKey]) {
        guard keys.count > fewest else { return keys.sort() }
        let scratch = UnsafeMutableBufferPointer<ExtentKey>.allocate(capacity: keys.count)
        defer { scratch.deallocate() }
        keys.withUnsafeMutableBufferPointer { keys in
            let first = keys[0]
            var (differingSize, differingStart): (UInt64, UInt64) = (0, 0)
            for key in keys {
                differingSize |= key.diskBytes ^ first.diskBytes
                differingStart |= key.diskBytenr ^ first.diskBytenr
            }
            var buffers = (keys.baseAddress!, scratch.baseAddress!)
            passes(&buffers, count: keys.count, differing: differingSize) { $0.diskBytes }
            passes(&buffers, count: keys.count, differing: differingStart) { $0.diskBytenr }
            if buffers.0 != keys.baseAddress! { keys.baseAddress!.update(from: buffers.0, count: keys.count) }
        }
    }
}
