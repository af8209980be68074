/// A subvolume's UUID. A btrfs UUID is kept as its sixteen bytes, two words: as text it
/// was a string of 36 characters made and freed for each of ten thousand subvolumes a
/// listing reads, and hashed a character at a time where backup chains are matched.
/// Any other text (a ZFS guid, an LVM uuid, a test's "u1") is kept as it is.
///
/// One UUID has one form: text in the 8-4-4-4-12 lowercase form carve prints is always
/// read into words, so two equal texts are two equal values however they were made.
public struct SubvolumeUUID: Sendable, Hashable {
    @usableFromInline
    enum Storage: Sendable, Hashable {
        /// Bytes 0–7 and 8–15, each read as a little-endian word (btrfs's UUID tree keys).
        case words(UInt64, UInt64)
        case text(String)
    }

    @usableFromInline
    let storage: Storage

    /// The UUID in the first 16 bytes of `raw`, as btrfs stores it; nil when they are
    /// all zero (btrfs's "none") or fewer than 16.
    @inlinable
    public init?(bytes raw: UnsafeRawBufferPointer) {
        guard raw.count >= 16 else { return nil }
        let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard low != 0 || high != 0 else { return nil }
        storage = .words(low, high)
    }

    public init(_ text: String) {
        var copy = text
        let words = copy.withUTF8 { Self.canonicalWords(UnsafeRawBufferPointer($0)) }
        storage = words.map { .words($0.0, $0.1) } ?? .text(text)
    }

    /// The two words of a UUID with sixteen bytes (as a btrfs UUID tree key has them);
    /// nil for other text.
    public var words: (UInt64, UInt64)? {
        if case .words(let first, let second) = storage { return (first, second) }
        return nil
    }

    /// True for the empty text a subvolume without a UUID (an old kernel's) is given.
    public var isEmpty: Bool { storage == .text("") }

    /// The text as carve prints it.
    public var text: String {
        switch storage {
        case .text(let text): return text
        case .words:
            return String(unsafeUninitializedCapacity: 36) { buffer in
                withText { buffer.initialize(fromContentsOf: $0.bindMemory(to: UInt8.self)) }
            }
        }
    }

    /// The text's UTF-8 bytes, lent to `body`: sixteen bytes are written out on the
    /// stack, with no string made for them.
    @inlinable
    public func withText<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch storage {
        case .text(var text): return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .words(let first, let second):
            var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
            return try withUnsafeMutableBytes(of: &digits) { buffer in
                Self.format(first, second, into: buffer.baseAddress!)
                return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<36]))
            }
        }
    }

    /// Writes the 36 characters of the text of `words` (as `words` gives them) at `out`:
    /// four bytes' eight digits at a time, in a word (a byte at a time from a table, a
    /// listing's JSON spent more on its two UUIDs a snapshot than on copying them as text).
    public static func format(_ first: UInt64, _ second: UInt64, into out: UnsafeMutableRawPointer) {
        let (a, b) = (hexDigits(UInt32(truncatingIfNeeded: first)), hexDigits(UInt32(truncatingIfNeeded: first >> 32)))
        let (c, d) = (
            hexDigits(UInt32(truncatingIfNeeded: second)), hexDigits(UInt32(truncatingIfNeeded: second >> 32))
        )
        let dash = UInt8(ascii: "-")
        out.storeBytes(of: a.littleEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: b).littleEndian, toByteOffset: 9, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: b >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: c).littleEndian, toByteOffset: 19, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: c >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        out.storeBytes(of: d.littleEndian, toByteOffset: 28, as: UInt64.self)
    }

    /// The eight lowercase hex digits of four bytes (`bytes`' low byte first), the first
    /// digit in the low byte: each byte spread to two, its nibbles split, and each
    /// nibble n made '0' + n, or 'a' + n - 10 past 9, all eight at once.
    @inline(__always)
    static func hexDigits(_ bytes: UInt32) -> UInt64 {
        var spread = UInt64(bytes)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (spread >> 4) & 0x000F_000F_000F_000F | (spread & 0x000F_000F_000F_000F) << 8
        let pastNine = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ pastNine &* 0x27
    }

    /// The words of text in the 8-4-4-4-12 lowercase form; nil for any other text, which
    /// is kept as text so that it prints as it was given.
    static func canonicalWords(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for index in 0..<16 {
            // Byte i's digits start at 2i, after a dash before bytes 4, 6, 8 and 10.
            let place =
                2 * index + (index >= 4 ? 1 : 0) + (index >= 6 ? 1 : 0) + (index >= 8 ? 1 : 0)
                + (index >= 10 ? 1 : 0)
            guard let high = lowercaseHex(bytes[place]), let low = lowercaseHex(bytes[place + 1]) else { return nil }
            let byte = UInt64(high << 4 | low) << UInt64(index % 8 * 8)
            if index < 8 { words.0 |= byte } else { words.1 |= byte }
        }
        // All zero is btrfs's "none": as text it stays text, never a UUID's words.
        return words.0 == 0 && words.1 == 0 ? nil : words
    }

    private static func lowercaseHex(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension SubvolumeUUID: CustomStringConvertible, LosslessStringConvertible, ExpressibleByStringInterpolation {
    public var description: String { text }
    public init(stringLiteral text: String) { self.init(text) }
}

extension SubvolumeUUID: Codable {
    /// As its text, as the JSON and caches that hold one always had it.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
