/// The `\xHH` escapes udev writes into `*_ENC` properties (ID_FS_LABEL_ENC,
/// ID_FS_UUID_ENC, ID_MODEL_ENC): every byte that is not safe in a udev value
/// (space, `/`, `\`, `"`, non-ASCII...) is written as backslash, `x`, two hex digits.
public enum UdevEncoding {
    /// Decodes the escapes back to the original bytes. A backslash that does not
    /// start a complete `\xHH` escape is kept as it is, as libblkid's and
    /// util-linux's decoders do. Bytes that are not UTF-8 are carried (`ByteText`).
    public static func decode(_ value: String) -> String {
        guard value.utf8.contains(UInt8(ascii: "\\")) else { return value }
        let source = Array(value.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count,
                source[index + 1] == UInt8(ascii: "x"),
                let high = hexValue(source[index + 2]), let low = hexValue(source[index + 3])
            {
                bytes.append(high << 4 | low)
                index += 4
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return ByteText.decode(bytes)
    }

    /// udev's encoding of a value (what `*_ENC` keys hold): every byte but ASCII letters,
    /// digits and `#+-.:=@_` written as `\xHH`, so the value is one safe word.
    public static func encode(_ value: String) -> String {
        var out = ""
        for byte in ByteText.bytes(of: value) {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar))
                    || "#+-.:=@_".unicodeScalars.contains(scalar))
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return out
    }

    /// A value kept on one line of a `KEY=value` file: newlines and NULs encoded.
    public static func oneLine(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": out += "\\x0a"
            case "\r": out += "\\x0d"
            case "\0": out += "\\x00"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
