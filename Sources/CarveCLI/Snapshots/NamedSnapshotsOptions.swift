import ArgumentParser
import CarveCore

/// How `delete` and `pinned` name their snapshots: paths and snapper numbers, ids, and
/// the filesystems the selection options work on.
struct NamedSnapshotsOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp("Snapshots by path, CONFIG:NUMBER or CONFIG:FIRST-LAST.", valueName: "snapshot"),
        completion: .snapshot)
    var snapshots: [String] = []

    @Option(
        name: .customLong("id"), help: ArgumentHelp("A snapshot by btrfs subvolume id (repeatable).", valueName: "id"))
    var ids: [UInt64] = []

    @Option(
        name: .customLong("filesystem"),
        help: ArgumentHelp(
            "Work on the btrfs filesystem holding this path, or this ZFS pool or dataset (repeatable; default: every one).",
            valueName: "path"),
        completion: .btrfsMountpoint)
    var filesystems: [String] = []

    /// The request these and `selection` name (a usage error when they name nothing).
    func request(_ selection: SnapshotSelection) throws(UsageError) -> DeleteRequest {
        try DeleteRequest(names: snapshots, ids: ids, filesystems: filesystems, selection: selection)
    }
}
