import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// A btrfs UUID (16 bytes) as the usual 8-4-4-4-12 lowercase text; nil when all zero.
func uuidString<T>(_ bytes: T) -> String? {
    withUnsafeBytes(of: bytes) { uuidText($0) }
}

/// The first 16 bytes of `raw` as UUID text; nil when all zero or too short.
func uuidText(_ raw: UnsafeRawBufferPointer) -> String? {
    guard raw.count >= 16 else { return nil }
    let (high, low) = (
        raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    )
    guard high != 0 || low != 0 else { return nil }
    let digits: StaticString = "0123456789abcdef"
    // Byte by byte from the buffer, no slice or enumeration: ten thousand snapshots have a UUID each.
    return String(unsafeUninitializedCapacity: 36) { text in
        var position = 0
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text[position] = UInt8(ascii: "-"); position += 1
            }
            let byte = raw[index]
            text[position] = digits.utf8Start[Int(byte >> 4)]
            text[position + 1] = digits.utf8Start[Int(byte & 0xf)]
            position += 2
        }
        return position
    }
}
