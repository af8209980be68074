import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// A btrfs UUID (16 bytes) as the usual 8-4-4-4-12 lowercase text; nil when all zero.
func uuidString<T>(_ bytes: T) -> String? {
    withUnsafeBytes(of: bytes) { uuidText($0) }
}

/// Each byte's two lowercase hex digits, the first in the low byte (as they lie in memory).
private let hexPairs: [UInt16] = (0..<256).map { byte in
    let digits = Array("0123456789abcdef".utf8)
    return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xf]) << 8
}

/// The first 16 bytes of `raw` as UUID text; nil when all zero or too short.
func uuidText(_ raw: UnsafeRawBufferPointer) -> String? {
    guard raw.count >= 16 else { return nil }
    let (high, low) = (
        raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    )
    guard high != 0 || low != 0 else { return nil }
    // Two digits a byte from a table, stored as one 16-bit word: ten thousand
    // snapshots have two or three UUIDs each.
    return hexPairs.withUnsafeBufferPointer { pairs in
        String(unsafeUninitializedCapacity: 36) { text in
            let out = UnsafeMutableRawPointer(text.baseAddress!)
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                    position += 1
                }
                out.storeBytes(of: pairs[Int(raw[index])].littleEndian, toByteOffset: position, as: UInt16.self)
                position += 2
            }
            return position
        }
    }
}

/// UUID texts by their 16 bytes, each made once.
struct UUIDTexts {
    private struct Key: Hashable { var high: UInt64; var low: UInt64 }
    private var known: [Key: String] = [:]
    /// The last one asked for: snapshots of one subvolume come one after another, and
    /// comparing two words costs less than hashing them.
    private var last: (key: Key, text: String)?

    /// The text of the first 16 bytes of `raw`; nil when they are all zero.
    mutating func text(of raw: UnsafeRawBufferPointer) -> String? {
        let key = Key(
            high: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            low: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard key.high != 0 || key.low != 0 else { return nil }
        if let last, last.key == key { return last.text }
        let text: String
        if let seen = known[key] {
            text = seen
        } else {
            guard let made = uuidText(raw) else { return nil }
            text = made
            known[key] = text
        }
        last = (key, text)
        return text
    }
}
