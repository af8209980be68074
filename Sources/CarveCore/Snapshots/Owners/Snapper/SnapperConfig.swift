/// snapper's configuration: `/etc/snapper/configs/NAME` files in shell syntax
/// (`SUBVOLUME="/home"`), and the list of config names in `SNAPPER_CONFIGS` of
/// `/etc/conf.d/snapper` or `/etc/default/snapper`.
public struct SnapperConfig: Sendable, Hashable {
    public var name: String
    /// The absolute path of the subvolume the config snapshots, e.g. "/" or "/home".
    public var subvolume: String
    public var fstype: String?
    /// UNIQUE_NUMBERS="yes": snapper keeps the emptied directory of its highest-numbered
    /// snapshot so that no number is used twice. snapper 0.13.1 and later write the key
    /// into every config they create; a config without it comes from an older snapper,
    /// which removes every directory (and reports an empty one as "loading N failed"),
    /// so carve keeps a directory only when the config says "yes".
    public var uniqueNumbers: Bool

    public init(name: String, subvolume: String, fstype: String? = nil, uniqueNumbers: Bool = false) {
        self.name = name; self.subvolume = subvolume; self.fstype = fstype; self.uniqueNumbers = uniqueNumbers
    }

    public typealias Failure = OwnerFileFailure

    /// Config files are small; this caps what is read of a hostile one.
    public static let maximumSize = 256 * 1024

    /// Parses a config file's text; SUBVOLUME must be an absolute path.
    public static func parse(name: String, text: String) throws(Failure) -> SnapperConfig {
        let values = try parseAssignments(text)
        guard let subvolume = values["SUBVOLUME"] else { throw Failure(reason: "no SUBVOLUME=") }
        guard subvolume.hasPrefix("/") else {
            throw Failure(reason: "SUBVOLUME \"\(subvolume)\" is not an absolute path")
        }
        return SnapperConfig(
            name: name, subvolume: subvolume, fstype: values["FSTYPE"],
            uniqueNumbers: values["UNIQUE_NUMBERS"] == "yes")
    }

    /// The config names listed in SNAPPER_CONFIGS, in order.
    public static func configNames(fromSysconfig text: String) throws(Failure) -> [String] {
        let value = try parseAssignments(text)["SNAPPER_CONFIGS"] ?? ""
        return value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// `KEY="value"` lines as snapper's AsciiFile reads them: comments and blank
    /// lines skipped, one level of double quotes, `\"` and `\\` escapes.
    static func parseAssignments(_ text: String) throws(Failure) -> [String: String] {
        var values: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw Failure(reason: "line \(number + 1) is not KEY=\"value\"")
            }
            let key = String(line[..<equals])
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw Failure(reason: "line \(number + 1) has an invalid key '\(key)'")
            }
            values[key] = try unquote(line[line.index(after: equals)...], line: number + 1)
        }
        return values
    }

    static func unquote(_ raw: Substring, line: Int) throws(Failure) -> String {
        guard raw.hasPrefix("\"") else {
            // Unquoted: up to a comment, as the shell would read it.
            return String(raw.prefix { $0 != "#" }).trimmingSpaces
        }
        var value = ""
        var characters = raw.dropFirst()
        while let character = characters.popFirst() {
            switch character {
            case "\\":
                guard let next = characters.popFirst() else {
                    throw Failure(reason: "line \(line) ends inside an escape")
                }
                value.append(next)
            case "\"":
                let rest = String(characters).trimmingSpaces
                guard rest.isEmpty || rest.hasPrefix("#") else {
                    throw Failure(reason: "line \(line) has text after the closing quote")
                }
                return value
            default: value.append(character)
            }
        }
        throw Failure(reason: "line \(line) has an unclosed quote")
    }
}
