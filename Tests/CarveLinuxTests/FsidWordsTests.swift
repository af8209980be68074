import Testing

@testable import CarveLinux

/// `locate` tells a path's filesystem by the UUID's words, as btrfs folds them into
/// statfs's f_fsid: they must be the UUID's hex digits read big-endian, 8 a word.
@Suite struct FsidWordsTests {
    @Test func wordsAreTheDigitsBigEndian() throws {
        let words = try #require(BtrfsMounts.fsidWords("bf0a0aa3-6b05-46c4-9ed8-c553611cdb59"))
        #expect(words.0 == 0xbf0a_0aa3 && words.1 == 0x6b05_46c4 && words.2 == 0x9ed8_c553 && words.3 == 0x611c_db59)
        let upper = try #require(BtrfsMounts.fsidWords("BF0A0AA36B0546C49ED8C553611CDB59"))
        #expect(upper == words)
    }

    @Test func randomUUIDsMatchAParseOfEachWord() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            let dashed = [
                hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4),
                hex.dropFirst(16).prefix(4), hex.dropFirst(20),
            ].joined(separator: "-")
            let words = try #require(BtrfsMounts.fsidWords(dashed))
            let expected = (0..<4).map { UInt32(hex.dropFirst($0 * 8).prefix(8), radix: 16)! }
            #expect([words.0, words.1, words.2, words.3] == expected)
        }
    }

    @Test(arguments: [
        "", "bf0a0aa3", "bf0a0aa3-6b05-46c4-9ed8-c553611cdb5", "bf0a0aa3-6b05-46c4-9ed8-c553611cdb590",
        "bf0a0aa3-6b05-46c4-9ed8-c553611cdb5g", "bf0a0aa3-6b05-46c4-9ed8-c553611cdb5 ",
        "zf0a0aa3-6b05-46c4-9ed8-c553611cdb59",
        "bf0a0aa3-6b05-46c4-9ed8-c553611cdb59é",
    ])
    func malformedUUIDsHaveNoWords(_ uuid: String) {
        #expect(BtrfsMounts.fsidWords(uuid) == nil)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
