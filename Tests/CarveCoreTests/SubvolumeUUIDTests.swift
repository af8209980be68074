import Foundation
import Testing
@testable import CarveCore

/// A subvolume's UUID has one form per text: the form carve prints is read into words,
/// any other text is kept as given, and both print, compare and encode as their text.
@Suite struct SubvolumeUUIDTests {
    @Test func theFormCarvePrintsIsReadIntoWords() throws {
        for _ in 0..<200 {
            let text = UUID().uuidString.lowercased()
            let uuid = SubvolumeUUID(text)
            #expect(uuid.words != nil, "\(text)")
            #expect(uuid.text == text && uuid.description == text)
            #expect(uuid.withText { String(decoding: $0, as: UTF8.self) } == text)
            #expect(uuid == SubvolumeUUID(stringLiteral: text) && uuid.hashValue == SubvolumeUUID(text).hashValue)
        }
    }

    /// Text that is not the lower-case 8-4-4-4-12 form stays text, printed as given:
    /// upper case, no dashes, a dash out of place, a digit that is not hex, one digit
    /// short or long, all zero (btrfs's "none"), ZFS's and LVM's ids, nothing at all.
    @Test func otherTextIsKeptAsItIs() {
        let valid = "5e16ed83-db7e-7640-afd9-ff5472d9f98f"
        let others = [
            valid.uppercased(), valid.replacingOccurrences(of: "-", with: ""), "5e16ed83d-b7e-7640-afd9-ff5472d9f98f",
            "5e16ed83-db7e-7640-afd9-ff5472d9f98g", String(valid.dropLast()), valid + "0",
            "00000000-0000-0000-0000-000000000000", "8213548306512765129", "Jx1bAf-kQ2e-xxxx", "", "u1",
            "5e16ed83-db7e-7640-afd9-ff5472d9f98\u{e9}",
        ]
        for text in others {
            let uuid = SubvolumeUUID(text)
            #expect(uuid.words == nil, "\(text)")
            #expect(uuid.text == text && uuid.withText { String(decoding: $0, as: UTF8.self) } == text)
            #expect(uuid != SubvolumeUUID(valid))
        }
        #expect(SubvolumeUUID("").isEmpty && !SubvolumeUUID(valid).isEmpty)
        #expect(SubvolumeUUID(valid.uppercased()) != SubvolumeUUID(valid), "text compares as text, as before")
    }

    @Test func bytesShortOrAllZeroAreNoUUID() {
        #expect([UInt8](repeating: 0, count: 16).withUnsafeBytes { SubvolumeUUID(bytes: $0) } == nil)
        #expect([UInt8](repeating: 9, count: 15).withUnsafeBytes { SubvolumeUUID(bytes: $0) } == nil)
        let bytes: [UInt8] = [
            0x5e, 0x16, 0xed, 0x83, 0xdb, 0x7e, 0x76, 0x40, 0xaf, 0xd9, 0xff, 0x54, 0x72, 0xd9, 0xf9, 0x8f,
        ]
        #expect(
            bytes.withUnsafeBytes { SubvolumeUUID(bytes: $0) } == SubvolumeUUID("5e16ed83-db7e-7640-afd9-ff5472d9f98f"))
    }

    /// Encoded as its text, as a `String` field was: JSON and caches read the same.
    @Test func itEncodesAsItsText() throws {
        let uuids: [SubvolumeUUID] = ["5e16ed83-db7e-7640-afd9-ff5472d9f98f", "u1", "8213548306512765129"]
        let encoded = try JSONEncoder().encode(uuids)
        let texts = try JSONEncoder().encode(uuids.map(\.text))
        #expect(encoded == texts)
        #expect(try JSONDecoder().decode([SubvolumeUUID].self, from: encoded) == uuids)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SubvolumeUUID].self, from: Data("[7]".utf8)) }
    }
}
