/// The extents' part of the cache file, written fast (see `ExactSizesCache.encoded`).
extension CacheWriter {
    /// Extents as the layout has them, each with its distance from the one before, its
    /// length and its runs (run by run, no array of them made), written into a chunk
    /// through a pointer and appended a chunk at a time: appended a byte at a time, the
    /// 1.5 M extents of a million files took a tenth of a listing that rewrote 1% of them.
    @_optimize(speed)
    mutating func extents<Extents: Sequence<(ExtentKey, SubvolumeSet)>>(_ given: Extents) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ChunkWriter.size) { chunk in
            guard let start = chunk.baseAddress else { return }
            var out = ChunkWriter(start: start)
            var previous: UInt64 = 0
            for (key, set) in given {
                out.extent(key, set, after: previous, flushingInto: &bytes)
                previous = key.diskBytenr
            }
            out.flush(into: &bytes)
        }
    }
}

/// LEB128 numbers written through a pointer into a chunk, appended to the file's bytes
/// whenever the next numbers might not fit.
private struct ChunkWriter {
    static let size = 1 << 16
    let start: UnsafeMutablePointer<UInt8>
    var used = 0

    mutating func flush(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: used))
        used = 0
    }

    /// Room for `count` more numbers, ten bytes each at most: a set of thousands of runs
    /// fills several chunks, one run at a time.
    @inline(__always)
    mutating func makeRoom(forNumbers count: Int, flushingInto bytes: inout [UInt8]) {
        if used + 10 * count > Self.size { flush(into: &bytes) }
    }

    @inline(__always)
    mutating func put(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            start[used] = UInt8(truncatingIfNeeded: value) | 0x80
            used &+= 1
            value >>= 7
        }
        start[used] = UInt8(value)
        used &+= 1
    }

    @inline(__always)
    mutating func extent(
        _ key: ExtentKey, _ set: SubvolumeSet, after previous: UInt64, flushingInto bytes: inout [UInt8]
    ) {
        makeRoom(forNumbers: 3, flushingInto: &bytes)
        put(key.diskBytenr &- previous); put(key.diskBytes); put(UInt64(set.runCount))
        var end: UInt64 = 0
        set.forEachRun { lower, upper in
            makeRoom(forNumbers: 2, flushingInto: &bytes)
            put(UInt64(lower) - end); put(UInt64(upper - lower))
            end = UInt64(upper)
        }
    }
}
