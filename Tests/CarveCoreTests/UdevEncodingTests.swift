import CarveCore
import Testing

@Suite struct UdevEncodingTests {
    @Test(arguments: [
        ("my\\x20data", "my data"),
        ("a\\x2fb", "a/b"),
        ("A\\x2Fb", "A/b"),
        ("caf\\xc3\\xa9", "café"),
        ("\\x5c", "\\"),
        ("plain", "plain"),
        ("", ""),
    ])
    func decodesEscapes(encoded: String, decoded: String) {
        #expect(UdevEncoding.decode(encoded) == decoded)
    }

    @Test(arguments: [
        "\\", "abc\\", "\\x", "\\x2", "end\\x2", "\\xZZ", "\\xg0", "\\y41", "\\\\x", "x\\x4",
    ])
    func keepsMalformedEscapesLiterally(input: String) {
        #expect(UdevEncoding.decode(input) == input)
    }

    @Test func decodesAnEscapeAfterAMalformedOne() {
        #expect(UdevEncoding.decode("\\xZ\\x41") == "\\xZA")
    }

    @Test func bytesThatAreNotUTF8AreCarriedExactly() {
        #expect(ByteText.bytes(of: UdevEncoding.decode("a\\xffb")) == [0x61, 0xFF, 0x62])
        #expect(UdevEncoding.decode("a\\xffb") != UdevEncoding.decode("a\\xfeb"))
    }

    /// udev's own encoder escapes every byte outside a safe set; decoding its output
    /// must give back the original name, whatever the name.
    @Test(arguments: ["my data", "Ünïcödé 名前", "back\\slash", "quote\"d", "tab\there", "/slash/"])
    func roundTripsUdevsEncoding(name: String) {
        var encoded = ""
        for byte in name.utf8 {
            let safe =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            encoded += safe ? String(UnicodeScalar(byte)) : "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
        #expect(UdevEncoding.decode(encoded) == name)
    }
}
