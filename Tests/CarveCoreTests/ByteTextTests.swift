import CarveCore
import CarveTestSupport
import Testing

@Suite("ByteText: names that are not UTF-8 are carried exactly")
struct ByteTextTests {
    @Test("Valid UTF-8 is decoded as it is")
    func validTextUnchanged() {
        for text in ["", "snapshot", "Fotos – 2026", "名前", "emoji 🦀", "\u{FFFD} already", "\u{10FF7F}"] {
            let decoded = ByteText.decode(Array(text.utf8))
            #expect(decoded == text)
            #expect(!ByteText.carriesBytes(decoded))
            #expect(ByteText.bytes(of: decoded) == Array(text.utf8))
        }
    }

    @Test(
        "Each invalid byte becomes its own scalar and comes back",
        arguments: [
            [0xFF], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF5, 0x80, 0x80, 0x80],
            [0x61, 0xFE, 0x62], [0xF0, 0x9F, 0xA6], [0xC3], [0xF4, 0x90, 0x80, 0x80],
        ] as [[UInt8]])
    func invalidBytesCarried(bytes: [UInt8]) {
        let text = ByteText.decode(bytes)
        #expect(ByteText.carriesBytes(text))
        #expect(ByteText.bytes(of: text) == bytes)
        let carried = text.unicodeScalars.compactMap(ByteText.carriedByte)
        #expect(carried == bytes.filter { $0 >= 0x80 })
    }

    @Test("A name that really holds a reserved scalar keeps its four bytes")
    func reservedScalarIsCarriedByteByByte() {
        let genuine = Array("x\u{10FFFF}y\u{10FF80}".utf8)
        let text = ByteText.decode(genuine)
        #expect(text != "x\u{10FFFF}y\u{10FF80}")
        #expect(ByteText.bytes(of: text) == genuine)
        // And it differs from the one-byte name 0xFF, which would otherwise collide.
        #expect(ByteText.decode([0x78, 0xFF]) != ByteText.decode(Array("x\u{10FFFF}".utf8)))
    }

    @Test("Every byte string comes back exactly (20,000 random names)")
    func roundTripRandomBytes() {
        var random = SplitMix(seed: 0xB17E_5EED)
        let alphabet: [UInt8] = [
            0x61, 0x2F, 0x0A, 0x5C, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xAC,
            0xED, 0xF0, 0x9F, 0xF4, 0x8F, 0xBE, 0xBF, 0xFF, 0xC0,
        ]
        for _ in 0..<20_000 {
            let count = Int(random.next() % 12)
            let bytes = (0..<count).map { _ in
                random.next() % 3 == 0
                    ? UInt8(truncatingIfNeeded: random.next()) : alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let text = ByteText.decode(bytes)
            #expect(ByteText.bytes(of: text) == bytes, "bytes \(bytes)")
            #expect(
                ByteText.carriesBytes(text)
                    == (String(validating: bytes, as: UTF8.self) == nil
                        || text.unicodeScalars.contains { ByteText.carriedByte($0) != nil }))
        }
    }

    @Test("System calls get the original bytes")
    func cStringIsTheOriginalBytes() {
        let bytes: [UInt8] = [0x2F, 0x6D, 0xFF, 0x6E, 0xC3]
        let copied = ByteText.withCString(ByteText.decode(bytes)) { pointer in
            (0..<bytes.count + 1).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(copied == bytes + [0])
        #expect(ByteText.withCString("plain") { String(cString: $0) } == "plain")
    }

    @Test("JSON and messages get U+FFFD in place of each carried byte")
    func replacementForUTF8Output() {
        #expect(ByteText.replacingCarriedBytes(ByteText.decode([0x61, 0xFF, 0xFE, 0x62])) == "a\u{FFFD}\u{FFFD}b")
        #expect(ByteText.replacingCarriedBytes("clean") == "clean")
    }
}
