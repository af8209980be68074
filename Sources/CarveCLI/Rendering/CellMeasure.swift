/// What a table's layout needs of one cell, found in one pass over its bytes: the
/// columns it takes (`displayWidth`) and whether it holds a line break. Measured once:
/// ten thousand rows were searched for line breaks and counted twice each, a byte at a time.
struct CellMeasure {
    var width: Int
    var breaksLine: Bool

    init(_ text: String) {
        var text = text
        let found = text.withUTF8 { Self.scan(UnsafeRawBufferPointer($0)) }
        // Beyond ASCII (or "\r\n", one character of two bytes) the characters are counted.
        width = found.plainASCII ? text.utf8.count : text.count
        breaksLine = found.lineBreak
    }

    /// Whether the bytes are ASCII without "\r", and whether they hold "\n": eight bytes at
    /// a time (the classic test for a zero byte, on the word xor'ed with each byte sought).
    static func scan(_ bytes: UnsafeRawBufferPointer) -> (plainASCII: Bool, lineBreak: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var plain = true, lineBreak = false
        func look(_ word: UInt64) {
            if word & highs != 0 || hasZeroByte(word ^ (ones &* 0x0D)) { plain = false }
            if hasZeroByte(word ^ (ones &* 0x0A)) { lineBreak = true }
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            look(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        for byte in bytes[offset...] {
            if byte >= 0x80 || byte == 0x0D { plain = false }
            if byte == 0x0A { lineBreak = true }
        }
        return (plain, lineBreak)
    }
}
