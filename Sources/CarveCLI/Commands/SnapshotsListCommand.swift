import ArgumentParser
import CarveCore
import CarveLinux

/// `carve snapshots list [PATH...]`: every snapshot of the filesystems holding PATH, or
/// of the ZFS pools or datasets it names (default: every mounted btrfs and imported ZFS
/// pool, each once), with its manager's metadata and
/// the space it holds, oldest first.
struct SnapshotsListCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [.success, .failure, .usage, .needsRoot]

    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List btrfs and ZFS snapshots with their manager (snapper, sanoid, plain…) and the space they hold.",
        discussion: """
            Sizes come from btrfs quotas when they are enabled and consistent; otherwise, as \
            root, from the extent trees (--sizes exact), and else they are unknown and carve says \
            why on stderr (it never turns quotas on). --sizes none is fastest. Snapshots that \
            no mount reaches are listed with their path from the top level, as <FS_TREE>/path.

            Examples:
              $ carve snapshots list
              $ carve snapshots list / --manager snapper --older-than 30d --keep-last 5
              $ carve snapshots list / --keep-daily 7 --keep-weekly 4 --keep-monthly 6 --explain
              $ carve snapshots list /home --json
              $ carve snapshots list --prometheus
            """
    )

    @Argument(
        help: ArgumentHelp(
            "Any path inside a btrfs filesystem, or a ZFS pool or dataset (default: every mounted btrfs and ZFS pool).",
            valueName: "path"),
        completion: .btrfsMountpoint)
    var paths: [String] = []

    @OptionGroup(title: "Selection")
    var selection: SelectionOptions

    @OptionGroup var options: ListOptions

    func run() throws {
        try options.report.apply(list)
    }

    private func list() throws {
        let services = Services.current
        if options.output?.lowercased() == "help" { return SnapshotListingView.columnHelp(to: services.output) }
        try options.checkOutputs()
        let view = try SnapshotListingView(options: options)
        let request = SnapshotListRequest(
            paths: paths, selection: try selection.selection(timeZone: services.clock.timeZone),
            sizes: try options.sizeMode(isRoot: services.isRoot), allSubvolumes: options.allSubvolumes)
        let listings = try request.listings(backend: services.snapshots) { list in
            try ScanProgressLine.around(services, list)
        }
        FreedAtExit.keep(listings)
        guard options.metrics else { return view.render(listings, request, services) }
        let metrics = SnapshotMetricsView(
            listings, request, now: services.clock.now, space: services.snapshots.spaceUsage, warn: services.output.warn
        ).rendered()
        guard let file = options.metricsFile else { return services.output.write(metrics) }
        try AtomicFile.replace(file, with: Array(metrics.utf8))
    }
}
