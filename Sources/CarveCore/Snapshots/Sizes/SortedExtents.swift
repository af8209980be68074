/// Changes to an `ExtentTable`'s keys and sets while the keys are in ascending order
/// (seeded from the cache, no index built yet), made by merging references in the same
/// order with them: one pass over both, where a lookup each through an index missed the
/// cache three times, and the index had first to be built for 1.5 M extents. The keys
/// stay in order, so the table needs neither an index nor a sort after.
enum SortedExtents {
    /// `member` joins the set of each of `references` (ascending), each extent that is new
    /// made with it alone; `repeat` hears of each reference to an extent it was in already.
    @_optimize(speed)
    @inline(__always)
    static func merge(
        _ references: UnsafeBufferPointer<ExtentKey>, into keys: inout [ExtentKey], sets: inout [SubvolumeSet],
        member: UInt32, repeat: (ExtentKey) -> Void
    ) {
        var fresh: [ExtentKey] = []
        keys.withUnsafeBufferPointer { keys in
            sets.withUnsafeMutableBufferPointer { sets in
                var position = 0
                for key in references where key.diskBytenr != 0 {
                    while position < keys.count, keys[position] < key { position += 1 }
                    if position < keys.count, keys[position] == key {
                        if !sets[position].insert(member) { `repeat`(key) }
                    } else if fresh.last == key {
                        `repeat`(key)
                    } else {
                        fresh.append(key)
                    }
                }
            }
        }
        place(fresh, into: &keys, sets: &sets, member: member)
    }

    /// `member` leaves the set of each of `references` (ascending), and each extent left
    /// with no member leaves the keys. False when `member` was not in one of them.
    @_optimize(speed)
    static func remove(
        _ references: UnsafeBufferPointer<ExtentKey>, from keys: inout [ExtentKey], sets: inout [SubvolumeSet],
        member: UInt32
    ) -> Bool {
        var emptied: [Int] = []
        let held = keys.withUnsafeBufferPointer { keys in
            sets.withUnsafeMutableBufferPointer { sets in
                var position = 0
                for key in references {
                    while position < keys.count, keys[position] < key { position += 1 }
                    // A reference named twice to an extent it emptied no longer has it.
                    guard position < keys.count, keys[position] == key, emptied.last != position else { return false }
                    switch sets[position].remove(member) {
                    case false?: return false
                    case true?: break
                    case nil: emptied.append(position)
                    }
                }
                return true
            }
        }
        guard held else { return false }
        drop(at: emptied, from: &keys, sets: &sets)
        return true
    }

    /// Puts `fresh` (ascending, none held) among the keys in order, each referenced by
    /// `member` alone: the arrays grown once, then filled from the back.
    @_optimize(speed)
    private static func place(
        _ fresh: [ExtentKey], into keys: inout [ExtentKey], sets: inout [SubvolumeSet], member: UInt32
    ) {
        guard !fresh.isEmpty else { return }
        var old = keys.count - 1
        keys.append(contentsOf: fresh)
        sets.append(contentsOf: repeatElement(SubvolumeSet(member), count: fresh.count))
        keys.withUnsafeMutableBufferPointer { keys in
            sets.withUnsafeMutableBufferPointer { sets in
                var next = fresh.count - 1
                var write = keys.count - 1
                while next >= 0 {
                    if old >= 0, keys[old] > fresh[next] {
                        keys[write] = keys[old]
                        sets.swapAt(write, old)
                        old -= 1
                    } else {
                        keys[write] = fresh[next]
                        sets[write] = SubvolumeSet(member)
                        next -= 1
                    }
                    write -= 1
                }
            }
        }
    }

    /// Drops the extents at `positions` (ascending, each once), the others kept in order.
    @_optimize(speed)
    private static func drop(at positions: [Int], from keys: inout [ExtentKey], sets: inout [SubvolumeSet]) {
        guard let first = positions.first else { return }
        keys.withUnsafeMutableBufferPointer { keys in
            sets.withUnsafeMutableBufferPointer { sets in
                var write = first, next = 0
                for read in first..<keys.count {
                    if next < positions.count, positions[next] == read {
                        next += 1
                        continue
                    }
                    keys[write] = keys[read]
                    sets.swapAt(write, read)
                    write += 1
                }
            }
        }
        keys.removeLast(positions.count)
        sets.removeLast(positions.count)
    }
}
