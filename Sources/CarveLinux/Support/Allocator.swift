/// glibc's malloc tuned for a run that lives milliseconds and copies listings of
/// thousands of snapshots. By default each large block is mapped fresh from the
/// kernel and unmapped when freed, so every copy of a listing faults its pages in
/// again: a fifth of the page faults of deleting 1,000 snapshots by name. Large
/// blocks now come from the heap, which is kept, and are reused.
public enum Allocator {
    public static func keepLargeBlocksInTheHeap() {
        // <malloc.h> is not in Glibc's module map: its two parameters by number.
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3
        _ = carve_mallopt(mmapThreshold, 64 << 20)
        _ = carve_mallopt(trimThreshold, 128 << 20)
    }
}

@_silgen_name("mallopt")
private func carve_mallopt(_ parameter: Int32, _ value: Int32) -> Int32
