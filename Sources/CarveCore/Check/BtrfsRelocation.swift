/// Whether a shrink can relocate what lies beyond the new end, simulated the way the
/// kernel does it: every block group with a device extent beyond the end is moved.
///
/// Data is moved extent by extent, and an extent is never split: relocation
/// preallocates each one whole (measured: a 64 MiB extent failed with ENOSPC while
/// 48 MiB runs were free in three chunks). So each moving data extent, largest first,
/// goes into the smallest free run inside a data chunk that stays, else into a new data
/// chunk cut from a hole below the end. Metadata and system items are small: their
/// used bytes go into the room left in their kind's staying chunks or into new chunks
/// (two stripes each for DUP). What is left afterwards, in holes and free runs, must
/// cover the margin the relocation's own writes need.
extension BtrfsAllocation {
    /// Headroom above the simulated floor. On a quiet machine the simulation matched the
    /// smallest size the kernel accepted to the MiB; with other filesystems busy, a
    /// shrink at that floor was refused once (ENOSPC). A "fits" must hold in practice.
    public static let shrinkHeadroom: UInt64 = 16 << 20

    /// True when a shrink to `size` relocates everything beyond it, with the headroom.
    public func fits(size: UInt64) -> Bool {
        guard size >= Self.smallestDevice else { return false }
        guard let lastEnd = extents.map(\.end).max(), lastEnd > size else { return size >= Self.reservedStart }
        return size >= Self.shrinkHeadroom && relocates(into: size - Self.shrinkHeadroom)
    }

    /// The simulation itself: whether what lies beyond `size` moves below it.
    func relocates(into size: UInt64) -> Bool {
        guard size >= Self.smallestDevice else { return false }
        guard let lastEnd = extents.map(\.end).max(), lastEnd > size else { return size >= Self.reservedStart }
        let moving = Set(extents.filter { $0.end > size }.map(\.chunk))
        var space = FreeSpace(holes: holes(below: size), chunkSize: dataChunkSize)

        // A new chunk of a mirrored profile also takes a copy on other devices.
        var newChunks = false
        var runs = blockGroups.filter { $0.kind == .data && !moving.contains($0.start) }.flatMap(freeRuns)
        let dataCopies = blockGroups.filter { $0.kind == .data }.map(copies(of:)).max() ?? 1
        let movingData = blockGroups.filter { $0.kind == .data && moving.contains($0.start) }.flatMap(extents(in:))
        for length in movingData.sorted(by: >) {
            if let best = runs.indices.filter({ runs[$0] >= length }).min(by: { runs[$0] < runs[$1] }) {
                runs[best] -= length
            } else if let chunk = space.newChunk(holding: length, copies: dataCopies) {
                runs.append(chunk - length)
                newChunks = true
            } else {
                return false
            }
        }

        var room: UInt64 = 0
        for kind in [Kind.metadata, .system] {
            let groups = blockGroups.filter { $0.kind == kind }
            let toMove = groups.filter { moving.contains($0.start) }.reduce(0) { $0 + $1.used * copies(of: $1) }
            let staying = groups.filter { !moving.contains($0.start) }.reduce(0) {
                $0 + ($1.length - $1.used) * copies(of: $1)
            }
            if toMove > staying {
                guard space.take(Self.roundUp(toMove - staying, to: 16 << 20)) else { return false }
                newChunks = true
            } else {
                room += staying - toMove
            }
        }
        return space.left + runs.reduce(0, +) + room >= margin && (!newChunks || othersHoldMovingCopies())
    }

    /// Lengths of the unallocated runs between the reserved first MiB and `size`;
    /// extents that cross `size` stay occupied until their group has moved.
    func holes(below size: UInt64) -> [UInt64] {
        var holes: [UInt64] = []
        var position = Self.reservedStart
        for extent in extents where extent.start < size {
            if extent.start > position { holes.append(extent.start - position) }
            position = max(position, extent.end)
        }
        if size > position { holes.append(size - position) }
        return holes
    }

    /// The free runs inside a data group, between its extents (logical bytes).
    func freeRuns(_ group: BlockGroup) -> [UInt64] {
        var runs: [UInt64] = [], position = group.start
        for extent in dataExtents(in: group) {
            if extent.start > position { runs.append(extent.start - position) }
            position = max(position, extent.start + extent.length)
        }
        if group.start + group.length > position { runs.append(group.start + group.length - position) }
        return runs
    }

    /// The lengths of the data extents in a group.
    func extents(in group: BlockGroup) -> [UInt64] { dataExtents(in: group).map(\.length) }

    /// The data extents inside a group; when none were read, one extent of its used bytes.
    func dataExtents(in group: BlockGroup) -> [DataExtent] {
        guard !dataExtents.isEmpty else {
            return group.used > 0 ? [DataExtent(start: group.start, length: group.used)] : []
        }
        return dataExtents.filter { $0.start >= group.start && $0.start < group.start + group.length }
    }

    static func roundUp(_ value: UInt64, to step: UInt64) -> UInt64 { (value + step - 1) / step * step }
}

/// The unallocated holes below the new end, as the simulation hands out new chunks.
struct FreeSpace {
    var holes: [UInt64]
    let chunkSize: UInt64

    var left: UInt64 { holes.reduce(0, +) }

    /// A new data chunk able to hold `length` bytes, cut from the largest hole: the
    /// regular chunk size or the whole hole when smaller; nil when no hole is big enough.
    mutating func newChunk(holding length: UInt64, copies: UInt64) -> UInt64? {
        guard let index = holes.indices.max(by: { holes[$0] < holes[$1] }) else { return nil }
        let chunk = min(chunkSize, holes[index] / copies)
        guard chunk >= length else { return nil }
        holes[index] -= chunk * copies
        return chunk
    }

    /// Takes `bytes` from the holes, largest first; false when they do not hold it.
    mutating func take(_ bytes: UInt64) -> Bool {
        guard left >= bytes else { return false }
        var remaining = bytes
        for index in holes.indices.sorted(by: { holes[$0] > holes[$1] }) where remaining > 0 {
            let taken = min(holes[index], remaining)
            holes[index] -= taken
            remaining -= taken
        }
        return true
    }
}
