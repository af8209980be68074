import CarveCore
import CarveLinux

/// `--options-file FILE`: carve options kept in a file, one option (with its value)
/// a line, blank lines and `#` comment lines ignored: the policy files of
/// carve-prune@.service. The lines take the option's place on the command line, so
/// there is one grammar and one validator; an error about a value from the file
/// names the file and line.
public struct OptionsFile: Sendable {
    public static let option = "--options-file"
    /// Larger than any policy; a bigger file is not one.
    static let limit = 64 * 1024

    /// Where each option read from a file came from ("FILE:LINE"), by its words.
    public var origins: [(words: [String], place: String)] = []

    /// `arguments` with every `--options-file FILE` replaced by the file's options.
    public static func expand(
        _ arguments: [String], read: (String) throws -> [UInt8]?
    ) throws -> ([String], OptionsFile) {
        var expanded: [String] = [], found = OptionsFile()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { expanded += arguments[(index - 1)...]; break }
            var path: String?
            if argument == option {
                guard index < arguments.count else { throw UsageError("missing value for \(option)") }
                path = arguments[index]
                index += 1
            } else if argument.hasPrefix(option + "=") {
                path = String(argument.dropFirst(option.count + 1))
            }
            guard let path else { expanded.append(argument); continue }
            guard let bytes = try read(path) else { throw UsageError("\(path): no such options file") }
            for line in try OptionsText.lines(ByteText.decode(bytes), file: path) {
                expanded += line.words
                found.origins.append(line)
            }
        }
        return (expanded, found)
    }

    /// `message` with the place of the option it is about, when that option came from a file.
    public func locating(_ message: String) -> String {
        // A value or option the message quotes; else the option it names.
        let origin =
            origins.first { $0.words.contains { message.containsText("'\($0)'") } }
            ?? origins.first { message.containsText($0.words[0] + " ") || message.containsText($0.words[0] + ":") }
        return origin.map { "\($0.place): \(message)" } ?? message
    }

    /// Reads an options file as the user names it (a symlink is followed); as root, only
    /// one that root alone can change, on a path root alone can change (`RootPolicyPath`).
    public static func readFile(_ path: String) throws -> [UInt8]? {
        if Services.current.isRoot { return try RootPolicyFile.read(path, limit: limit) }
        return try MetadataFile.read(path, limit: limit, followingSymlinks: true)
    }
}
