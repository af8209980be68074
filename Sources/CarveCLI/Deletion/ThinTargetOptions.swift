import ArgumentParser
import CarveCore

/// What `thin` works on and how much it brings back: PATH or --filesystem, and one of
/// --free and --until-available, with the order and --best-effort.
struct ThinTargetOptions: ParsableArguments {
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

    /// The request, from PATH or --filesystem and exactly one of --free and --until-available.
    func request(selection: SnapshotSelection, sizes: SizeMode) throws -> ThinRequest {
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
                path: path, free: free, selection: selection, order: order, bestEffort: bestEffort)
        case (nil, let available?):
            request = try ThinRequest(
                path: path, untilAvailable: available, selection: selection, order: order,
                bestEffort: bestEffort)
        case (_?, _?):
            throw UsageError(
                "--free and --until-available are one or the other: free a fixed amount, or up to a level of available space"
            )
        case (nil, nil):
            throw UsageError("missing --free SIZE or --until-available SIZE|N%: how much space thin brings back")
        }
        request.sizes = sizes
        return request
    }
}
