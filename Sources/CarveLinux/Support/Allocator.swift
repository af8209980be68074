/// glibc's malloc tuned for a run that lives milliseconds and copies listings of
/// thousands of snapshots. By default each large block is mapped fresh from the
/// kernel and unmapped when freed, so every copy of a listing faults its pages in
/// again: a fifth of the page faults of deleting 1,000 snapshots by name. Large
/// blocks now come from the heap, which is kept, and are reused.
public enum Allocator {
    public static func keepLargeBlocksInTheHeap() {
        _ = carve_mallopt(mmapThreshold, 64 << 20)
        _ = carve_mallopt(trimThreshold, 128 << 20)
    }

    /// For a run that reads trees, which lives seconds and grows arrays of millions:
    /// blocks of a megabyte and more are mapped and unmapped again, and free room at
    /// the heap's top goes back, so the storage an array left behind when it grew is
    /// not kept. Kept, the old storage of the extent map's arrays and of each tree's
    /// references stayed resident: 20 to 50 MB of a first listing's peak at a million
    /// files, varying from run to run with which thread's heap they grew in.
    public static func giveLargeBlocksBack() {
        _ = carve_mallopt(mmapThreshold, 1 << 20)
        _ = carve_mallopt(trimThreshold, 1 << 20)
        _ = carve_malloc_trim(0)
    }

    // <malloc.h> is not in Glibc's module map: its two parameters by number.
    private static let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3
}

@_silgen_name("mallopt")
private func carve_mallopt(_ parameter: Int32, _ value: Int32) -> Int32

@_silgen_name("malloc_trim")
private func carve_malloc_trim(_ pad: Int) -> Int32
