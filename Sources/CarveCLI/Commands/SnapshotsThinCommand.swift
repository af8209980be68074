import ArgumentParser
import CarveCore

// PLACEHOLDER: replaced by the issue that owns this command.
struct SnapshotsThinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "thin", abstract: "Thin snapshots (PLACEHOLDER)")
    func run() throws { throw RuntimeError("thin: not implemented yet") }
}
