/// File names, mount points and labels are byte strings; Linux does not promise
/// they are UTF-8. carve keeps them as `String` everywhere (globs, sorting, messages
/// need text) but loses no byte: each byte that is not part of valid UTF-8 becomes
/// one scalar of the private-use range U+10FF80...U+10FFFF (byte 0xHH is U+10FFHH),
/// and every system call gets the original bytes back through `withCString`.
///
/// The mapping is one-to-one: a name that really holds one of those 256 scalars
/// has that scalar's four UTF-8 bytes carried the same way, byte by byte, so
/// `bytes(of: decode(b)) == b` for every byte string b (a property test checks it).
/// Tables show a carried byte as `\xHH`; JSON shows U+FFFD and adds the exact bytes
/// in base64, because JSON text must be UTF-8.
public enum ByteText {
    static let base: UInt32 = 0x10FF00
    static let firstCarried: UInt32 = 0x10FF80

    /// The text for `bytes`. Valid UTF-8 without the reserved scalars (every name
    /// in practice) is decoded as it is; anything else takes the byte-by-byte path.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let decoded = bytes.withContiguousStorageIfAvailable(decodedIfPlain), let text = decoded { return text }
        return decodedByteByByte(Array(bytes))
    }

    /// The same for a buffer, without generic dispatch: the listing decodes every
    /// subvolume name from a kernel buffer.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        decodedIfPlain(bytes.assumingMemoryBound(to: UInt8.self)) ?? decodedByteByByte(Array(bytes))
    }

    private static func decodedByteByByte(_ source: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < source.count {
            let length = validSequenceLength(source, at: index)
            guard length > 0 else {
                scalars.append(carried(source[index]))
                index += 1
                continue
            }
            let sequence = source[index..<index + length]
            var decoder = Unicode.UTF8()
            var iterator = sequence.makeIterator()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { preconditionFailure("validated") }
            if scalar.value >= firstCarried {
                for byte in sequence { scalars.append(carried(byte)) }
            } else {
                scalars.append(scalar)
            }
            index += length
        }
        return String(scalars)
    }

    /// The text of a NUL-terminated C string, such as a name a C library hands back.
    public static func decode(cString: UnsafePointer<CChar>) -> String {
        var length = 0
        while cString[length] != 0 { length += 1 }
        return decode(UnsafeRawBufferPointer(start: cString, count: length))
    }

    /// `bytes` as text when they are valid UTF-8 without a reserved scalar, else nil.
    /// The listing decodes every subvolume name here, so the usual ASCII name costs
    /// one pass eight bytes at a time and the stdlib's specialised decoder.
    private static func decodedIfPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let raw = UnsafeRawBufferPointer(bytes)
        if isASCII(raw) { return String(decoding: bytes, as: UTF8.self) }
        // All reserved scalars start with 0xF4.
        guard !containsLeadByte(raw) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding repairs invalid input with U+FFFD: only valid input comes back byte for byte.
        let unrepaired =
            text.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? text.utf8.elementsEqual(bytes)
        return unrepaired ? text : nil
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return false
            }
            offset += 8
        }
        return !bytes[offset...].contains { $0 >= 0x80 }
    }

    /// The original bytes of `text`.
    public static func bytes(of text: String) -> [UInt8] {
        guard carriesBytes(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let byte = carriedByte(scalar) { out.append(byte) } else { out.append(contentsOf: UTF8.encode(scalar)!) }
        }
        return out
    }

    /// True when `text` holds a byte that is not UTF-8, so its UTF-8 is not its bytes.
    public static func carriesBytes(_ text: String) -> Bool {
        // Every listed name and every output chunk passes here: look for the lead
        // byte eight bytes at a time before looking at scalars.
        let lead =
            text.utf8.withContiguousStorageIfAvailable { containsLeadByte(UnsafeRawBufferPointer($0)) }
            ?? text.utf8.contains(0xF4)
        return lead && text.unicodeScalars.contains { $0.value >= firstCarried }
    }

    /// True when a byte is 0xF4, the lead byte of every carried scalar.
    static func containsLeadByte(_ bytes: UnsafeRawBufferPointer) -> Bool {
        ByteWords.any(in: bytes, { ByteWords.bytes($0, equalTo: 0xF4) }, tail: { $0 == 0xF4 })
    }

    /// The byte a reserved scalar stands for, or nil for an ordinary scalar.
    public static func carriedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= firstCarried ? UInt8(truncatingIfNeeded: scalar.value - base) : nil
    }

    /// Calls `body` with the original bytes of `text` as a C string: the only way a
    /// carve path reaches a system call.
    public static func withCString<Result>(
        _ text: String, _ body: (UnsafePointer<CChar>) throws -> Result
    ) rethrows -> Result {
        guard carriesBytes(text) else { return try text.withCString(body) }
        let terminated = bytes(of: text).map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// `text` as valid UTF-8 for JSON and messages: each carried byte becomes U+FFFD.
    public static func replacingCarriedBytes(_ text: String) -> String {
        guard carriesBytes(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(carriedByte(scalar) == nil ? scalar : "\u{FFFD}") }
        return String(scalars)
    }

    /// The exact bytes of `text` in base64 (RFC 4648, padded), for JSON.
    public static func base64(of text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bytes = bytes(of: text)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(
                    position <= chunk.count ? alphabet[Int(value >> (18 - 6 * position) & 0x3f)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with each carried byte written as `\xHH`, for messages.
    public static func escapingCarriedBytes(_ text: String) -> String {
        guard carriesBytes(text) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard let byte = carriedByte(scalar) else { out.unicodeScalars.append(scalar); continue }
            out += "\\x" + String(byte, radix: 16)
        }
        return out
    }

    private static func carried(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(base + UInt32(byte))!
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7),
    /// or 0 when the byte there does not start one.
    private static func validSequenceLength(_ source: [UInt8], at index: Int) -> Int {
        let lead = source[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard index + length <= source.count, secondRange.contains(source[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(source[index + offset]) { return 0 }
        return length
    }
}
