import CarveCore
import Testing

@Suite struct GlobTests {
    @Test(arguments: [
        ("*", "anything/at/all", true), ("*.snapshots*", "@/.snapshots/3/snapshot", true),
        ("home.2026*", "home.20261101T1200", true), ("home.2026*", "root.20261101", false),
        ("?", "a", true), ("?", "ab", false), ("[0-9]*", "3/snapshot", true), ("[!0-9]*", "3/snapshot", false),
        ("a\\*b", "a*b", true), ("a\\*b", "axb", false), ("[]]", "]", true), ("*weekly*", "before weekly update", true),
        ("", "", true), ("", "x", false), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false),
        ("[a-c]x", "bx", true), ("[a-c]x", "dx", false), ("*.json", "info.json", true),
    ])
    func matchesLikeFnmatch(pattern: String, text: String, expected: Bool) throws {
        #expect(try Glob(pattern).matches(text) == expected)
    }

    @Test(arguments: ["[abc", "abc\\", "[z-a]"])
    func rejectsMalformedPatterns(pattern: String) {
        #expect {
            try Glob(pattern)
        } throws: { error in
            (error as? UsageError)?.message.hasPrefix("invalid pattern '\(pattern)'") == true
        }
    }

    @Test func hostilePatternsFinishQuickly() throws {
        let glob = try Glob(String(repeating: "*a", count: 40) + "b")
        #expect(!glob.matches(String(repeating: "a", count: 5_000)))
    }
}
