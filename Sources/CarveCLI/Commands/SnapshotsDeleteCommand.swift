import ArgumentParser
import CarveCore

// PLACEHOLDER: replaced by the issue that owns this command.
struct SnapshotsDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete snapshots (PLACEHOLDER)")
    func run() throws { throw RuntimeError("delete: not implemented yet") }
}
