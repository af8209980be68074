// Scripts/fuzz compiles this file into one module together with CarveCore.
#if canImport(CarveCore)
import CarveCore
#endif

/// Names whose bytes are not UTF-8 in JSON: the string itself shows U+FFFD for each
/// such byte (JSON text must be UTF-8), and the member is followed by `KEY_base64`
/// with the exact bytes, which a script decodes to name the file. For a list of
/// strings, `KEY_base64` is a list of the same length, null where a string is UTF-8.
extension JSONValue {
    static func withExactBytes(_ members: [(String, JSONValue)]) -> [(String, JSONValue)] {
        guard members.contains(where: { $0.1.carriesBytes }) else { return members }
        var out: [(String, JSONValue)] = []
        for (key, value) in members {
            out.append((key, value))
            switch value {
            case .string(let text) where ByteText.carriesBytes(text):
                out.append((key + "_base64", .string(ByteText.base64(of: text))))
            case .array(let items) where value.carriesBytes:
                out.append(
                    (
                        key + "_base64",
                        .array(
                            items.map { item in
                                guard case .string(let text) = item, ByteText.carriesBytes(text) else { return .null }
                                return .string(ByteText.base64(of: text))
                            })
                    ))
            default: break
            }
        }
        return out
    }

    /// True for a string, or a list with a string, that holds a byte that is not UTF-8.
    var carriesBytes: Bool {
        switch self {
        case .string(let text): ByteText.carriesBytes(text)
        case .array(let items):
            items.contains { if case .string(let text) = $0 { ByteText.carriesBytes(text) } else { false } }
        default: false
        }
    }
}
