/// The few text searches and trims carve needs, on the standard library alone:
/// `String.contains(String)` lives in _StringProcessing, whose one use would
/// link its whole regex engine (1.1 MB) into the binary.
extension StringProtocol {
    /// True when `other` occurs in this text, compared as UTF-8 bytes (an empty `other` always does).
    public func containsText(_ other: some StringProtocol) -> Bool {
        let needle = Array(other.utf8)
        guard !needle.isEmpty else { return true }
        let haystack = Array(utf8)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}

extension String {
    /// Without the leading and trailing characters for which `isTrimmed` holds.
    public func trimming(while isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(self[first...last])
    }

    /// Without leading and trailing spaces, tabs and newlines (the parsers' blanks).
    public var trimmingSpaces: String { trimming { $0 == " " || $0 == "\t" || $0 == "\n" } }

    /// Without leading and trailing white space of any kind (CR, Unicode spaces too).
    public var trimmingWhitespace: String { trimming(while: \.isWhitespace) }
}
