import ArgumentParser

/// `carve snapshots`: list, delete and thin filesystem snapshots.
struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract:
            "List, delete and thin btrfs and ZFS snapshots (snapper, timeshift, btrbk, sanoid, zfs-auto-snapshot…), and see what they pin.",
        discussion: """
            Examples:
              $ carve snapshots list /
              $ carve snapshots thin / --free 20G --dry-run
              $ carve snapshots delete root:3-17 --dry-run
              $ carve snapshots pinned root:3-17
            """,
        subcommands: [
            SnapshotsListCommand.self, SnapshotsDeleteCommand.self, SnapshotsThinCommand.self,
            SnapshotsPinnedCommand.self,
        ]
    )
}
