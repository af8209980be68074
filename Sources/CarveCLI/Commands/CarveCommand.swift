import ArgumentParser

/// `carve`: the root command.
public struct CarveCommand: ParsableCommand {
    public static let version = "0.4.0"

    public static let configuration = CommandConfiguration(
        commandName: "carve",
        abstract: "See what is on your disks, clear the snapshots pinning space, check a repartition fits.",
        discussion: """
            Exit status: 0 success (a check that fits), 1 failure, 3 a check that does \
            not fit, 4 partial failure, 64 usage or bad input, 75 another carve holds the \
            lock, 77 needs root, 130 interrupted.

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
