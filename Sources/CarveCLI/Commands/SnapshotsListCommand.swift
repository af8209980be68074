import ArgumentParser
import CarveCore

// PLACEHOLDER: replaced by the issue that owns this command.
struct SnapshotsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List btrfs snapshots (PLACEHOLDER)")
    func run() throws { throw RuntimeError("list: not implemented yet") }
}
