import CarveCore
import Testing

/// The word-at-a-time tests must say what a byte-at-a-time look says, for every length
/// (shorter than a word, a word, the overlapping last word) and every position of the
/// byte sought, with high bytes around it that could borrow into a false positive.
@Suite struct ByteWordsTests {
    /// One buffer of `length` filler bytes, `planted` at `position`.
    static func buffer(_ length: Int, filler: UInt8, planted: UInt8? = nil, at position: Int = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: filler, count: length)
        if let planted, position < length { bytes[position] = planted }
        return bytes
    }

    static func controlOrBackslash(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            ByteWords.any(
                in: raw, { ByteWords.bytes($0, below: 0x20) | ByteWords.bytes($0, equalTo: UInt8(ascii: "\\")) },
                tail: { $0 < 0x20 || $0 == UInt8(ascii: "\\") })
        }
    }

    @Test func findsEachBytePlantedAtEveryPositionOfEveryLength() {
        for length in 0...40 {
            for filler: UInt8 in [0x20, 0x61, 0x7F, 0x80, 0xFF] {
                #expect(!Self.controlOrBackslash(Self.buffer(length, filler: filler)), "\(length) \(filler)")
                for position in 0..<length {
                    for planted: UInt8 in [0x00, 0x01, 0x1F, UInt8(ascii: "\\")] {
                        let bytes = Self.buffer(length, filler: filler, planted: planted, at: position)
                        #expect(Self.controlOrBackslash(bytes), "\(length) \(filler) \(planted) at \(position)")
                    }
                }
            }
        }
    }

    @Test func agreesWithAByteLoopOnRandomBuffers() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let length = Int.random(in: 0...48, using: &generator)
            // Mostly printable, sometimes a control byte or a high one: both answers occur.
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<64, using: &generator) == 0
                    ? UInt8.random(in: 0...0x1F, using: &generator) : UInt8.random(in: 0x20...0xFF, using: &generator)
            }
            let expected = bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\\") }
            #expect(Self.controlOrBackslash(bytes) == expected, "\(bytes)")
        }
    }

    @Test func wordTestsSeeEachByteOfTheWord() {
        for shift in stride(from: 0, to: 64, by: 8) {
            let word = (0x4141_4141_4141_4141 as UInt64) & ~(0xFF << UInt64(shift)) | (0xF4 << UInt64(shift))
            #expect(ByteWords.bytes(word, equalTo: 0xF4) != 0)
            #expect(ByteWords.bytes(word, equalTo: 0xF5) == 0)
            #expect(ByteWords.bytes(word, below: 0x20) == 0)
            #expect(ByteWords.zeroBytes(word & ~(0xFF << UInt64(shift))) != 0)
        }
        #expect(ByteWords.zeroBytes(0x0101_0101_0101_0101) == 0)
    }
}
