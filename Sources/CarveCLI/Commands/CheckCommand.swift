import ArgumentParser
import CarveCore

// PLACEHOLDER: replaced by the issue that owns this command.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Check that a shrink or a new partition fits (PLACEHOLDER)")
    func run() throws { throw RuntimeError("check: not implemented yet") }
}
