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

    /// Inlined, and a short piece copied without calling memcpy: a listing is a
    /// third of a million pieces (a key's prefix, `null`, a short value), and the call
    /// and memcpy's set-up cost more than the copy.
    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) { append(bytes, wide: false) }

    /// A member's prefix or a string's bytes, which are most often 17 to 32 bytes (a
    /// separator, indentation and key; a path): those copied as four loads and stores
    /// that overlap in the middle, not by calling memcpy. Kept apart from `append`,
    /// which the table's cells (mostly shorter) call, where the larger copy cost more.
    @inline(__always)
    func appendWide(_ bytes: UnsafeRawBufferPointer) { append(bytes, wide: true) }

    @inline(__always)
    private func append(_ bytes: UnsafeRawBufferPointer, wide: Bool) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        if wide {
            Self.copyWide(source, to: base + count, count: bytes.count)
        } else {
            Self.copy(source, to: base + count, count: bytes.count)
        }
        count += bytes.count
    }

    @inline(__always)
    private static func copyWide(_ source: UnsafeRawPointer, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        guard count > 16 && count <= 32 else { return copy(source, to: target, count: count) }
        let raw = UnsafeMutableRawPointer(target)
        let head0 = source.loadUnaligned(as: UInt64.self)
        let head1 = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let tail0 = source.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
        let tail1 = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        raw.storeBytes(of: head0, as: UInt64.self)
        raw.storeBytes(of: head1, toByteOffset: 8, as: UInt64.self)
        raw.storeBytes(of: tail0, toByteOffset: count - 16, as: UInt64.self)
        raw.storeBytes(of: tail1, toByteOffset: count - 8, as: UInt64.self)
    }

    /// Up to 16 bytes as two loads and two stores that overlap in the middle.
    @inline(__always)
    private static func copy(_ source: UnsafeRawPointer, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let target = UnsafeMutableRawPointer(target)
        switch count {
        case 8...16:
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        case 4..<8:
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        case 1..<4:
            for offset in 0..<count {
                target.storeBytes(
                    of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
        default:
            memcpy(target, source, count)
        }
    }

    func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    @inline(__always)
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
        // A native string lends its bytes in place (no copy of the string to make it
        // native, as withUTF8 takes); most need no escaping.
        let copied =
            string.utf8.withContiguousStorageIfAvailable { bytes in appendQuotedIfPlain(UnsafeRawBufferPointer(bytes)) }
            ?? {
                var text = string
                return text.withUTF8 { appendQuotedIfPlain(UnsafeRawBufferPointer($0)) }
            }()
        guard !copied else { return }
        if ByteText.carriesBytes(string) { replacedCarriedBytes = true }
        var escaped: [UInt8] = []
        JSONValue.quote(string, into: &escaped)
        append(escaped)
    }

    /// `"bytes"` when no byte needs escaping (true), else nothing written (false).
    private func appendQuotedIfPlain(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard !Self.mayNeedEscape(raw) else { return false }
        reserve(raw.count + 2)
        base[count] = UInt8(ascii: "\"")
        if let source = raw.baseAddress { Self.copyWide(source, to: base + count + 1, count: raw.count) }
        base[count + 1 + raw.count] = UInt8(ascii: "\"")
        count += raw.count + 2
        return true
    }

    /// False when no byte needs escaping, tested eight bytes at a time (the classic
    /// SWAR tests for a zero byte and a byte below a bound, their bits or'ed into one
    /// test); true when one may. The last word overlaps the one before it rather than
    /// taking the tail byte by byte. (SIMD16 compares, written with Swift's SIMD
    /// types, were done a lane at a time under -Osize: thirteen times the cost.)
    static func mayNeedEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 8 else {
            for byte in bytes where JSONValue.needsEscape(byte) { return true }
            return false
        }
        var offset = 0
        while true {
            if mayNeedEscape(word: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
            if offset + 8 == bytes.count { return false }
            offset = min(offset + 8, bytes.count - 8)
        }
    }

    /// Below 0x20, or equal to '"', '\\', DEL or 0xF4 (the lead byte of a byte carried
    /// by ByteText); other bytes >= 0x80 pass the first test's mask.
    @inline(__always)
    private static func mayNeedEscape(word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x }
        let found =
            (word &- ones &* 0x20) & ~word | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5c))
            | zeroBytes(word ^ (ones &* 0x7f)) | zeroBytes(word ^ (ones &* 0xf4))
        return found & highs != 0
    }

    /// Writes at most `maximum` bytes in place through `body`, which returns how many it wrote.
    func appendInPlace(maximum: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        reserve(maximum)
        count += body(UnsafeMutableBufferPointer(start: base + count, count: maximum))
    }

    /// The bytes so far, lent to `body`.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Drops the spaces at the end, back to the first `start` bytes at most.
    func dropTrailingSpaces(downTo start: Int) {
        while count > start && base[count - 1] == UInt8(ascii: " ") { count -= 1 }
    }

    /// Drops what was written after the first `count` bytes.
    func truncate(to count: Int) {
        precondition(count <= self.count)
        self.count = count
    }

    /// `value` in decimal. Two digits at a time from a table: a listing writes three
    /// numbers a snapshot (sizes of ten digits among them), and a division per digit
    /// was a tenth of the writer's time.
    func appendDecimal(_ value: UInt64) {
        reserve(20)
        var end = count + value.decimalDigitCount
        count = end
        var rest = value
        let pairs = Self.digitPairs.utf8Start
        while rest >= 100 {
            // rest / 100 as a multiplication: under -Osize the division was a `div`.
            let quotient = (rest >> 2).multipliedFullWidth(by: 0x28F5_C28F_5C28_F5C3).high >> 2
            let pair = Int(rest &- quotient &* 100) * 2
            rest = quotient
            end -= 2
            base[end] = pairs[pair]
            base[end + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            base[end - 2] = pairs[Int(rest) * 2]
            base[end - 1] = pairs[Int(rest) * 2 + 1]
        } else {
            base[end - 1] = UInt8(ascii: "0") + UInt8(rest)
        }
    }

    /// "00", "01", … "99", one after the other.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// The bytes so far, and an empty buffer.
    func take(_ body: (UnsafeRawBufferPointer) -> Void) {
        body(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// The bytes so far as text (the caller wrote valid UTF-8), and an empty buffer.
    func takeText() -> String {
        let text = String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        count = 0
        return text
    }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    private func grow(_ extra: Int) {
        let grown = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }
}
