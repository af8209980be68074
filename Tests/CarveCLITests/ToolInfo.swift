import Foundation

/// The part of ArgumentParser's tool info (`--experimental-dump-help`) the
/// manual tests read: decoded independently of Scripts/carve-manual, so a
/// generator bug cannot hide a missing option.
struct ToolInfo: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }

    struct Argument: Decodable {
        var kind: String
        var shouldDisplay: Bool
        var names: [Name]?
        var valueName: String?

        /// How the page spells it in mdoc: `Fl -json`, `Fl h`, `Ar size`.
        func mdocSpellings() -> [String] {
            var spellings = (names ?? []).map { $0.kind == "long" ? "Fl -\($0.name)" : "Fl \($0.name)" }
            if kind != "flag", let valueName { spellings.append("Ar \(valueName)") }
            return spellings
        }
    }

    struct Command: Decodable {
        var commandName: String
        var shouldDisplay: Bool?
        var abstract: String?
        var subcommands: [Command]?
        var arguments: [Argument]?
    }

    private struct Document: Decodable {
        var toolInfo: Root
    }

    private struct Root: Decodable {
        var command: Command
    }

    var root: Command

    static func decode(_ manualData: String) throws -> ToolInfo {
        ToolInfo(root: try JSONDecoder().decode(Document.self, from: Data(manualData.utf8)).toolInfo.command)
    }

    /// The root and every runnable command: the ones that have a page.
    func commandsWithPages() -> [(path: [String], command: Command)] {
        [([root.commandName], root)] + leaves(of: root, path: [])
    }

    /// Every command with its path, groups included, the built-in `help` left out.
    func allCommands() -> [(path: [String], command: Command)] {
        func walk(_ command: Command, _ path: [String]) -> [(path: [String], command: Command)] {
            let here = path + [command.commandName]
            return [(here, command)] + visibleSubcommands(of: command).flatMap { walk($0, here) }
        }
        return walk(root, [])
    }

    func pages() -> [(path: [String], page: String)] {
        commandsWithPages().map { ($0.path, $0.path.joined(separator: "-") + ".8") }
    }

    private func leaves(of command: Command, path: [String]) -> [(path: [String], command: Command)] {
        let here = path + [command.commandName]
        let children = visibleSubcommands(of: command)
        if children.isEmpty { return path.isEmpty ? [] : [(here, command)] }
        return children.flatMap { leaves(of: $0, path: here) }
    }

    private func visibleSubcommands(of command: Command) -> [Command] {
        (command.subcommands ?? []).filter { $0.shouldDisplay != false && $0.commandName != "help" }
    }
}
