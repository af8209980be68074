import ArgumentParser
import CarveCore

/// `carve snapshots delete`: plan, confirm, delete one after another, report.
struct SnapshotsDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract:
            "Delete btrfs and ZFS snapshots by name or selection, with a dry run that says what space comes back.",
        discussion: """
            SNAPSHOT is a path, a snapper CONFIG:NUMBER or a range CONFIG:FIRST-LAST; names and selection \
            options add up. Protected snapshots (not snapshots, the default subvolume, mounted ones, snapper 0 \
            and important ones, ones with nested subvolumes) are reported and kept. Exit status: 0 all deleted \
            or no snapshots matched, 1 none could be deleted, 4 some failed, 64 bad input, 75 another carve \
            is deleting, 77 not root, 130 interrupted.

            Examples:
              carve snapshots delete root:3-17 --dry-run
              carve snapshots delete --filesystem / --older-than 30d --keep-last 5 --yes
              carve snapshots delete --filesystem / --keep-daily 14 --keep-weekly 8 --keep-monthly 12 --dry-run
            """
    )

    @Argument(
        help: ArgumentHelp("Snapshots to delete: paths, CONFIG:NUMBER or CONFIG:FIRST-LAST.", valueName: "snapshot"),
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

    @OptionGroup(title: "Selection") var selection: SelectionOptions
    @OptionGroup var deletion: DeletionOptions

    func run() throws {
        let flow = try DeletionFlow(options: deletion)
        var request = try DeleteRequest(
            names: snapshots, ids: ids, filesystems: filesystems, selection: selection.selection())
        request.sizes = deletion.sizes ?? .auto
        // A prompt, a dry run, JSON and --wait show the estimate; --yes alone prints none.
        request.estimateWanted =
            deletion.sizes != nil || !deletion.yes || deletion.dryRun || deletion.json || deletion.wait
        try flow.run {
            try request.plan(backend: flow.services.snapshots, rules: flow.rules, now: flow.services.clock.now)
        }
    }
}
