/// A shell glob as fnmatch(3) reads it without flags: `*` matches any run of
/// characters (slashes included), `?` one character, `[abc]`, `[a-z]` and
/// `[!a-z]` one character of a set, and `\` makes the next character literal.
///
/// Matching is iterative with one backtrack point, so a hostile pattern such as
/// `*a*a*a*a*b` cannot take exponential time.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let tokens: [Token]

    enum Token: Sendable, Hashable {
        case literal(Character)
        case any
        case star
        case set([ClosedRange<Character>], negated: Bool)
    }

    public init(_ pattern: String) throws(UsageError) {
        self.pattern = pattern
        tokens = try Glob.tokenize(pattern)
    }

    public var description: String { pattern }

    static func tokenize(_ pattern: String) throws(UsageError) -> [Token] {
        var tokens: [Token] = []
        var characters = pattern[...]
        while let character = characters.popFirst() {
            switch character {
            case "*": if tokens.last != .star { tokens.append(.star) }
            case "?": tokens.append(.any)
            case "\\":
                guard let next = characters.popFirst() else {
                    throw UsageError("invalid pattern '\(echoed(pattern))': it ends with a lone backslash")
                }
                tokens.append(.literal(next))
            case "[": tokens.append(try set(from: &characters, pattern: pattern))
            default: tokens.append(.literal(character))
            }
        }
        return tokens
    }

    /// Reads a bracket expression after its `[`; a `]` first in the set is literal.
    private static func set(from characters: inout Substring, pattern: String) throws(UsageError) -> Token {
        var negated = false
        if let first = characters.first, first == "!" || first == "^" { negated = true; characters.removeFirst() }
        var ranges: [ClosedRange<Character>] = []
        var first = true
        while let character = characters.popFirst() {
            if character == "]" && !first { return .set(ranges, negated: negated) }
            first = false
            var low = character
            if low == "\\", let escaped = characters.popFirst() { low = escaped }
            if characters.first == "-", characters.dropFirst().first.map({ $0 != "]" }) == true {
                characters.removeFirst()
                var high = characters.removeFirst()
                if high == "\\", let escaped = characters.popFirst() { high = escaped }
                guard low <= high else {
                    throw UsageError("invalid pattern '\(echoed(pattern))': range \(low)-\(high) is reversed")
                }
                ranges.append(low...high)
            } else {
                ranges.append(low...low)
            }
        }
        throw UsageError("invalid pattern '\(echoed(pattern))': '[' without a closing ']'")
    }

    public func matches(_ text: String) -> Bool {
        let characters = Array(text)
        var t = 0, p = 0
        var starP: Int?, starT = 0
        while t < characters.count {
            if p < tokens.count, tokens[p] == .star {
                starP = p; starT = t; p += 1
            } else if p < tokens.count, Glob.token(tokens[p], accepts: characters[t]) {
                p += 1; t += 1
            } else if let star = starP {
                p = star + 1; starT += 1; t = starT
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .star { p += 1 }
        return p == tokens.count
    }

    private static func token(_ token: Token, accepts character: Character) -> Bool {
        switch token {
        case .literal(let literal): literal == character
        case .any: true
        case .star: false
        case .set(let ranges, let negated): ranges.contains { $0.contains(character) } != negated
        }
    }
}
