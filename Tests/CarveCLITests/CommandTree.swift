import ArgumentParser
@testable import CarveCLI
import CarveTestSupport

/// carve's commands as ArgumentParser sees them, for the help, manual and
/// completion tests.
enum CommandTree {
    /// Every command type with its path, groups included.
    static func commands() -> [(path: [String], type: any ParsableCommand.Type)] {
        func walk(
            _ type: any ParsableCommand.Type, _ path: [String]
        ) -> [(path: [String], type: any ParsableCommand.Type)] {
            let here = path + [type._commandName]
            return [(here, type)] + type.configuration.subcommands.flatMap { walk($0, here) }
        }
        return walk(CarveCommand.self, [])
    }

    static func help(_ path: [String], columns: Int) -> String {
        let type = commands().first { $0.path == path }!.type
        return CarveCommand.helpMessage(for: type, columns: columns)
    }

    /// Result of running carve in-process on no machine, its output captured.
    static func carve(_ arguments: [String]) -> RunResult {
        runCarve(arguments) { captured in
            var services = Services.noMachine
            services.output = captured
            return services
        }
    }
}
