import ArgumentParser
import CarveCore

// PLACEHOLDER: replaced by the issue that owns this command.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List block devices, partitions and filesystems (PLACEHOLDER)")
    func run() throws { throw RuntimeError("devices: not implemented yet") }
}
