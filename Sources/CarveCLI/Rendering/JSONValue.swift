// Scripts/fuzz compiles this file into one module together with CarveCore.
#if canImport(CarveCore)
import CarveCore
#endif

/// JSON with object keys kept in the order they were written, so output reads
/// like lsblk's and diffs stay stable. Strings are emitted exactly. JSON text must
/// be UTF-8, so a byte that is not (carried by `ByteText`) is written as U+FFFD and
/// the member is followed by `KEY_base64` holding the exact bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

    /// An optional string, as null when absent.
    public static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// An optional byte count, as null when unknown.
    public static func uint(_ value: UInt64?) -> JSONValue { value.map(JSONValue.uint) ?? .null }
    public static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }

    /// Pretty-printed with `indent` spaces per level, as `lsblk -J` does (3 spaces).
    public func rendered(indent: Int = 3) -> String {
        var out = ""
        write(to: &out, level: 0, indent: indent)
        return out
    }

    /// Rendered as an element nested `level` deep (its first line unindented), so a long
    /// array can be written one element at a time.
    public func rendered(indent: Int = 3, level: Int) -> String {
        var out = ""
        write(to: &out, level: level, indent: indent)
        return out
    }

    private func write(to out: inout String, level: Int, indent: Int) {
        // Only containers indent: scalars (most values) skip building the padding.
        var pad: String { JSONValue.spaces((level + 1) * indent) }
        var closePad: String { JSONValue.spaces(level * indent) }
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .uint(let value): out += String(value)
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value): JSONValue.quote(value, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                item.write(to: &out, level: level + 1, indent: indent)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "]"
        case .object(let plainMembers):
            guard !plainMembers.isEmpty else { out += "{}"; return }
            out += "{\n"
            let members = JSONValue.withExactBytes(plainMembers)
            for (index, (key, value)) in members.enumerated() {
                out += pad
                JSONValue.quote(key, into: &out)
                out += ": "
                value.write(to: &out, level: level + 1, indent: indent)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "}"
        }
    }

    private static let paddings = (0..<32).map { String(repeating: " ", count: $0) }
    private static func spaces(_ count: Int) -> String {
        count < paddings.count ? paddings[count] : String(repeating: " ", count: count)
    }

    static func quote(_ string: String, into out: inout String) {
        // Most strings need no escaping: append them whole instead of scalar by scalar.
        if !string.utf8.contains(where: JSONValue.needsEscape) {
            out += "\""
            out += string
            out += "\""
            return
        }
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(ByteText.carriedByte(scalar) == nil ? scalar : "\u{FFFD}")
            }
        }
        out += "\""
    }
}
