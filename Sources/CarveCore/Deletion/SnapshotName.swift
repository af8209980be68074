/// How a positional argument of `carve snapshots delete` names snapshots.
public enum SnapshotName: Sendable, Hashable {
    /// A path to the snapshot's subvolume.
    case path(String)
    /// snapper `CONFIG:NUMBER` or `CONFIG:FIRST-LAST`.
    case snapper(config: String, numbers: ClosedRange<Int>)

    /// `root:12` and `home:3-17` are snapper numbers; anything with a slash, or
    /// without a colon, is a path (write `./a:1` for a file named `a:1`).
    public static func parse(_ text: String) throws(UsageError) -> SnapshotName {
        guard !text.isEmpty else { throw UsageError("empty snapshot name") }
        guard !text.contains("/"), let colon = text.firstIndex(of: ":") else { return .path(text) }
        let config = String(text[..<colon])
        let numbers = String(text[text.index(after: colon)...])
        func fail(_ reason: String) -> UsageError {
            UsageError(
                "invalid snapshot name '\(text)': \(reason) (expected a path, CONFIG:NUMBER or CONFIG:FIRST-LAST)")
        }
        guard !config.isEmpty, config.allSatisfy(isConfigCharacter) else { throw fail("bad snapper config name") }
        let bounds = numbers.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(bounds.count),
            bounds.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let first = Int(bounds[0]), let last = Int(bounds[bounds.count - 1])
        else { throw fail(numbers.isEmpty ? "no number" : "'\(numbers)' is not a number or range") }
        guard first <= last else { throw fail("inverted range \(first)-\(last)") }
        return .snapper(config: config, numbers: first...last)
    }

    private static func isConfigCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "_-.@+".contains(character))
    }
}
