import Foundation
import Testing
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

    /// The memo of texts gives each UUID's own text, asked in runs (snapshots of one
    /// source), alternating, and back to one seen before, UUIDs alike in one half
    /// among them; zero is no UUID.
    @Test func rememberedTextsAreEachUUIDsOwn() throws {
        var rng = SystemRandomNumberGenerator()
        var uuids = (0..<6).map { _ in (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        // Alike in one half: a memo keyed by one word would take one for the other.
        uuids += [Array(uuids[0][..<8] + uuids[1][8...]), Array(uuids[2][..<8] + uuids[0][8...])]
        var order = uuids.flatMap { Array(repeating: $0, count: 3) } + uuids + uuids.reversed()
        order += (0..<200).map { _ in uuids.randomElement(using: &rng)! }
        var texts = UUIDTexts()
        for bytes in order {
            let remembered = bytes.withUnsafeBytes { texts.text(of: $0) }
            #expect(remembered == bytes.withUnsafeBytes { uuidText($0) }, "\(bytes)")
            #expect(Array(repeating: UInt8(0), count: 16).withUnsafeBytes { texts.text(of: $0) } == nil)
        }
    }
}
