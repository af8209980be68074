/// Parsers for what filesystem resize tools print; the platform layer runs the tools.
public enum ResizeToolOutput {
    /// `resize2fs -P DEV`: "Estimated minimum size of the filesystem: 12345" (in blocks).
    public static func resize2fsMinimumBlocks(_ text: String) throws(ParseError) -> UInt64 {
        let prefix = "Estimated minimum size of the filesystem:"
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            guard let blocks = UInt64(String(line.dropFirst(prefix.count)).trimmingSpaces) else {
                throw ParseError(tool: "resize2fs -P", reason: "'\(line)' has no block count")
            }
            return blocks
        }
        throw ParseError(tool: "resize2fs -P", reason: "no 'Estimated minimum size' line")
    }

    /// One numeric field of `dumpe2fs -h DEV`, e.g. "Block size" or "Block count".
    public static func dumpe2fsField(_ name: String, in text: String) throws(ParseError) -> UInt64 {
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":"), line[..<colon] == Substring(name) else { continue }
            guard let value = UInt64(String(line[line.index(after: colon)...]).trimmingSpaces) else {
                throw ParseError(tool: "dumpe2fs -h", reason: "'\(name)' is not a number")
            }
            return value
        }
        throw ParseError(tool: "dumpe2fs -h", reason: "no '\(name)' field")
    }

    /// `ntfsresize --info --no-action DEV`: "You might resize at 123456789 bytes or 124 MB ...".
    public static func ntfsresizeMinimumBytes(_ text: String) throws(ParseError) -> UInt64 {
        let prefix = "You might resize at "
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let number = line.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            guard let bytes = UInt64(number), line.dropFirst(prefix.count + number.count).hasPrefix(" bytes") else {
                throw ParseError(tool: "ntfsresize --info", reason: "'\(line)' has no byte count")
            }
            return bytes
        }
        throw ParseError(tool: "ntfsresize --info", reason: "no 'You might resize at' line")
    }
}
