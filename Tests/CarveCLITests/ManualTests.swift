import Foundation
import Testing
@testable import CarveCLI
import CarveCore
import CarveTestSupport

/// The committed man pages against the code: regenerated from the command
/// definitions they must be byte for byte what man/ holds, every option must be
/// in its page, and mandoc and man must accept every page.
@Suite struct ManualTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let manDirectory = repository.appendingPathComponent("man")

    /// The committed pages, by file name.
    static func committedPages() throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: manDirectory.path).filter { $0.hasSuffix(".8") }
        return try Dictionary(
            uniqueKeysWithValues: names.map {
                ($0, try String(contentsOf: manDirectory.appendingPathComponent($0), encoding: .utf8))
            })
    }

    /// Every command path with its page name: ["carve"], ["carve", "snapshots", "list"], …
    static func pageNames() throws -> [(path: [String], page: String)] {
        try ToolInfo.decode(ManualData.json()).pages()
    }

    @Test(.enabled(if: Shell.has("python3"), "python3 is not installed: cannot run Scripts/carve-manual"))
    func committedPagesAreWhatTheGeneratorWritesFromTheCommands() throws {
        let scratch = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let data = scratch + "/manual-data.json"
        try ManualData.json().write(toFile: data, atomically: true, encoding: .utf8)
        let generated = scratch + "/pages"
        try Shell.check([
            "python3", Self.repository.path + "/Scripts/carve-manual", data,
            Self.manDirectory.path + "/src", generated,
        ])
        let committed = try Self.committedPages()
        let fresh = try FileManager.default.contentsOfDirectory(atPath: generated)
        #expect(Set(committed.keys) == Set(fresh), "the set of pages differs from the commands: run Scripts/man")
        for name in fresh.sorted() {
            let text = try String(contentsOfFile: generated + "/" + name, encoding: .utf8)
            let old = committed[name] ?? ""
            let same = text == old
            #expect(
                same, "man/\(name) is out of date with the commands (\(firstDifference(old, text))): run Scripts/man")
        }
    }

    /// The generator refuses templates that do not match the commands, and bad
    /// placeholders, with a message naming the file; it never writes a page then.
    @Test(.enabled(if: Shell.has("python3"), "python3 is not installed: cannot run Scripts/carve-manual"))
    func generatorRejectsTemplatesThatDoNotMatchTheCommands() throws {
        let cases: [(String, (String) throws -> Void, String)] = [
            ("missing", { try FileManager.default.removeItem(atPath: $0 + "/carve-check.8.in") }, "no template for"),
            (
                "orphan", { try "x\n".write(toFile: $0 + "/carve-frobnicate.8.in", atomically: true, encoding: .utf8) },
                "no command for template"
            ),
            ("placeholder", { try Self.append("@NO_SUCH_THING@\n", to: $0 + "/carve.8.in") }, "unknown placeholder"),
            // A page lists the exit statuses its command declares, never its own.
            ("exit code", { try Self.append("@EXIT_STATUS:0,2@\n", to: $0 + "/carve.8.in") }, "unknown placeholder"),
            (
                "columns", { try Self.append("@COLUMNS:partitions@\n", to: $0 + "/carve.8.in") },
                "no columns for partitions"
            ),
        ]
        for (name, breakTemplates, expected) in cases {
            let scratch = try Integration.makeScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            try FileManager.default.copyItem(atPath: Self.manDirectory.path + "/src", toPath: scratch + "/src")
            try breakTemplates(scratch + "/src")
            try ManualData.json().write(toFile: scratch + "/data.json", atomically: true, encoding: .utf8)
            let result = try Shell.run([
                "python3", Self.repository.path + "/Scripts/carve-manual", scratch + "/data.json", scratch + "/src",
                scratch + "/out",
            ])
            #expect(
                result.status == 1 && result.stderr.contains(expected), "\(name): \(result.status) \(result.stderr)")
            let written = (try? FileManager.default.contentsOfDirectory(atPath: scratch + "/out")) ?? []
            #expect(written.isEmpty, "\(name): wrote \(written)")
        }
        let garbage = try Shell.run([
            "python3", Self.repository.path + "/Scripts/carve-manual", "/dev/null", "/nonexistent", "/tmp/x",
        ])
        #expect(garbage.status == 1 && garbage.stderr.hasPrefix("carve-manual: "), "empty data: \(garbage.stderr)")
    }

    static func append(_ text: String, to file: String) throws {
        let old = try String(contentsOfFile: file, encoding: .utf8)
        try (old + text).write(toFile: file, atomically: true, encoding: .utf8)
    }

    @Test func everyCommandHasAPageListingEveryOneOfItsOptions() throws {
        let pages = try Self.committedPages()
        let info = try ToolInfo.decode(ManualData.json())
        for (path, command) in info.commandsWithPages() {
            let page = path.joined(separator: "-") + ".8"
            guard let text = pages[page] else {
                Issue.record("no man/\(page) for `\(path.joined(separator: " "))`: run Scripts/man")
                continue
            }
            for argument in command.arguments ?? [] where argument.shouldDisplay {
                for spelling in argument.mdocSpellings() {
                    let found = text.contains(spelling)
                    #expect(found, "man/\(page) does not mention \(spelling): run Scripts/man")
                }
            }
        }
    }

    @Test(.enabled(if: Shell.has("mandoc"), "mandoc is not installed (Scripts/bootstrap installs it)"))
    func mandocLintFindsNothingOnAnyPage() throws {
        let pages = try Self.committedPages().keys.sorted().map { Self.manDirectory.path + "/" + $0 }
        #expect(!pages.isEmpty)
        let lint = try Shell.run(["mandoc", "-T", "lint", "-W", "warning"] + pages)
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "mandoc: \(lint.stdout)\(lint.stderr)")
    }

    @Test(.enabled(if: Shell.has("man"), "man (man-db) is not installed (Scripts/bootstrap installs it)"))
    func manRendersEveryPageWithItsSections() throws {
        let required = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
        for page in try Self.committedPages().keys.sorted() {
            let text = try Self.rendered(page)
            for heading in required {
                let found = text.contains("\n" + heading + "\n")
                #expect(found, "man -l man/\(page) has no \(heading) section")
            }
        }
        let overview = try Self.rendered("carve.8")
        for heading in ["ENVIRONMENT", "FILES"] {
            let found = overview.contains("\n" + heading + "\n")
            #expect(found, "man -l man/carve.8 has no \(heading) section")
        }
        for file in [
            "/run/lock/carve.lock", "/etc/snapper/configs", "/proc/self/mountinfo", "/run/udev/data", "/sys/block",
        ] {
            let found = overview.contains(file)
            #expect(found, "carve(8) FILES does not name \(file)")
        }
    }

    @Test(.enabled(if: Shell.has("man"), "man (man-db) is not installed (Scripts/bootstrap installs it)"))
    func carvePageDocumentsEveryExitStatus() throws {
        let text = try Self.rendered("carve.8")
        let section = try #require(text.range(of: "\nEXIT STATUS\n")).upperBound
        let body = String(text[section...])
        for status in ExitStatus.allCases {
            let words = status.meaning.split(separator: " ").prefix(3).joined(separator: " ")
            let found = body.contains("\(status.rawValue)") && body.lowercased().contains(words.lowercased())
            #expect(
                found,
                "carve(8) EXIT STATUS lacks \(status.rawValue) \(status.meaning)")
        }
    }

    @Test(.enabled(if: Shell.has("man"), "man (man-db) is not installed (Scripts/bootstrap installs it)"))
    func checkPageCarriesTheShrinkTable() throws {
        let text = try Self.rendered("carve-check.8").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .lowercased()
        for rule in ShrinkRule.table {
            for phrase in rule.types + [rule.ability.rawValue] + (rule.tool.map { [$0] } ?? []) {
                let found = text.contains(phrase.lowercased())
                #expect(found, "carve-check(8) shrink table lacks `\(phrase)` of \(rule.types)")
            }
        }
    }

    @Test func readmeExitTableIsExitStatus() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").compactMap { line -> (Int32, String)? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let code = Int32(cells[0]) else { return nil }
            return (code, cells[1])
        }
        #expect(
            rows.map(\.0) == ExitStatus.allCases.map(\.rawValue),
            "README's exit-code table has other codes than ExitStatus")
        for (code, meaning) in rows {
            #expect(ExitStatus(rawValue: code)?.meaning == meaning, "README says \(code) is `\(meaning)`")
        }
    }

    /// Every `carve …` line in an EXAMPLES block parses: an example cannot keep
    /// an option the code no longer has.
    @Test func everyManPageExampleParses() throws {
        var count = 0
        for (page, text) in try Self.committedPages() {
            for example in Self.exampleCommands(in: text) {
                count += 1
                do {
                    _ = try CarveCommand.parseAsRoot(example)
                } catch {
                    Issue.record(
                        "man/\(page): `carve \(example.joined(separator: " "))` does not parse: \(CarveCommand.message(for: error))"
                    )
                }
            }
        }
        #expect(count >= 10, "found only \(count) examples in man/")
    }

    /// The arguments of each carve command line in the literal blocks of a page,
    /// stopped at the first shell operator (`>>`, `|`, `||`, `;`).
    static func exampleCommands(in page: String) -> [[String]] {
        var commands: [[String]] = []
        var literal = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".Bd -literal") { literal = true; continue }
            if line.hasPrefix(".Ed") { literal = false; continue }
            guard literal else { continue }
            let words = line.replacingOccurrences(of: "\\&", with: "").split(separator: " ").map(String.init)
            // carve in command position: first word, after a cron user, a case label or `||`.
            guard
                let start = words.indices.first(where: { index in
                    (words[index] == "carve" || words[index].hasSuffix("/carve"))
                        && (index == 0 || ["root", "||", "&&", ";"].contains(words[index - 1])
                            || words[index - 1].hasSuffix(")"))
                })
            else { continue }
            let operators: Set<String> = [">", ">>", "|", "||", "&&", ";", ";;", "2>&1"]
            commands.append(Array(words[(start + 1)...].prefix { !operators.contains($0) && !$0.hasPrefix(">") }))
        }
        return commands
    }

    /// `man -l` output as plain text, 80 columns, overstrike removed.
    static func rendered(_ page: String) throws -> String {
        let result = try Shell.run(
            ["man", "--nh", "--nj", "-l", manDirectory.path + "/" + page],
            environment: [
                "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": "",
            ]
        )
        guard result.status == 0 else {
            throw RenderingFailed(page: page, status: result.status, stderr: result.stderr)
        }
        return plain(result.stdout)
    }

    /// Removes the `x\bx` overstrike man uses for bold and underline.
    static func plain(_ text: String) -> String {
        var out: [Character] = []
        for character in text {
            if character == "\u{8}" { if !out.isEmpty { out.removeLast() }; continue }
            out.append(character)
        }
        return String(out)
    }
}

struct RenderingFailed: Error, CustomStringConvertible {
    let page: String, status: Int32, stderr: String
    var description: String { "man -l man/\(page) exited \(status): \(stderr)" }
}

/// The first line where two texts differ, for a failure message.
func firstDifference(_ old: String, _ new: String) -> String {
    let a = old.split(separator: "\n", omittingEmptySubsequences: false)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(a.count, b.count) {
        let left = index < a.count ? String(a[index]) : "<end>"
        let right = index < b.count ? String(b[index]) : "<end>"
        if left != right {
            return "line \(index + 1): committed \(left.debugDescription), code gives \(right.debugDescription)"
        }
    }
    return "identical"
}
