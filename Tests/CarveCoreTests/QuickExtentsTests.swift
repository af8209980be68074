@testable import CarveCore
import CarveTestSupport
import Testing

/// The cache's extents read the quick way (an extent of one run with fifty bytes left,
/// nothing checked per byte, nothing thrown) are read exactly as the careful way reads
/// them alone: the same extents and end, or the same damage. Held to it on valid series,
/// on each thing the careful way refuses, on numbers of every length, and on bytes cut
/// short or run on so that the fifty bytes run out inside an extent.
struct QuickExtentsTests {
    struct Extents: Equatable {
        var keys: [ExtentKey], sets: [SubvolumeSet], end: Int
    }

    /// A case: bytes with the extents from `start`, how many to read, among how many trees.
    struct Case {
        var bytes: [UInt8], start = 0, count: Int, trees: Int
    }

    static func read(_ given: Case, quick: Bool) -> Result<Extents, ExactSizesCacheDamage> {
        given.bytes.withUnsafeBytes { raw in
            var reader = RawCacheReader(base: raw, offset: given.start)
            return Result { () throws(ExactSizesCacheDamage) in
                let (keys, sets) = try reader.extents(count: given.count, treeCount: given.trees, quick: quick)
                return Extents(keys: keys, sets: sets, end: reader.offset)
            }
        }
    }

    /// Expects the two ways to read `cases` alike, with more than `fewestValid` of the
    /// readings undamaged.
    static func expectReadAlike(_ cases: [Case], random: inout SplitMix, moreValidThan fewestValid: Int) {
        var valid = 0
        let found = differences(cases, random: &random, valid: &valid)
        #expect(found.isEmpty, "\(found)")
        #expect(valid > fewestValid)
    }

    /// Where the two ways read differently: `cases`, and each of them cut short near its
    /// end, run on by junk, or read for one extent fewer or more. The readings without
    /// damage are counted in `valid` (a test of nothing but damage would hold little).
    static func differences(_ cases: [Case], random: inout SplitMix, valid: inout Int) -> [String] {
        var found: [String] = []
        func compare(_ given: Case) {
            let careful = read(given, quick: false), quick = read(given, quick: true)
            if case .success = careful { valid += 1 }
            if quick != careful, found.count < 5 {
                found.append(
                    "\(given.bytes) from \(given.start), \(given.count) among \(given.trees): "
                        + "\(quick) read the quick way, \(careful) the careful way")
            }
        }
        for given in cases {
            compare(given)
            // Cut at every byte of the last seventy, past the fifty bytes of the quick way's room.
            for cut in max(given.start, given.bytes.count - 70)..<given.bytes.count {
                compare(
                    Case(bytes: Array(given.bytes[..<cut]), start: given.start, count: given.count, trees: given.trees))
            }
            for length in [1, 9, 30, 49, 50, 51] {
                let junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                compare(Case(bytes: given.bytes + junk, start: given.start, count: given.count, trees: given.trees))
            }
            for count in [given.count - 1, given.count + 1] where count >= 0 {
                compare(Case(bytes: given.bytes, start: given.start, count: count, trees: given.trees))
            }
        }
        return found
    }

    /// `value` as LEB128 in `length` bytes (at least its own; more pads with zero bits).
    static func encoded(_ value: UInt64, length: Int = 1) -> [UInt8] {
        let own = max(1, (64 - value.leadingZeroBitCount + 6) / 7)
        let total = min(10, max(own, length))
        return (0..<total).map { index in
            let bits = UInt8(truncatingIfNeeded: value >> UInt64(7 * index)) & 0x7F
            return index == total - 1 ? bits : bits | 0x80
        }
    }

    /// An extent's numbers: step, size, run count, then per run its gap and length - 1.
    typealias Numbers = [UInt64]

