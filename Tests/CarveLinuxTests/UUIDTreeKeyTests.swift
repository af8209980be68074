@testable import CarveLinux
import Testing

/// The UUID tree's key of a UUID in text: its 16 bytes as two little-endian words,
/// read from the usual form directly and from any other spelling digit by digit.
@Suite struct UUIDTreeKeyTests {
    /// The key as the bytes give it: bytes 0-7 little-endian, then bytes 8-15.
    func expected(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        func word(_ from: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[from + $1]) << (8 * $1) } }
        return (word(0), word(8))
    }

    @Test func theTextOfSixteenBytesGivesTheirKey() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = try #require(bytes.withUnsafeBytes { uuidText($0) })
            let want = expected(bytes)
            for spelling in [text, text.uppercased(), text.replacingDashes(), "-" + text.replacingDashes() + "-"] {
                let key = try #require(UUIDTree.key(spelling), "\(spelling)")
                #expect(key.objectid == want.0 && key.offset == want.1, "\(spelling)")
            }
        }
    }

    @Test func whatIsNotAUUIDHasNoKey() {
        let good = "0c1d2e3f-0000-4000-8000-000000000001"
        for bad in [
            "", "0c1d2e3f", good + "0", String(good.dropLast()), good.replacingOccurrences("1", "g"),
            good.replacingOccurrences("-", "_"), "0c1d2e3f-0000-4000-8000-00000000000é",
        ] {
            #expect(UUIDTree.key(bad) == nil, "\(bad)")
        }
    }
}

private extension String {
    func replacingDashes() -> String { String(filter { $0 != "-" }) }
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
