@testable import CarveCore
import CarveTestSupport
import Testing

/// A scan's packed references read back as they were appended, whatever the numbers.
struct PackedReferencesTests {
    func expectReadBack(_ references: [ExtentKey]) {
        let packed = PackedReferences(references)
        let unpacked = packed.unpacked
        #expect(unpacked.count == references.count && packed.count == references.count)
        // The first that differs, not two arrays of thousands.
        let differs = zip(unpacked, references).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(differs == nil, "reference \(differs?.offset ?? 0): \(String(describing: differs?.element))")
    }

    @Test func alignedReferencesTakeAWordEach() {
        var random = SplitMix(seed: 1)
        var at: UInt64 = 1 << 30
        let references = (0..<10_000).map { _ in
            at += 4096 * UInt64.random(in: 1...64, using: &random)
            return ExtentKey(diskBytenr: at, diskBytes: 4096 * UInt64.random(in: 1...32, using: &random))
        }
        expectReadBack(references)
        #expect(PackedReferences(references).words.count == references.count)
    }

    @Test(arguments: [2, 3, 4])
    func anyNumbersReadBack(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let edges: [UInt64] = [
            0, 1, 4095, 4096, 4097, 1 << 52, (1 << 52) - 4096, UInt64.max, UInt64.max - 4095, 1 << 63,
            // Sizes and distances about the largest a word holds.
            (1 << 28) - 4096, 1 << 28, (1 << 58) - 4096, 1 << 58, 1 << 59,
        ]
        let references = (0..<5_000).map { _ in
            func number() -> UInt64 {
                switch Int.random(in: 0...3, using: &random) {
                case 0: edges.randomElement(using: &random)!
                case 1: 4096 * UInt64.random(in: 0...(1 << 40), using: &random)
                default: UInt64.random(in: 0...UInt64.max, using: &random)
                }
            }
            return ExtentKey(diskBytenr: number(), diskBytes: number())
        }
        expectReadBack(references)
    }

    @Test func unalignedAfterAlignedAndBackReadBack() {
        expectReadBack([
            ExtentKey(diskBytenr: 8192, diskBytes: 4096), ExtentKey(diskBytenr: 8193, diskBytes: 4096),
            ExtentKey(diskBytenr: 4096, diskBytes: 12_288), ExtentKey(diskBytenr: UInt64.max - 4095, diskBytes: 4096),
            ExtentKey(diskBytenr: 0, diskBytes: 0), ExtentKey(diskBytenr: UInt64.max, diskBytes: UInt64.max),
            ExtentKey(diskBytenr: 4096, diskBytes: 4096),
        ])
        expectReadBack([])
    }
}
