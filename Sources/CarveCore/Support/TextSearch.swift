/// The few text searches carve needs, on the standard library alone:
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
    /// Without leading and trailing characters that are in `set`.
    public func trimming(charactersIn set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(self[first...last])
    }

    /// Without leading and trailing white space of any kind (tabs, newlines, CR, Unicode spaces).
    public var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
