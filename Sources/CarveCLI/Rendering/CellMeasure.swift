import CarveCore

/// What a table's layout needs of one cell, found in one pass over its bytes: the
/// columns it takes (`displayWidth`) and whether it holds a line break. Measured once:
/// ten thousand rows were searched for line breaks and counted twice each, a byte at a time.
struct CellMeasure {
    var width: Int
    var breaksLine: Bool

    init(_ text: String) { self.init(text) { _ in } }

    /// The same, the cell's bytes lent to `use` in the one pass (a table copies them in).
    init(_ text: String, lendingBytesTo use: (UnsafeRawBufferPointer) -> Void) {
        var text = text
        let found = text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            use(bytes)
            return Self.scan(bytes)
        }
        // Beyond ASCII (or "\r\n", one character of two bytes) the characters are counted.
        width = found.plainASCII ? text.utf8.count : text.count
        breaksLine = found.lineBreak
    }

    /// Whether the bytes are ASCII without "\r", and whether they hold "\n": eight bytes at
    /// a time (`ByteWords`).
    static func scan(_ bytes: UnsafeRawBufferPointer) -> (plainASCII: Bool, lineBreak: Bool) {
        var plain = true, lineBreak = false
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 || ByteWords.bytes(word, equalTo: 0x0D) != 0 { plain = false }
            if ByteWords.bytes(word, equalTo: 0x0A) != 0 { lineBreak = true }
            offset += 8
        }
        for byte in bytes[offset...] {
            if byte >= 0x80 || byte == 0x0D { plain = false }
            if byte == 0x0A { lineBreak = true }
        }
        return (plain, lineBreak)
    }
}
