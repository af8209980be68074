// Scripts/fuzz compiles this file into one module together with CarveCore.
#if canImport(CarveCore)
import CarveCore
#endif

/// JSON rendered straight into UTF-8 bytes, for listings of thousands of objects:
/// the same text as `rendered(level:)` (a test compares them), without growing a
/// String value by value.
extension JSONValue {
    func append(to out: inout [UInt8], level: Int, indent: Int = 3) {
        switch self {
        case .null: out.appendStatic("null")
        case .bool(let value): out.appendStatic(value ? "true" : "false")
        case .int(let value):
            if value < 0 { out.append(UInt8(ascii: "-")) }
            JSONValue.appendDecimal(value.magnitude, to: &out)
        case .uint(let value): JSONValue.appendDecimal(value, to: &out)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): JSONValue.quote(value, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out.appendStatic("[]"); return }
            out.appendStatic("[\n")
            for (index, item) in items.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (level + 1) * indent))
                item.append(to: &out, level: level + 1, indent: indent)
                out.appendStatic(index == items.count - 1 ? "\n" : ",\n")
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indent))
            out.append(UInt8(ascii: "]"))
        case .object(let plainMembers):
            guard !plainMembers.isEmpty else { out.appendStatic("{}"); return }
            out.appendStatic("{\n")
            let members = JSONValue.withExactBytes(plainMembers)
            for (index, (key, value)) in members.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (level + 1) * indent))
                JSONValue.quote(key, into: &out)
                out.appendStatic(": ")
                value.append(to: &out, level: level + 1, indent: indent)
                out.appendStatic(index == members.count - 1 ? "\n" : ",\n")
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indent))
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes as `quote(_:into:)` does: only ASCII needs escaping, so every other
    /// byte of the UTF-8 text is copied as it is, except a carried byte (U+FFFD).
    static func quote(_ string: String, into out: inout [UInt8]) {
        if ByteText.carriesBytes(string) { return quote(ByteText.replacingCarriedBytes(string), into: &out) }
        out.append(UInt8(ascii: "\""))
        // Native strings hand out their bytes directly; most need no escaping at all.
        let copiedWhole = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copiedWhole != true {
            for byte in string.utf8 { appendEscaped(byte, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Also true for 0xF4, which starts every byte `ByteText` carries.
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5c || byte == 0x7f || byte == 0xF4
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 0x22: out.appendStatic("\\\"")
        case 0x5c: out.appendStatic("\\\\")
        case 0x0a: out.appendStatic("\\n")
        case 0x0d: out.appendStatic("\\r")
        case 0x09: out.appendStatic("\\t")
        case 0..<0x20, 0x7f:
            let hex: StaticString = "0123456789abcdef"
            out.appendStatic("\\u00")
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0xf)])
        default: out.append(byte)
        }
    }

    /// `value` in decimal, written without an intermediate String.
    static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}

extension [UInt8] {
    /// A literal's bytes: appending a String's UTF-8 view goes through the generic
    /// sequence path, ten times slower for the many short pieces of a listing.
    mutating func appendStatic(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// The keys of one object shape rendered once, so that thousands of objects of that
/// shape (a snapshot listing) cost only their values: each prefix then its value, then
/// the closing, print what `append` prints for `.object(zip(keys, values))`.
struct JSONObjectLayout {
    /// For each member: the separator before it, its indentation, quoted key and ": ".
    let prefixes: [[UInt8]]
    /// The end of the object: a newline, the indentation and "}".
    let closing: [UInt8]

    init(keys: [String], level: Int, indent: Int = 3) {
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: (level + 1) * indent)
        prefixes = keys.enumerated().map { index, key in
            var prefix = Array((index == 0 ? "{\n" : ",\n").utf8) + padding
            JSONValue.quote(key, into: &prefix)
            prefix += Array(": ".utf8)
            return prefix
        }
        closing =
            keys.isEmpty
            ? Array("{}".utf8)
            : Array("\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: level * indent) + [UInt8(ascii: "}")]
    }
}
