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

    /// Adds `index`. A scan visits subvolumes in index order, so the new member is
    /// almost always at or just past the end: that path costs nothing.
    mutating func insert(_ index: UInt32) {
        if let more, let last = more.last {
            if index == last + 1 { self.more![more.count - 1] = index; return }
            if index > last + 1 { self.more!.append(contentsOf: [index, index]); return }
        } else {
            if index >= lower && index <= upper { return }
            if index == upper + 1 { upper = index; return }
            if index > upper + 1 { more = [index, index]; return }
        }
        // A writable subvolume merged into sets restored from the cache, just below them.
        if index &+ 1 == lower { lower = index; return }
        guard !contains(index) else { return }
        rebuild(runs + [index...index])
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
