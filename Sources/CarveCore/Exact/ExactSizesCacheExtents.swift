/// The cache's extents, read straight from the file's bytes. At a million files there
/// are a million and a half extents and some six million numbers: read through the
/// slice, a byte at a time with its bounds checked and each extent appended to two
/// growing arrays, they were half of a repeated listing's CPU time (issue 33, part 3).
extension CacheReader {
    /// `count` extents, in ascending bytenr, each with the set of `treeCount` trees that
    /// reference it; with a sixteenth to spare in both arrays (see the caller).
    mutating func extents(
        count: Int, treeCount: Int
    ) throws(ExactSizesCacheDamage) -> (keys: [ExtentKey], sets: [SubvolumeSet]) {
        let start = offset - bytes.startIndex
        let read: Result<(keys: [ExtentKey], sets: [SubvolumeSet], end: Int), ExactSizesCacheDamage> =
            bytes.withUnsafeBytes { raw in
                var reader = RawCacheReader(base: raw, offset: start)
                do throws(ExactSizesCacheDamage) {
                    let (keys, sets) = try reader.extents(count: count, treeCount: treeCount)
                    return .success((keys, sets, reader.offset))
                } catch {
                    return .failure(error)
                }
            }
        let (keys, sets, end) = try read.get()
        offset = bytes.startIndex + end
        return (keys, sets)
    }
}

/// `CacheReader` over the bytes themselves, for the extents' tight loop: a number
/// that cannot run past the end is read without checking each byte against it.
/// What it accepts and refuses is `CacheReader`'s, damage for damage.
struct RawCacheReader {
    let base: UnsafeRawBufferPointer
    var offset: Int

    /// `roomKnown`: the caller made sure ten bytes are left, the most a number takes.
    @inline(__always)
    mutating func number(roomKnown: Bool = false) throws(ExactSizesCacheDamage) -> UInt64 {
        guard roomKnown || base.count &- offset >= 10, let start = base.baseAddress else {
            return try numberNearTheEnd()
        }
        let bytes = start + offset
        var byte = bytes.load(as: UInt8.self)
        // Most of the numbers (run gaps and lengths, run counts) are one byte.
        if byte < 0x80 {
            offset &+= 1
            return UInt64(byte)
        }
        var value = UInt64(byte & 0x7F)
        var position = 1
        repeat {
            byte = bytes.load(fromByteOffset: position, as: UInt8.self)
            // The tenth byte holds the top bit alone.
            if position == 9 && byte > 1 { throw .malformed("a number too large") }
            value |= UInt64(byte & 0x7F) << UInt64(7 &* position)
            position &+= 1
        } while byte >= 0x80
        guard byte != 0 else { throw .malformed("a number longer than it is") }
        offset &+= position
        return value
    }

    private mutating func numberNearTheEnd() throws(ExactSizesCacheDamage) -> UInt64 {
        try leb128 {
            guard offset < base.count else { return nil }
            defer { offset += 1 }
            return base[offset]
        }
    }

    /// `quick`: false reads every extent the careful way, for the tests that hold the
    /// quick way to it.
    @_optimize(speed)
    mutating func extents(
        count: Int, treeCount: Int, quick: Bool = true
    ) throws(ExactSizesCacheDamage) -> ([ExtentKey], [SubvolumeSet]) {
        // Written in place into arrays made at their final size: appending a million
        // times to each checked its uniqueness and room every time.
        // None: an array made with no room would write into the empty array all threads share.
        guard count > 0 else { return ([], []) }
        let capacity = count + count / 16
        var failure: ExactSizesCacheDamage?
        var sets: [SubvolumeSet] = []
        let keys = [ExtentKey](unsafeUninitializedCapacity: capacity) { keys, keysWritten in
            sets = [SubvolumeSet](unsafeUninitializedCapacity: capacity) { sets, setsWritten in
                guard let keys = keys.baseAddress, let sets = sets.baseAddress else { return }
                var bytenr: UInt64 = 0
                var index = 0
                // Counted once at the end: kept up per extent, they were two stores each.
                defer { keysWritten = index; setsWritten = index }
                do throws(ExactSizesCacheDamage) {
                    if quick { try quickExtents(count: count, treeCount: treeCount, keys, sets, &index, &bytenr) }
                    while index < count {
                        let (key, set) = try extent(after: &bytenr, first: index == 0, treeCount: treeCount)
                        (keys + index).initialize(to: key)
                        (sets + index).initialize(to: set)
                        index += 1
                    }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return (keys, sets)
    }

    /// One extent: its bytenr's step past the one before, its size, its runs of trees.
    /// Out of line: the quick way comes here only for an extent it does not take.
    @inline(never)
    mutating func extent(
        after bytenr: inout UInt64, first: Bool, treeCount: Int
    ) throws(ExactSizesCacheDamage) -> (ExtentKey, SubvolumeSet) {
        // An extent of one run is five numbers, fifty bytes at most: with that much left,
        // none of them is checked against the end.
        let roomKnown = base.count &- offset >= 50
        let step = try number(roomKnown: roomKnown)
        guard first || step > 0 else { throw .malformed("extents out of order") }
        bytenr = bytenr &+ step
        let diskBytes = try number(roomKnown: roomKnown)
        guard bytenr != 0 else { throw .malformed("an extent at bytenr 0") }
        let runCount = try number(roomKnown: roomKnown)
        guard runCount <= UInt64(treeCount) else { throw .malformed("a count larger than the file") }
        guard runCount > 0 else { throw .malformed("an extent no tree references") }
        var (lower, end) = try run(after: 0, first: true, treeCount: treeCount, roomKnown: roomKnown)
        var set = SubvolumeSet(lower, end)
        var more = runCount - 1
        while more > 0 {
            (lower, end) = try run(after: end, first: false, treeCount: treeCount, roomKnown: false)
            set.append(lower, end)
            more -= 1
        }
        return (ExtentKey(diskBytenr: bytenr, diskBytes: diskBytes), set)
    }

    /// A run of tree indices `gap` past `end` and `length` long, within `treeCount` trees;
    /// after the first, a gap of one or none would have made it part of the run before.
    @inline(__always)
    private mutating func run(
        after end: UInt32, first: Bool, treeCount: Int, roomKnown: Bool
    ) throws(ExactSizesCacheDamage) -> (UInt32, UInt32) {
        let gap = try number(roomKnown: roomKnown), length = try number(roomKnown: roomKnown)
        guard first || gap > 1 else { throw .malformed("runs that touch") }
        let (lower, overflowLower) = UInt64(end).addingReportingOverflow(gap)
        let (upper, overflowUpper) = lower.addingReportingOverflow(length)
        guard !overflowLower, !overflowUpper, upper < UInt64(treeCount) else {
            throw .malformed("a tree index out of range")
        }
        return (UInt32(lower), UInt32(upper))
    }
}

/// A number as `CacheWriter` writes it (LEB128), from the bytes `next` gives (nil past
/// the end): seven bits a byte, low first, ten bytes at most, the tenth the top bit alone.
@inline(__always)
func leb128(_ next: () -> UInt8?) throws(ExactSizesCacheDamage) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
        guard let byte = next() else { throw .truncated }
        guard shift < 63 || byte <= 1 else { throw .malformed("a number too large") }
        value |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 {
            // The writer never ends a number on a zero byte after others: one that does
            // would be written back shorter, and the counts checked against the file's
            // length could then refuse the file they were read from.
            guard byte != 0 || shift == 0 else { throw .malformed("a number longer than it is") }
            return value
        }
        shift += 7
    }
}
