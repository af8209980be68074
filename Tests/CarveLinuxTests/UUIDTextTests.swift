import Foundation
import Testing
import CarveCore
@testable import CarveLinux

/// A btrfs UUID's text is what Foundation's UUID spells for the same 16 bytes, lower case.
@Suite struct UUIDTextTests {
    @Test func sixteenBytesAreSpelledAsFoundationSpellsThem() throws {
        var rng = SystemRandomNumberGenerator()
        var samples = (0..<500).map { _ in (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        samples += [Array(repeating: 0xff, count: 16), [1] + Array(repeating: 0, count: 15), (0..<16).map { $0 * 17 }]
        for bytes in samples {
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            // Read from an odd offset too: the bytes come from a kernel buffer at any position.
            let text = try #require(bytes.withUnsafeBytes { uuidText($0) })
            let shifted = try #require(
                ([0x55] + bytes + [0x55]).withUnsafeBytes { uuidText(UnsafeRawBufferPointer(rebasing: $0[1...])) })
            #expect(text == uuid.uuidString.lowercased() && shifted == text, "\(bytes)")
        }
    }

    @Test func allZeroesAndShortBuffersHaveNoText() {
        #expect(Array(repeating: UInt8(0), count: 16).withUnsafeBytes { uuidText($0) } == nil)
        #expect(Array(repeating: UInt8(7), count: 15).withUnsafeBytes { uuidText($0) } == nil)
    }

    /// A subvolume's UUID read from its 16 bytes is the one read from its text: equal,
    /// hashed alike, spelled alike, and its words are the UUID tree's key for it.
    @Test func aUUIDFromBytesIsTheOneFromItsText() throws {
        var rng = SystemRandomNumberGenerator()
        var samples = (0..<300).map { _ in (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        samples += [
            Array(repeating: 0xff, count: 16), [1] + Array(repeating: 0, count: 15),
            Array(repeating: 0, count: 15) + [1],
        ]
        for bytes in samples {
            let read = try #require(bytes.withUnsafeBytes { SubvolumeUUID(bytes: $0) })
            let text = try #require(bytes.withUnsafeBytes { uuidText($0) })
            let parsed = SubvolumeUUID(text)
            #expect(read == parsed && read.hashValue == parsed.hashValue, "\(bytes)")
            #expect(read.text == text && parsed.text == text && "\(read)" == text)
            #expect(read.withText { String(decoding: $0, as: UTF8.self) } == text)
            let key = try #require(UUIDTree.key(text))
            #expect(read.words.map { [$0.0, $0.1] } == [key.objectid, key.offset], "\(bytes)")
        }
        #expect(Array(repeating: UInt8(0), count: 16).withUnsafeBytes { SubvolumeUUID(bytes: $0) } == nil)
    }
}
