import ArgumentParser
import CarveCore

/// `carve snapshots thin`: delete the oldest (or largest) snapshots until enough space comes back.
struct SnapshotsThinCommand: ParsableCommand {
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

    @Argument(
        help: ArgumentHelp("A path on the btrfs filesystem to thin, or a ZFS pool or dataset.", valueName: "path"),
        completion: .btrfsMountpoint)
    var path: String?

    @Option(
        name: .customLong("filesystem"),
        help: ArgumentHelp(
            "The same as PATH, for a policy file, where each line is an option (carve-thin@.service).",
            valueName: "path"),
        completion: .btrfsMountpoint)
    var filesystem: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How much space to free: 512M, 20G, 1.5GiB, 10GB.", valueName: "size"))
    var free: String?

    @Option(
        name: .customLong("until-available"), parsing: .unconditional,
        help: ArgumentHelp(
            "Delete until the filesystem has this much available, as df shows it: 50G or a share of its size, 20%.",
            valueName: "size|N%"))
    var untilAvailable: String?

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
        let request = try self.request()
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

    /// The request, from PATH or --filesystem and exactly one of --free and --until-available.
    private func request() throws -> ThinRequest {
        guard let order = ThinOrder(rawValue: order) else {
            throw UsageError("invalid order '\(self.order)' for --order (known: oldest, largest)")
        }
        let path: String
        switch (self.path, filesystem) {
        case (let given?, nil), (nil, let given?): path = given
        case (_?, _?): throw UsageError("PATH and --filesystem name the same thing: give one of them")
        case (nil, nil): throw UsageError("missing PATH: a path on the btrfs filesystem to thin")
        }
        var request: ThinRequest
        switch (free, untilAvailable) {
        case (let free?, nil):
            request = try ThinRequest(
                path: path, free: free, selection: selection.selection(), order: order, bestEffort: bestEffort)
        case (nil, let available?):
            request = try ThinRequest(
                path: path, untilAvailable: available, selection: selection.selection(), order: order,
                bestEffort: bestEffort)
        case (_?, _?):
            throw UsageError(
                "--free and --until-available are one or the other: free a fixed amount, or up to a level of available space"
            )
        case (nil, nil):
            throw UsageError("missing --free SIZE or --until-available SIZE|N%: how much space thin brings back")
        }
        request.sizes = deletion.sizes ?? .auto
        return request
    }
}
