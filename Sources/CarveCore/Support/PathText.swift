/// Path arithmetic on text, as NSString's `deletingLastPathComponent` and
/// `lastPathComponent` do it for the paths carve builds: trailing slashes ignored,
/// bytes kept (doubled slashes inside are left as they are; NSString folds them).
public enum PathText {
    /// "/a/b" → "/a", "/a" → "/", "/" → "/", "a" → "".
    public static func parent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path.hasPrefix("/") ? "/" : "" }
        let head = withoutTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty && path.hasPrefix("/") ? "/" : head
    }

    /// "/a/b/" → "b", "/" → "/".
    public static func lastComponent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed.isEmpty { return path.isEmpty ? "" : "/" }
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return trimmed }
        return String(trimmed[trimmed.utf8.index(after: slash)...])
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var end = path.utf8.endIndex
        while end > path.utf8.startIndex, path.utf8[path.utf8.index(before: end)] == UInt8(ascii: "/") {
            end = path.utf8.index(before: end)
        }
        return String(path[..<end])
    }
}
