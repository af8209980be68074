import Foundation

/// The examples carve documents, as a user would copy them: the `$ carve …` lines of
/// the README and of every `--help`, and the EXAMPLES blocks of the committed man pages
/// (a block of `carve` lines is one example a line; any other block, a shell script or a
/// crontab line, is one example). Output shown beside them (JSON, tables) is skipped.
struct DocumentedExample: CustomStringConvertible {
    enum Kind { case command, script }
    var source: String
    var text: String
    var kind: Kind

    var description: String { "\(source): \(text)" }

    /// True when it deletes: the run needs fresh snapshots, and a terminal when it asks.
    var deletes: Bool {
        (text.contains("snapshots delete") || text.contains("snapshots thin")) && !text.contains("--dry-run")
    }

    /// Without --yes a deleting command asks on a terminal: the example is typed at one.
    var interactive: Bool { deletes && kind == .command && !text.contains("--yes") }

    static func all(repository: String, helps: [(String, String)]) throws -> [DocumentedExample] {
        var found: [DocumentedExample] = []
        let readme = try String(contentsOfFile: repository + "/README.md", encoding: .utf8)
        found += readmeExamples(readme)
        let man = repository + "/man"
        for page in try FileManager.default.contentsOfDirectory(atPath: man).sorted() where page.hasSuffix(".8") {
            found += manExamples(try String(contentsOfFile: man + "/" + page, encoding: .utf8), page: page)
        }
        for (command, help) in helps {
            for line in help.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("$ carve ") {
                    found.append(
                        DocumentedExample(
                            source: "carve \(command) --help", text: String(text.dropFirst(2)), kind: .command))
                }
            }
        }
        return found
    }

    /// `$ carve …` lines in fenced blocks, and crontab lines that run carve.
    static func readmeExamples(_ text: String) -> [DocumentedExample] {
        var found: [DocumentedExample] = []
        var inBlock = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") { inBlock.toggle(); continue }
            guard inBlock else { continue }
            let source = "README.md:\(number + 1)"
            if trimmed.hasPrefix("$ carve ") {
                found.append(DocumentedExample(source: source, text: String(trimmed.dropFirst(2)), kind: .command))
            } else if let command = crontabCommand(trimmed) {
                found.append(DocumentedExample(source: source, text: command, kind: .script))
            }
        }
        return found
    }

    /// The command of a system crontab line (`M H DOM MON DOW USER COMMAND`) that runs carve.
    static func crontabCommand(_ line: String) -> String? {
        let fields = line.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: true)
        guard fields.count == 7, fields[0].allSatisfy({ $0.isNumber || "*/,-".contains($0) }),
            fields[6].contains("carve ")
        else { return nil }
        return String(fields[6])
    }

    /// The `.Bd -literal` blocks of a page's EXAMPLES section.
    static func manExamples(_ text: String, page: String) -> [DocumentedExample] {
        var found: [DocumentedExample] = []
        var inExamples = false, block: [String]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".Sh ") { inExamples = line == ".Sh EXAMPLES"; continue }
            guard inExamples else { continue }
            if line.hasPrefix(".Bd -literal") { block = []; continue }
            if line == ".Ed", let lines = block {
                found += examples(inBlock: lines.map(unescapeRoff), source: page)
                block = nil
                continue
            }
            block?.append(line)
        }
        return found
    }

    static func examples(inBlock lines: [String], source: String) -> [DocumentedExample] {
        let lines = lines.filter { !$0.isEmpty }
        guard let first = lines.first, !first.hasPrefix("{") else { return [] }
        if lines.count == 1, let command = crontabCommand(first) {
            return [DocumentedExample(source: source, text: command, kind: .script)]
        }
        if lines.allSatisfy({ $0.hasPrefix("carve ") }) {
            return lines.map { DocumentedExample(source: source, text: $0, kind: .command) }
        }
        return [DocumentedExample(source: source, text: lines.joined(separator: "\n"), kind: .script)]
    }

    /// The escapes mdoc needs in literal text, undone.
    static func unescapeRoff(_ line: String) -> String {
        line.replacingOccurrences(of: "\\e", with: "\\").replacingOccurrences(of: "\\&", with: "")
            .replacingOccurrences(of: "\\-", with: "-")
    }
}
