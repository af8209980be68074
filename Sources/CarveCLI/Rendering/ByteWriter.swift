// Scripts/fuzz compiles this file into one module together with CarveCore.
#if canImport(CarveCore)
import CarveCore
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A growing byte buffer for long JSON listings: an append is a capacity check and a
/// memcpy, where Array's append(contentsOf:) cost several times that for each of the
/// thousands of short pieces a listing is made of.
final class ByteWriter {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Set when a quoted string held bytes that are not UTF-8 (written as U+FFFD):
    /// the caller then rewrites that object with its `KEY_base64` members.
    var replacedCarriedBytes = false

    init(capacity: Int = 1 << 17) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        memcpy(base + count, source, bytes.count)
        count += bytes.count
    }

    func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// `string` as a JSON string, escaped exactly as `JSONValue.quote` escapes it.
    func appendQuoted(_ string: String) {
        let copied = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !Self.mayNeedEscape(UnsafeRawBufferPointer(bytes)) else { return false }
            reserve(bytes.count + 2)
            base[count] = UInt8(ascii: "\"")
            if let source = bytes.baseAddress { memcpy(base + count + 1, source, bytes.count) }
            base[count + 1 + bytes.count] = UInt8(ascii: "\"")
            count += bytes.count + 2
            return true
        }
        guard copied != true else { return }
        if ByteText.carriesBytes(string) { replacedCarriedBytes = true }
        var escaped: [UInt8] = []
        JSONValue.quote(string, into: &escaped)
        append(escaped)
    }

    /// False when no byte needs escaping, tested eight bytes at a time (the classic
    /// SWAR tests for a zero byte and a byte below a bound); true when one may.
    static func mayNeedEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // Below 0x20, or equal to '"', '\\', DEL or 0xF4 (the lead byte of a byte carried
            // by ByteText); other bytes >= 0x80 pass the first test's mask.
            if (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x22))
                || hasZero(word ^ (ones &* 0x5c)) || hasZero(word ^ (ones &* 0x7f))
                || hasZero(word ^ (ones &* 0xf4))
            {
                return true
            }
            offset += 8
        }
        for byte in bytes[offset...] where JSONValue.needsEscape(byte) { return true }
        return false
    }

    /// Drops what was written after the first `count` bytes.
    func truncate(to count: Int) {
        precondition(count <= self.count)
        self.count = count
    }

    func appendDecimal(_ value: UInt64) {
        reserve(20)
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        rest = value
        for position in (count..<count + digits).reversed() {
            base[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
    }

    /// The bytes so far as text (the caller wrote valid UTF-8), and an empty buffer.
    func takeText() -> String {
        let text = String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        count = 0
        return text
    }

    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }
}