    /// A valid series of extents among `trees`: mostly one run, some of more.
    static func series(_ count: Int, trees: Int, random: inout SplitMix) -> [Numbers] {
        // Of one bit to 64, or half of them of 14 (two bytes: the steps and sizes of small files).
        func number(from low: UInt64, _ random: inout SplitMix) -> UInt64 {
            let bits = Bool.random(using: &random) ? 14 : Int.random(in: 1...64, using: &random)
            return UInt64.random(in: low...max(low, UInt64.max >> UInt64(64 - bits)), using: &random)
        }
        // Small, or (one in four) up to two bytes.
        func index(from low: UInt64, _ random: inout SplitMix) -> UInt64 {
            UInt64.random(in: low...low + (Int.random(in: 0..<4, using: &random) == 0 ? 250 : 3), using: &random)
        }
        return (0..<count).map { _ in
            let step = number(from: 1, &random), size = number(from: 0, &random)
            var runs: [UInt64] = [], end: UInt64 = 0
            let wanted = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...5, using: &random) : 1
            for run in 0..<wanted {
                let gap = index(from: run == 0 ? 0 : 2, &random), length = index(from: 0, &random)
                guard end + gap + length < UInt64(trees) else { break }
                runs += [gap, length]
                end += gap + length
            }
            if runs.isEmpty { runs = [0, 0] }
            return [step, size, UInt64(runs.count / 2)] + runs
        }
    }

    /// The bytes of `extents`, each number in its own length unless `lengths` gives one.
    static func bytes(_ extents: [Numbers], lengths: [Int: Int] = [:]) -> [UInt8] {
        extents.joined().enumerated().flatMap { encoded($1, length: lengths[$0] ?? 1) }
    }

    static let treeCounts = [1, 2, 3, 6, 64, 1000, 1 << 32]

    @Test func validSeriesAreReadAlike() {
        var random = SplitMix(seed: 33)
        var cases: [Case] = []
        for trees in Self.treeCounts {
            for count in [1, 2, 5, 8, 40] {
                let extents = Self.series(count, trees: min(trees, 1000), random: &random)
                cases.append(Case(bytes: Self.bytes(extents), count: count, trees: trees))
                // Run after a few bytes the reader starts past.
                cases.append(Case(bytes: [0x80, 0x81, 0] + Self.bytes(extents), start: 3, count: count, trees: trees))
            }
        }
        Self.expectReadAlike(cases, random: &random, moreValidThan: cases.count)
    }

    /// Each number of an extent written in each length a number takes, one to ten bytes,
    /// by its value or by zero bits padding a small one.
    @Test func numbersOfEveryLengthAreReadAlike() {
        var random = SplitMix(seed: 34)
        var cases: [Case] = []
        for shape: Numbers in [[1, 4096, 1, 3, 1], [1, 4096, 2, 3, 1, 5, 0]] {
            for position in shape.indices {
                for length in 1...10 {
                    for padded in [false, true] {
                        var extents = Self.series(9, trees: 50, random: &random)
                        extents[4] = shape
                        if !padded && position < 2 { extents[4][position] = 1 << UInt64(7 * (length - 1)) }
                        let at = extents[..<4].joined().count + position
                        cases.append(Case(bytes: Self.bytes(extents, lengths: [at: length]), count: 9, trees: 50))
                    }
                }
            }
        }
        Self.expectReadAlike(cases, random: &random, moreValidThan: cases.count)
    }

    /// What the careful way refuses, written into a valid series at one extent: the
    /// quick way may not take it.
    @Test func everyMalformedExtentIsRefusedAlike() {
        var random = SplitMix(seed: 35)
        var cases: [Case] = []
        for trees in [20, 1 << 32] {
            // Each change takes the extent before's bytenr and gives the extent's numbers,
            // with steps and sizes of one byte or two (a small file's, read in one load).
            for (step, size): (UInt64, UInt64) in [(1, 1), (0x2000, 0x3000)] {
                let changes: [(UInt64) -> Numbers] = [
                    { _ in [0, size, 1, 0, 0] }, // out of order
                    { [0 &- $0, size, 1, 0, 0] }, // at bytenr 0
                    { [(1 << 63) &- $0, size, 1, 0, 0] }, // far on, then wraps past zero
                    { _ in [step, size, 0, 0, 0] }, // no tree
                    { _ in [step, size, UInt64(trees) + 1, 0, 0] }, // more runs than trees
                    { _ in [step, size, 1 << 40, 0, 0] },
                    { _ in [step, size, 2, 0, 0, 1, 0] }, // runs that touch
                    { _ in [step, size, 2, 0, 0, 0, 0] },
                    { _ in [step, size, 1, UInt64(trees), 0] }, // a tree out of range
                    { _ in [step, size, 1, 0, UInt64(trees)] },
                    { _ in [step, size, 1, UInt64(trees) - 1, 1] },
                    { _ in [step, size, 1, UInt64.max, 1] }, // overflows
                    { _ in [step, size, 1, 1, UInt64.max] },
                    { _ in [step, size, 1, 1 << 56, 0] },
                    { _ in [step, size, 2, 0, 0, UInt64.max, 2] },
                    { _ in [step, size, 1, UInt64(trees) - 1, 0] }, // (valid: the last tree)
                ]
                for change in changes {
                    for at in [0, 1, 4, 7] {
                        var extents = Self.series(8, trees: trees, random: &random)
                        let before = extents[..<at].reduce(UInt64(0)) { $0 &+ $1[0] }
                        extents[at] = change(before)
                        cases.append(Case(bytes: Self.bytes(extents), count: 8, trees: trees))
                    }
                }
            }
            // A number too large at each place of an extent: its tenth byte more than the top bit.
            for position in 0..<5 {
                for tenth: UInt8 in [2, 3, 0x7F, 0x80, 0x81, 0xFF] {
                    var extents = Self.series(8, trees: trees, random: &random)
                    extents[3] = [1, 4096, 1, 0, 0]
                    var bytes = Self.bytes(Array(extents[..<3]))
                    for (index, number) in extents[3].enumerated() {
                        bytes += index == position ? [UInt8](repeating: 0xFF, count: 9) + [tenth] : Self.encoded(number)
                    }
                    bytes += Self.bytes(Array(extents[4...]))
                    cases.append(Case(bytes: bytes, count: 8, trees: trees))
                }
            }
        }
        Self.expectReadAlike(cases, random: &random, moreValidThan: 0)
    }

    /// Bytes at random, most of them small numbers or the first bytes of longer ones.
    @Test func randomBytesAreReadAlike() {
        var random = SplitMix(seed: 36)
        let likely: [UInt8] = [0, 1, 2, 3, 0x80, 0x81, 0xFF, 0x7F]
        var cases: [Case] = []
        for _ in 0..<400 {
            let length = Int.random(in: 0...120, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random)
                    ? likely.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let trees = Self.treeCounts.randomElement(using: &random)!
            cases.append(Case(bytes: bytes, count: Int.random(in: 1...30, using: &random), trees: trees))
        }
        var valid = 0
        let found = Self.differences(cases, random: &random, valid: &valid)
        #expect(found.isEmpty, "\(found)")
    }
}
