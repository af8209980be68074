import ArgumentParser
import Foundation
import Testing
@testable import CarveCLI
import CarveCore
import CarveTestSupport

/// `--help` of every command: fits an 80-column terminal, shows an example,
/// and says what the man page says.
@Suite struct HelpTests {
    @Test func everyHelpFitsEightyColumnsAndShowsAnExample() {
        for (path, _) in CommandTree.commands() {
            let text = CommandTree.help(path, columns: 80)
            for line in text.split(separator: "\n") {
                #expect(
                    line.count <= 80,
                    "`\(path.joined(separator: " ")) --help` has a line of \(line.count) columns: \(line)")
            }
            let hasExample = !Self.examples(in: text).isEmpty
            #expect(hasExample, "`\(path.joined(separator: " ")) --help` shows no example")
        }
    }

    @Test func helpTopicPrintsWhatHelpFlagPrints() {
        for (path, _) in CommandTree.commands() where path.count > 1 {
            let topic = CommandTree.carve(["help"] + path.dropFirst())
            let flag = CommandTree.carve(Array(path.dropFirst()) + ["--help"])
            #expect(topic.status == 0 && flag.status == 0)
            let same = !topic.stdout.isEmpty && topic.stdout == flag.stdout
            #expect(same, "`carve help \(path.dropFirst().joined(separator: " "))` differs from --help")
        }
    }

    @Test func versionIsTheCommandVersion() {
        let result = CommandTree.carve(["--version"])
        #expect(result.status == 0 && result.stdout == CarveCommand.version + "\n")
    }

    /// A command's example lines (`carve …`, unwrapped) are the man page's too.
    @Test(.enabled(if: Shell.has("man"), "man (man-db) is not installed (Scripts/bootstrap installs it)"))
    func everyHelpExampleIsInTheManPage() throws {
        let pages = Set(try ManualTests.pageNames().map(\.page))
        for (path, _) in CommandTree.commands() {
            let own = path.joined(separator: "-") + ".8"
            let page = pages.contains(own) ? own : "carve.8"
            let rendered = try ManualTests.rendered(page)
            let manLines = Set(rendered.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            let examples = Self.examples(in: CommandTree.help(path, columns: 10_000))
            for example in examples {
                let found = manLines.contains(example)
                #expect(found, "example `\(example)` of `\(path.joined(separator: " ")) --help` is not in man/\(page)")
            }
        }
    }

    /// The `carve …` lines of the paragraph that starts with "Example".
    static func examples(in help: String) -> [String] {
        var inExamples = false
        var found: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Example") { inExamples = true; continue }
            if text.isEmpty { inExamples = false; continue }
            let command = text.hasPrefix("$ ") ? String(text.dropFirst(2)) : text
            if inExamples && command.hasPrefix("carve ") { found.append(command) }
        }
        return found
    }

    @Test(.enabled(if: Shell.has("man"), "man (man-db) is not installed (Scripts/bootstrap installs it)"))
    func everyPageNamesItsCommandWithTheHelpAbstract() throws {
        let info = try ToolInfo.decode(ManualData.json())
        for (path, command) in info.commandsWithPages() {
            let page = path.joined(separator: "-") + ".8"
            let rendered = try ManualTests.rendered(page).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let abstract = (command.abstract ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let phrase = abstract.hasSuffix(".") ? String(abstract.dropLast()) : abstract
            let found = rendered.contains(phrase)
            #expect(found, "man/\(page) NAME does not say `\(phrase)`")
        }
    }
}
