@testable import CarveCore
import Testing

/// The cache's numbers (LEB128) read back as written by both readers, the slice's and
/// the raw bytes' (with room for the unchecked path and without), and refused alike
/// when cut short, longer than 64 bits, or longer than the writer writes them.
struct CacheNumberTests {
    static let values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, (1 << 63) - 1, 1 << 63, .max]

    /// What each reader makes of `bytes`: the slice's, the raw bytes' as they are, and
    /// the raw bytes' with room after them (the path that checks no byte).
    func readings(_ bytes: [UInt8]) -> [Result<UInt64, ExactSizesCacheDamage>] {
        func slice() -> Result<UInt64, ExactSizesCacheDamage> {
            var reader = CacheReader(bytes: bytes[...])
            return Result { () throws(ExactSizesCacheDamage) in try reader.number() }
        }
        func raw(_ bytes: [UInt8]) -> Result<UInt64, ExactSizesCacheDamage> {
            bytes.withUnsafeBytes { raw in
                var reader = RawCacheReader(base: raw, offset: 0)
                return Result { () throws(ExactSizesCacheDamage) in try reader.number() }
            }
        }
        return [slice(), raw(bytes), raw(bytes + [UInt8](repeating: 0, count: 16))]
    }

    @Test(arguments: values)
    func everyReaderReadsWhatTheWriterWrote(value: UInt64) throws {
        var writer = CacheWriter()
        writer.number(value)
        #expect(writer.bytes.count == max(1, (64 - value.leadingZeroBitCount + 6) / 7))
        for reading in readings(writer.bytes) { #expect(reading == .success(value)) }
    }

    @Test func cutShortOrTooLongIsRefusedByEveryReader() {
        let cases: [([UInt8], ExactSizesCacheDamage)] = [
            ([0x80, 0x80], .truncated),
            ([UInt8](repeating: 0xFF, count: 9) + [0x02], .malformed("a number too large")),
            ([UInt8](repeating: 0x80, count: 10) + [0x00], .malformed("a number too large")),
            // Longer than the writer writes it: read back and written again, the file would shrink.
            ([0x80, 0x00], .malformed("a number longer than it is")),
            ([0xFF, 0x00], .malformed("a number longer than it is")),
            ([0x81, 0x80, 0x80, 0x00], .malformed("a number longer than it is")),
        ]
        for (bytes, damage) in cases {
            // Cut short: the padded reader finds the zeros after it, so only the two exact ones.
            for reading in readings(bytes).prefix(damage == .truncated ? 2 : 3) { #expect(reading == .failure(damage)) }
        }
    }
}
