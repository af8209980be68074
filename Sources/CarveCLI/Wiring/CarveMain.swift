import ArgumentParser
import CarveCore
import CarveLinux

/// Runs carve on `arguments` and returns the exit status, mapping every error to
/// one line on stderr and a documented code: never a Swift backtrace.
public enum CarveMain {
    public static func run(
        _ arguments: [String], readOptionsFile: (String) throws -> [UInt8]? = OptionsFile.readFile
    ) -> Int32 {
        Allocator.keepLargeBlocksInTheHeap()
        FreedAtExit.releaseEarlierRuns()
        let output = Services.current.output
        var optionsFile = OptionsFile()
        do {
            let expanded: [String]
            (expanded, optionsFile) = try OptionsFile.expand(arguments, read: readOptionsFile)
            let arguments = expanded
            let bulk = BulkSnapshotNames.setApart(arguments)
            var command = try CarveCommand.parseAsRoot(bulk?.arguments ?? arguments)
            if let names = bulk?.names, var delete = command as? SnapshotsDeleteCommand {
                delete.named.snapshots = names
                command = delete
            }
            try command.run()
            return ExitStatus.success.rawValue
        } catch let exit as CommandExit {
            return exit.status.rawValue
        } catch let error as any ReportableError {
            // A name in the message is escaped as tables escape it: the error stays one line.
            output.writeError("carve: \(escapedForTable(optionsFile.locating(error.message)))\n")
            return error.exitStatus(asRoot: Services.current.isRoot).rawValue
        } catch {
            return reportParserError(error, output: output, optionsFile: optionsFile)
        }
    }

    /// ArgumentParser's own errors: help and version go to stdout with 0; usage
    /// errors are one line plus a pointer to --help, exit 64.
    private static func reportParserError(_ error: any Error, output: any OutputSink, optionsFile: OptionsFile) -> Int32
    {
        let code = CarveCommand.exitCode(for: error)
        let message = CarveCommand.fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { output.write(message + "\n") }
            return 0
        }
        if code == .validationFailure {
            let first = message.split(separator: "\n").first.map(String.init) ?? message
            let text = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
            output.writeError("carve: \(escapedForTable(optionsFile.locating(text)))\n")
            output.writeError("Try 'carve --help' for more information.\n")
            return ExitStatus.usage.rawValue
        }
        output.writeError(message.isEmpty ? "carve: failed\n" : "carve: \(message)\n")
        return code.rawValue == 0 ? ExitStatus.failure.rawValue : code.rawValue
    }
}
