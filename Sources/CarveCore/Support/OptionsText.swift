/// The text of an options file (`--options-file`, the timers' policies): one option a
/// line with its value, blank lines and `#` comment lines ignored, a value with blanks in
/// quotes. One grammar for carve reading a policy and for `check` reading which
/// filesystems a policy names.
public enum OptionsText {
    /// The option that names an options file, which a file may not use itself.
    static let nested = "--options-file"

    /// The options of one file, each with its place.
    public static func lines(_ text: String, file: String) throws(UsageError) -> [(words: [String], place: String)] {
        var result: [(words: [String], place: String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "\(file):\(index + 1)"
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = try words(String(line), place: place)
            guard let first = words.first else { continue }
            guard first.hasPrefix("-"), first != "-", first != "--" else {
                throw UsageError(
                    "\(place): '\(first)' is not an option: each line holds one option and its value, e.g. --keep-daily 7"
                )
            }
            if first == Self.nested || first.hasPrefix(Self.nested + "=") {
                throw UsageError("\(place): an options file cannot name another one")
            }
            if let second = words.dropFirst().first(where: { $0.hasPrefix("--") }) {
                throw UsageError("\(place): one option a line: '\(second)' goes on a line of its own")
            }
            result.append((words, place))
        }
        return result
    }

    /// A line split at blanks; '…' and "…" keep blanks in a value (a path with spaces).
    public static func words(_ line: String, place: String) throws(UsageError) -> [String] {
        var words: [String] = [], current = "", inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" || character == "\r" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw UsageError("\(place): a quote is not closed") }
        if inWord { words.append(current) }
        return words
    }
}
