import ArgumentParser

/// `carve snapshots`: list, delete and thin filesystem snapshots.
struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List, delete and thin btrfs snapshots (snapper, timeshift, btrbk, plain).",
        subcommands: [SnapshotsListCommand.self, SnapshotsDeleteCommand.self, SnapshotsThinCommand.self]
    )
}
