import CarveCore

/// lsblk's two formats for scripts, byte for byte as libsmartcols writes them:
/// `--raw` (cells separated by one space, never aligned) and `--pairs` (NAME="value").
/// Each escapes, as `\xHH`, every byte a shell loop would split on or misread.
public enum ScriptTable {
    public enum Format: Sendable { case raw, pairs }

    /// One line per row (and a header line for `raw` unless `headings` is false).
    public static func rendered<Row>(
        _ format: Format, columns: [Column<Row>], rows: [Row], bytes: Bool, headings: Bool
    ) -> String {
        var out: [UInt8] = []
        if format == .raw, headings, !rows.isEmpty {
            line(columns.map { ByteText.bytes(of: $0.name) }, into: &out) { cell, out in escapeRaw(cell, into: &out) }
        }
        for row in rows {
            let cells = columns.map { ByteText.bytes(of: $0.plain(row, bytes)) }
            switch format {
            case .raw:
                line(cells, into: &out) { cell, out in escapeRaw(cell, into: &out) }
            case .pairs:
                let named = zip(columns, cells).map { column, cell in (column.name, cell) }
                for (index, (name, cell)) in named.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: " ")) }
                    out += Array(name.utf8) + [UInt8(ascii: "="), UInt8(ascii: "\"")]
                    escapePair(cell, into: &out)
                    out.append(UInt8(ascii: "\""))
                }
                out.append(UInt8(ascii: "\n"))
            }
        }
        return ByteText.decode(out)
    }

    private static func line(_ cells: [[UInt8]], into out: inout [UInt8], escape: ([UInt8], inout [UInt8]) -> Void) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { out.append(UInt8(ascii: " ")) }
            escape(cell, &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// libsmartcols' fputs_nonblank: blanks, backslash and anything not printable ASCII.
    static func escapeRaw(_ cell: [UInt8], into out: inout [UInt8]) {
        for byte in cell {
            if byte == 0x20 || byte == 0x09 || byte == 0x5c || !isPrintableASCII(byte) {
                hex(byte, into: &out)
            } else {
                out.append(byte)
            }
        }
    }

    /// libsmartcols' fputs_quoted: what a shell would expand inside double quotes,
    /// and anything not printable ASCII.
    static func escapePair(_ cell: [UInt8], into out: inout [UInt8]) {
        for byte in cell {
            if byte == 0x22 || byte == 0x5c || byte == 0x60 || byte == 0x24 || !isPrintableASCII(byte) {
                hex(byte, into: &out)
            } else {
                out.append(byte)
            }
        }
    }

    // isprint(3) in the C and UTF-8 locales alike: a byte of a multibyte character is not printable.
    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7f }

    private static func hex(_ byte: UInt8, into out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 0xf)]]
    }
}
