import CarveCore
import CarveTestSupport
import Testing

/// The radix sort of inode numbers orders them as the standard library's sort does.
@Suite struct RadixSortTests {
    /// Lengths on both sides of where it stops using insertion sort, numbers that differ
    /// in their low bytes only (a directory's inodes), in one high byte, anywhere, or not
    /// at all, with repeats and the ends of the range.
    @Test(arguments: 0..<40)
    func sortsAsTheStandardLibraryDoes(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let count = [0, 1, 2, 47, 48, 49, 50, 300, 5000].randomElement(using: &random)!
        let base = UInt64.random(in: 0...UInt64.max, using: &random)
        let values: [UInt64] = (0..<count).map { _ in
            switch seed % 5 {
            case 0: return base &+ .random(in: 0..<70_000, using: &random)
            case 1: return base ^ (UInt64.random(in: 0...255, using: &random) << 48)
            case 2: return base
            case 3: return [0, .max, .max - 1, 1 << 63, base].randomElement(using: &random)!
            default: return .random(in: 0...UInt64.max, using: &random)
            }
        }
        #expect(RadixSort.sorted(values) == values.sorted(), "seed \(seed), \(count) values")
    }

    /// In place, through a scratch buffer as long as the part sorted: the rest of the
    /// buffer is left as it was.
    @Test func sortsAPartInPlaceLeavingTheRest() {
        var random = SplitMix(seed: 7)
        var values = (0..<400).map { _ in UInt64.random(in: 0..<1 << 20, using: &random) }
        let before = values
        let scratch = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 200)
        defer { scratch.deallocate() }
        values.withUnsafeMutableBufferPointer { RadixSort.sort(.init(rebasing: $0[100..<300]), scratch: scratch) }
        #expect(Array(values[100..<300]) == before[100..<300].sorted())
        #expect(values[..<100] == before[..<100])
        #expect(values[300...] == before[300...])
    }

    /// Extents' keys in `ExtentKey`'s order: by start, then size; starts repeated with
    /// one size and with several, sizes that differ in one byte or many.
    @Test(arguments: 0..<40)
    func sortsExtentKeysAsTheStandardLibraryDoes(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let count = [0, 1, 2, 48, 49, 300, 5000].randomElement(using: &random)!
        let base = UInt64.random(in: 0...UInt64.max / 2, using: &random)
        let keys: [ExtentKey] = (0..<count).map { _ in
            let start: UInt64 =
                seed % 3 == 0 ? base : base &+ 4096 * .random(in: 0..<(seed % 3 == 1 ? 50 : 1 << 30), using: &random)
            let size: UInt64 =
                seed % 4 == 0
                ? 4096
                : seed % 4 == 1
                    ? 4096 * .random(in: 1...32, using: &random) : .random(in: 0...UInt64.max, using: &random)
            return ExtentKey(diskBytenr: start, diskBytes: size)
        }
        var sorted = keys
        RadixSort.sort(&sorted)
        #expect(sorted == keys.sorted(), "seed \(seed), \(count) keys")
    }
}
