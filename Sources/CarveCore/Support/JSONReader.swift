/// A JSON document read from bytes (RFC 8259): what timeshift's info.json and
/// LVM's `--reportformat json` are read with. Strict: one value, nothing after
/// it but white space, strings valid UTF-8, nesting at most `maximumDepth` deep.
public indirect enum JSONDocument: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text as written, so that 64-bit integers are not rounded through Double.
    case number(String)
    case string(String)
    case array([JSONDocument])
    /// Members in document order; a repeated key is kept as written (`[key]` gives the last).
    case object([(String, JSONDocument)])

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let reason: String
        public let offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    public static let maximumDepth = 64

    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONDocument {
        var reader = JSONByteReader(bytes: Array(bytes))
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.atEnd else { throw reader.failure("text after the JSON value") }
        return value
    }

    public subscript(key: String) -> JSONDocument? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var array: [JSONDocument]? { if case .array(let items) = self { items } else { nil } }
    public var number: Double? { if case .number(let text) = self { Double(text) } else { nil } }
    public var isObject: Bool { if case .object = self { true } else { false } }

    public static func == (a: JSONDocument, b: JSONDocument) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let text), .string(let text): hasher.combine(text)
        case .array(let items): hasher.combine(items)
        case .object(let members): for (key, value) in members { hasher.combine(key); hasher.combine(value) }
        }
    }
}

private struct JSONByteReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    func failure(_ reason: String) -> JSONDocument.Failure { JSONDocument.Failure(reason: reason, offset: index) }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func literal(_ word: String, _ value: JSONDocument) throws(JSONDocument.Failure) -> JSONDocument {
        for byte in word.utf8 where !take(byte) { throw failure("invalid literal") }
        return value
    }

    mutating func value(depth: Int) throws(JSONDocument.Failure) -> JSONDocument {
        guard depth < JSONDocument.maximumDepth else {
            throw failure("nested deeper than \(JSONDocument.maximumDepth)")
        }
        skipSpace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONDocument.Failure) -> JSONDocument {
        index += 1
        var members: [(String, JSONDocument)] = []
        skipSpace()
        if take(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipSpace()
            if !members.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                throw failure("trailing comma")
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a member name")
            }
            let key = try string()
            skipSpace()
            guard take(UInt8(ascii: ":")) else { throw failure("expected ':'") }
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw failure("expected ',' or '}'") }
        return .object(members)
    }

    mutating func array(depth: Int) throws(JSONDocument.Failure) -> JSONDocument {
        index += 1
        var items: [JSONDocument] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return .array(items) }
        repeat {
            skipSpace()
            if !items.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                throw failure("trailing comma")
            }
            items.append(try value(depth: depth + 1))
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw failure("expected ',' or ']'") }
        return .array(items)
    }

    mutating func number() throws(JSONDocument.Failure) -> String {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if !take(UInt8(ascii: "0")) {
            guard digits() > 0 else { throw failure("invalid number") }
        }
        if take(UInt8(ascii: ".")), digits() == 0 { throw failure("invalid number") }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() > 0 else { throw failure("invalid number") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    mutating func string() throws(JSONDocument.Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) throws(JSONDocument.Failure) {
            guard let run = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw failure("string is not UTF-8")
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(index)
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            guard byte == UInt8(ascii: "\\") else { index += 1; continue }
            try flush(index)
            index += 1
            guard index < bytes.count else { break }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
            default: throw failure("invalid escape")
            }
            runStart = index
        }
        throw failure("unterminated string")
    }

    /// After `\u`: four hex digits, a surrogate pair as two escapes.
    mutating func unicodeEscape() throws(JSONDocument.Failure) -> Unicode.Scalar {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw failure("unpaired surrogate") }
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second) else { throw failure("unpaired surrogate") }
            return Unicode.Scalar(0x10000 + (first - 0xD800) << 10 + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("unpaired surrogate") }
        return scalar
    }

    mutating func hex4() throws(JSONDocument.Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}
