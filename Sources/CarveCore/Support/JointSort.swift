/// Sorts `keys` ascending and moves each of `values` with its key, in place.
/// The standard sort asks for half its array as scratch, and sorting (key, value) pairs
/// needs a copy of both arrays: on the 1.6 M extents of a first listing, either was the
/// listing's peak. This one needs nothing beside the two buffers: quicksort on the
/// median of three, insertion sort for short ranges, and heapsort when the splits go
/// bad (`depthLimit` levels down), so no input takes quadratic time. Not stable. Keys
/// compare through `Comparable`, not a closure: a call per comparison made it three
/// times the standard sort's cost.
///
/// Keys nearly in order (a map seeded from the cache and changed a little) are sorted
/// by taking out the few out of place, sorting those and merging them back: quicksort
/// cost twice the standard sort there, which finds the runs. The pass that takes them
/// out gives up once a sixteenth of the keys are out of place.
func sortJointly<Key: Comparable, Value>(
    _ keys: UnsafeMutableBufferPointer<Key>, _ values: UnsafeMutableBufferPointer<Value>, depthLimit: Int? = nil
) {
    precondition(keys.count == values.count, "one value per key")
    guard keys.count > 1 else { return }
    let sorter = JointSorter(keys: keys, values: values)
    if depthLimit == nil, sorter.mergeFewOutOfPlace() { return }
    sorter.sort(0, keys.count - 1, depth: depthLimit ?? 2 * (Int.bitWidth - keys.count.leadingZeroBitCount))
}

private struct JointSorter<Key: Comparable, Value> {
    let keys: UnsafeMutableBufferPointer<Key>
    let values: UnsafeMutableBufferPointer<Value>

    @inline(__always)
    func before(_ left: Key, _ right: Key) -> Bool { left < right }

    /// Ranges this short are sorted by insertion.
    static var short: Int { 16 }

    func swap(_ i: Int, _ j: Int) {
        keys.swapAt(i, j)
        values.swapAt(i, j)
    }

    /// Keeps the keys that are in order with the kept one before and the next one after,
    /// packed to the front, takes the others out, sorts them and merges them back from
    /// the end. False when more than a sixteenth are out of place: they are then put
    /// back (in any order) for the quicksort.
    func mergeFewOutOfPlace() -> Bool {
        let count = keys.count
        let most = max(16, count / 16)
        var (outKeys, outValues): ([Key], [Value]) = ([], [])
        var kept = 0
        for index in 0..<count {
            let key = keys[index]
            let inOrder =
                (kept == 0 || !(key < keys[kept - 1])) && (index + 1 == count || !(keys[index + 1] < key))
            if inOrder {
                if kept != index { (keys[kept], values[kept]) = (key, values[index]) }
                kept += 1
                continue
            }
            outKeys.append(key); outValues.append(values[index])
            if outKeys.count > most {
                // Slots kept...index hold stale copies: the keys taken out go there.
                for (offset, key) in outKeys.enumerated() {
                    (keys[kept + offset], values[kept + offset]) = (key, outValues[offset])
                }
                return false
            }
        }
        outKeys.withUnsafeMutableBufferPointer { outKeys in
            outValues.withUnsafeMutableBufferPointer { sortJointly(outKeys, $0) }
        }
        var (from, taken, to) = (kept - 1, outKeys.count - 1, count - 1)
        while taken >= 0 {
            if from >= 0 && outKeys[taken] < keys[from] {
                (keys[to], values[to]) = (keys[from], values[from])
                from -= 1
            } else {
                (keys[to], values[to]) = (outKeys[taken], outValues[taken])
                taken -= 1
            }
            to -= 1
        }
        return true
    }

    /// Sorts `low...high`; the smaller side of each split by recursion, so the stack
    /// stays logarithmic.
    func sort(_ low: Int, _ high: Int, depth: Int) {
        var (low, high, depth) = (low, high, depth)
        while high - low >= Self.short {
            if depth == 0 {
                heapSort(low, high)
                return
            }
            depth -= 1
            let split = partition(low, high)
            if split - low < high - split {
                sort(low, split, depth: depth)
                low = split + 1
            } else {
                sort(split + 1, high, depth: depth)
                high = split
            }
        }
        insertionSort(low, high)
    }

    /// Hoare's partition around the median of the first, middle and last keys: every key
    /// of `low...split` is at most every key of `split+1...high`, and both are non-empty.
    func partition(_ low: Int, _ high: Int) -> Int {
        let middle = low + (high - low) / 2
        if before(keys[middle], keys[low]) { swap(middle, low) }
        if before(keys[high], keys[middle]) {
            swap(high, middle)
            if before(keys[middle], keys[low]) { swap(middle, low) }
        }
        let pivot = keys[middle]
        var (i, j) = (low - 1, high + 1)
        while true {
            repeat { i += 1 } while before(keys[i], pivot)
            repeat { j -= 1 } while before(pivot, keys[j])
            if i >= j { return j }
            swap(i, j)
        }
    }

    func insertionSort(_ low: Int, _ high: Int) {
        guard low < high else { return }
        for next in (low + 1)...high {
            var at = next
            while at > low && before(keys[at], keys[at - 1]) {
                swap(at, at - 1)
                at -= 1
            }
        }
    }

    func heapSort(_ low: Int, _ high: Int) {
        let count = high - low + 1
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count, base: low) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            swap(low, low + end)
            siftDown(0, end, base: low)
        }
    }

    /// Restores the max-heap below `root` among the first `count` of the heap at `base`.
    func siftDown(_ root: Int, _ count: Int, base: Int) {
        var root = root
        while 2 * root + 1 < count {
            var child = 2 * root + 1
            if child + 1 < count && before(keys[base + child], keys[base + child + 1]) { child += 1 }
            guard before(keys[base + root], keys[base + child]) else { return }
            swap(base + root, base + child)
            root = child
        }
    }
}
