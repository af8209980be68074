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
                // Ten bytes a number at most: three for the extent, two a run.
                let most = 10 * (3 + 2 * set.runCount)
                if out.used + most > ChunkWriter.size {
                    bytes.append(contentsOf: out.written)
                    out.used = 0
                }
                if most > ChunkWriter.size {
                    // More runs than a chunk holds (thousands of trees each way): a number at a time.
                    extent(key, set, after: previous)
                } else {
                    out.extent(key, set, after: previous)
                }
                previous = key.diskBytenr
            }
            bytes.append(contentsOf: out.written)
        }
    }

    private mutating func extent(_ key: ExtentKey, _ set: SubvolumeSet, after previous: UInt64) {
        number(key.diskBytenr &- previous); number(key.diskBytes); number(UInt64(set.runCount))
        var end: UInt64 = 0
        set.forEachRun { lower, upper in
            number(UInt64(lower) - end); number(UInt64(upper - lower))
            end = UInt64(upper)
        }
    }
}

/// LEB128 numbers written through a pointer into a chunk the caller made room in.
private struct ChunkWriter {
    static let size = 1 << 16
    let start: UnsafeMutablePointer<UInt8>
    var used = 0

    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: used) }

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
    mutating func extent(_ key: ExtentKey, _ set: SubvolumeSet, after previous: UInt64) {
        put(key.diskBytenr &- previous); put(key.diskBytes); put(UInt64(set.runCount))
        var end: UInt64 = 0
        set.forEachRun { lower, upper in
            put(UInt64(lower) - end); put(UInt64(upper - lower))
            end = UInt64(upper)
        }
    }
}
