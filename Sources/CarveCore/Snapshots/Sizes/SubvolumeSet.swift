/// The subvolumes that reference one data extent, as sorted runs of subvolume
/// indices. Snapshots of one source are numbered in creation order, so an extent
/// born in one snapshot and overwritten a few snapshots later is one run: most
/// sets are one or two runs, held inline without a heap allocation.
struct SubvolumeSet: Sendable, Hashable, Codable {
    /// The first run, inclusive.
    private(set) var lower: UInt32
    private(set) var upper: UInt32
    /// Further runs as flattened (lower, upper) pairs, ascending; nil in the common case.
    private var more: [UInt32]?

    init(_ index: UInt32) { lower = index; upper = index }

    /// True when exactly one subvolume references the extent.
    var isSingle: Bool { lower == upper && more == nil }

    /// The runs, ascending and disjoint, not touching.
    var runs: [ClosedRange<UInt32>] {
        var result = [lower...upper]
        if let more {
            for pair in stride(from: 0, to: more.count, by: 2) { result.append(more[pair]...more[pair + 1]) }
        }
        return result
    }

    /// How many runs `forEachRun` gives.
    var runCount: Int { 1 + (more?.count ?? 0) / 2 }

    /// Calls `body` on each run without building an array.
    func forEachRun(_ body: (UInt32, UInt32) -> Void) {
        body(lower, upper)
        guard let more else { return }
        for pair in stride(from: 0, to: more.count, by: 2) { body(more[pair], more[pair + 1]) }
    }

    var count: Int {
        var total = 0
        forEachRun { total += Int($1 - $0) + 1 }
        return total
    }

    func contains(_ index: UInt32) -> Bool {
        var found = false
        forEachRun { if $0 <= index && index <= $1 { found = true } }
        return found
    }

    /// Adds `index`; false when it was a member already. A scan visits subvolumes in
    /// index order, so the new member is almost always at or just past the end: that
    /// path costs nothing.
    @discardableResult
    mutating func insert(_ index: UInt32) -> Bool {
        if let more, let last = more.last {
            if index == last + 1 { self.more![more.count - 1] = index; return true }
            if index > last + 1 { self.more!.append(contentsOf: [index, index]); return true }
            // A snapshot taken since the cached run, numbered just below the writable
            // subvolume it was taken of: joins the last run, or the last two.
            let count = more.count
            if index + 1 == more[count - 2] {
                let before = count >= 4 ? more[count - 3] : upper
                if index > before + 1 { self.more![count - 2] = index; return true }
                if index == before + 1 {
                    if count >= 4 {
                        self.more![count - 3] = last
                        self.more!.removeLast(2)
                    } else {
                        upper = last
                        self.more = nil
                    }
                    return true
                }
            }
        } else {
            if index >= lower && index <= upper { return false }
            if index == upper + 1 { upper = index; return true }
            if index > upper + 1 { more = [index, index]; return true }
        }
        // A writable subvolume merged into sets restored from the cache, just below them.
        if index &+ 1 == lower { lower = index; return true }
        guard !contains(index) else { return false }
        rebuild(runs + [index...index])
        return true
    }

    /// Takes `index` out; nil when that leaves no member (the extent is then no
    /// subvolume's), else whether it was a member. A writable subvolume's files
    /// changed since the cached run (numbered last, so at a run's end) take this path.
    mutating func remove(_ index: UInt32) -> Bool? {
        guard contains(index) else { return false }
        if more == nil {
            if lower == upper { return nil }
            if index == upper { upper -= 1; return true }
            if index == lower { lower += 1; return true }
        } else if let last = more?.last, index == last, more![more!.count - 2] < last {
            more![more!.count - 1] = last - 1
            return true
        }
        var split: [ClosedRange<UInt32>] = []
        for run in runs {
            guard run.contains(index) else { split.append(run); continue }
            if run.lowerBound < index { split.append(run.lowerBound...index - 1) }
            if index < run.upperBound { split.append(index + 1...run.upperBound) }
        }
        rebuild(split)
        return true
    }

    private mutating func rebuild(_ unsorted: [ClosedRange<UInt32>]) {
        var merged: [ClosedRange<UInt32>] = []
        for run in unsorted.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, run.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, run.upperBound)
            } else {
                merged.append(run)
            }
        }
        lower = merged[0].lowerBound; upper = merged[0].upperBound
        more = merged.count == 1 ? nil : merged.dropFirst().flatMap { [$0.lowerBound, $0.upperBound] }
    }
}

extension SubvolumeSet {
    /// A set of one run.
    init(_ lower: UInt32, _ upper: UInt32) {
        self.lower = lower; self.upper = upper
    }

    /// Adds the run `lower...upper`, which lies above every member (building a set
    /// run by run, ascending, as the cache does).
    mutating func append(_ lower: UInt32, _ upper: UInt32) {
        if let last = more?.last {
            if lower <= last + 1 { more![more!.count - 1] = upper } else { more!.append(contentsOf: [lower, upper]) }
        } else if lower <= self.upper + 1 {
            self.upper = upper
        } else {
            more = [lower, upper]
        }
    }
}
