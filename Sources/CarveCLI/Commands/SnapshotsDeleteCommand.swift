import ArgumentParser
import CarveCore

/// `carve snapshots delete`: plan, confirm, delete one after another, report.
struct SnapshotsDeleteCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [
        .success, .failure, .partialFailure, .usage, .locked, .needsRoot, .interrupted,
    ]

    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract:
            "Delete btrfs and ZFS snapshots by name or selection, with a dry run that says what space comes back.",
        discussion: """
            SNAPSHOT is a path, a snapper CONFIG:NUMBER or a range CONFIG:FIRST-LAST; names and selection \
            options add up. Protected snapshots (\(Protection.Rule.list)) are reported and kept. \
            \(ExitStatus.summary(exitStatuses))

            Examples:
              carve snapshots delete root:3-17 --dry-run
              carve snapshots delete --filesystem / --older-than 30d --keep-last 5 --yes
              carve snapshots delete --filesystem / --keep-daily 14 --keep-weekly 8 --keep-monthly 12 --dry-run
            """
    )

    @OptionGroup var named: NamedSnapshotsOptions
    @OptionGroup(title: "Selection") var selection: SelectionOptions
    @OptionGroup var deletion: DeletionOptions

    func run() throws {
        let flow = try DeletionFlow(options: deletion)
        var request = try named.request(selection.selection())
        request.sizes = deletion.sizes ?? .auto
        // A prompt, a dry run, JSON and --wait show the estimate; --yes alone prints none.
        request.estimateWanted =
            deletion.sizes != nil || !deletion.yes || deletion.dryRun || deletion.json || deletion.wait
        try flow.run {
            try request.plan(backend: flow.services.snapshots, rules: flow.rules, now: flow.services.clock.now)
        }
    }
}
