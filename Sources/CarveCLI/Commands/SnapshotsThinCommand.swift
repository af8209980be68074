import ArgumentParser
import CarveCore

/// `carve snapshots thin`: delete the oldest (or largest) snapshots until enough space comes back.
struct SnapshotsThinCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [
        .success, .failure, .partialFailure, .usage, .locked, .needsRoot, .interrupted,
    ]

    static let configuration = CommandConfiguration(
        commandName: "thin",
        abstract:
            "Delete the oldest snapshots of a btrfs filesystem or ZFS dataset until SIZE comes back or is available, as tmutil thinlocalsnapshots.",
        discussion: """
            The space a snapshot frees is its exclusive bytes: from btrfs quotas when they are on and \
            consistent, else read from the extent trees (--sizes auto, the default; quotas are never turned \
            on). The estimate is a lower bound. When even every eligible snapshot frees less than SIZE, \
            nothing is deleted unless --best-effort. --until-available deletes only what is needed for the \
            filesystem's available space (as df shows it) to reach SIZE or N% of its size; nothing when it \
            already does.

            Examples:
              carve snapshots thin / --free 20G --dry-run
              carve snapshots thin / --free 20G --wait --yes
              carve snapshots thin / --free 20G --yes --quiet
              carve snapshots thin / --until-available 20% --keep-daily 7 --wait --yes
            """
    )

    @OptionGroup var target: ThinTargetOptions
    @OptionGroup(title: "Selection") var selection: SelectionOptions
    @OptionGroup var deletion: DeletionOptions

    func run() throws {
        let flow = try DeletionFlow(options: deletion)
        let request = try target.request(selection: selection.selection(), sizes: deletion.sizes ?? .auto)
        try flow.run {
            var plan = try request.plan(
                backend: flow.services.snapshots, rules: flow.rules, now: flow.services.clock.now)
            // A person at the prompt is told what would take new snapshots of this filesystem.
            if flow.services.stdinIsTerminal, !deletion.yes, !deletion.json, let first = plan.toDelete.first {
                plan.notes += flow.services.snapshotTimerNotes(for: first.filesystem)
            }
            return plan
        }
    }
}
