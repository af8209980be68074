import ArgumentParser
import CarveCore

/// `carve`: the root command.
public struct CarveCommand: ParsableCommand {
    public static let version = "0.4.15"

    public static let configuration = CommandConfiguration(
        commandName: "carve",
        abstract: "See what is on your disks, clear the snapshots pinning space, check a repartition fits.",
        discussion: ExitStatus.summary() + """


            Examples:
              $ carve devices
              $ carve snapshots list /
              $ carve check /dev/sda2 --shrink-to 40G
              $ carve snapshots thin / --free 20G --dry-run
            """,
        version: version,
        subcommands: [DevicesCommand.self, SnapshotsCommand.self, CheckCommand.self]
    )

    public init() {}
}
