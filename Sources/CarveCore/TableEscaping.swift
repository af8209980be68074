/// A name made safe for one table cell: control characters, DEL and the backslash
/// itself are written as `\xHH`, as lsblk does, so every name stays on one line and
/// the escaping can be undone. JSON output carries the exact name instead. (Bytes that
/// were not UTF-8 arrive here already replaced by U+FFFD.)
public func escapedForTable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7f || scalar == "\\" {
            let hex = String(scalar.value, radix: 16)
            out += "\\x" + (hex.count == 1 ? "0" : "") + hex
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
