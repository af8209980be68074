import ArgumentParser
import CarveCore

/// `carve snapshots thin`: delete the oldest (or largest) snapshots until enough space comes back.
struct SnapshotsThinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thin",
        abstract:
            "Delete the oldest snapshots of a btrfs filesystem until SIZE comes back, as tmutil thinlocalsnapshots.",
        discussion: """
            The space a snapshot frees is its exclusive bytes: from btrfs quotas when they are on and \
            consistent, else read from the extent trees (--sizes auto, the default; quotas are never turned \
            on). The estimate is a lower bound. When even every eligible snapshot frees less than SIZE, \
            nothing is deleted unless --best-effort.

            Examples:
              carve snapshots thin / --free 20G --dry-run
              carve snapshots thin / --free 20G --wait --yes
              carve snapshots thin / --free 20G --yes --quiet
            """
    )

    @Argument(
        help: ArgumentHelp("A path on the btrfs filesystem to thin.", valueName: "path"), completion: .btrfsMountpoint)
    var path: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How much space to free: 512M, 20G, 1.5GiB, 10GB.", valueName: "size"))
    var free: String

    @Option(help: ArgumentHelp("Which go first: oldest (default) or largest (fewest deletions).", valueName: "order"))
    var order: String = ThinOrder.oldest.rawValue

    @Flag(
        name: .customLong("best-effort"),
        help: "Delete every eligible snapshot even when together they free less than SIZE.")
    var bestEffort = false

    @OptionGroup(title: "Selection") var selection: SelectionOptions
    @OptionGroup var deletion: DeletionOptions

    func run() throws {
        let flow = try DeletionFlow(options: deletion)
        guard let order = ThinOrder(rawValue: order) else {
            throw UsageError("invalid order '\(self.order)' for --order (known: oldest, largest)")
        }
        var request = try ThinRequest(
            path: path, free: free, selection: selection.selection(), order: order, bestEffort: bestEffort)
        request.sizes = deletion.sizes
        try flow.run {
            var plan = try request.plan(
                backend: flow.services.snapshots, rules: deletion.rules, now: flow.services.clock.now)
            // A person at the prompt is told what would take new snapshots of this filesystem.
            if flow.services.stdinIsTerminal, !deletion.yes, !deletion.json, let first = plan.toDelete.first {
                plan.notes += flow.services.snapshotTimerNotes(for: first.filesystem)
            }
            return plan
        }
    }
}
