/// JSON rendered straight into UTF-8 bytes, for listings of thousands of objects:
/// the same text as `rendered(level:)` (a test compares them), without growing a
/// String value by value.
extension JSONValue {
    func append(to out: inout [UInt8], level: Int, indent: Int = 3) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .uint(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): JSONValue.quote(value, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out.append(contentsOf: "[]".utf8); return }
            out.append(contentsOf: "[\n".utf8)
            for (index, item) in items.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (level + 1) * indent))
                item.append(to: &out, level: level + 1, indent: indent)
                out.append(contentsOf: (index == items.count - 1 ? "\n" : ",\n").utf8)
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indent))
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { out.append(contentsOf: "{}".utf8); return }
            out.append(contentsOf: "{\n".utf8)
            for (index, (key, value)) in members.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (level + 1) * indent))
                JSONValue.quote(key, into: &out)
                out.append(contentsOf: ": ".utf8)
                value.append(to: &out, level: level + 1, indent: indent)
                out.append(contentsOf: (index == members.count - 1 ? "\n" : ",\n").utf8)
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indent))
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes as `quote(_:into:)` does: only ASCII needs escaping, so every other
    /// byte of the UTF-8 text is copied as it is.
    static func quote(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5c || $0 == 0x7f }) {
            out.append(contentsOf: string.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: "\\\"".utf8)
            case 0x5c: out.append(contentsOf: "\\\\".utf8)
            case 0x0a: out.append(contentsOf: "\\n".utf8)
            case 0x0d: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20, 0x7f:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xf)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
