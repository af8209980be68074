/// A name made safe for one table cell: control characters, DEL, the backslash
/// itself and every byte that is not UTF-8 (carried by `ByteText`) are written as
/// `\xHH`, as lsblk does, so every name stays on one line, two different names never
/// look the same, and the escaping can be undone. JSON output carries the exact
/// name instead.
public func escapedForTable(_ text: String) -> String {
    // In UTF-8 these bytes are always the characters themselves, and every carried
    // byte starts with 0xF4: most names are returned untouched.
    // Looked for in the string's own bytes: the UTF8View's generic search cost more per
    // path than the rest of a table row.
    // Eight bytes at a time: a table of ten thousand rows looks through three paths a row.
    var bytes = text
    guard bytes.withUTF8({ mayNeedTableEscape(UnsafeRawBufferPointer($0)) }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        let byte: UInt8? =
            if scalar.value < 0x20 || scalar.value == 0x7f || scalar == "\\" {
                UInt8(scalar.value)
            } else {
                ByteText.carriedByte(scalar)
            }
        guard let byte else { out.unicodeScalars.append(scalar); continue }
        let hex: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        out += "\\x"
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xf)])
    }
    return out
}

private func mayNeedTableEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
    ByteWords.any(
        in: bytes,
        { word in
            ByteWords.bytes(word, below: 0x20) | ByteWords.bytes(word, equalTo: 0x7f)
                | ByteWords.bytes(word, equalTo: UInt8(ascii: "\\")) | ByteWords.bytes(word, equalTo: 0xF4)
        }, tail: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") || $0 == 0xF4 })
}
