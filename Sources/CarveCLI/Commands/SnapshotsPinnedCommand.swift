import ArgumentParser
import CarveCore

/// `carve snapshots pinned SNAPSHOT…`: which files only a set of snapshots holds.
struct SnapshotsPinnedCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [.success, .failure, .usage, .needsRoot, .interrupted]

    static let configuration = CommandConfiguration(
        commandName: "pinned",
        abstract: "Show which files only a set of btrfs snapshots holds: what deleting the set frees, file by file.",
        discussion: """
            SNAPSHOT and the selection options name the set as for delete. Largest first, each file \
            once however it was renamed: the bytes it pins, the oldest and newest snapshot holding \
            them, its path in the newest. The files add up to what deleting the set frees (exact); \
            metadata is estimated apart. Read-only; needs root. Exit status: 0 (also when the set \
            pins nothing or nothing matched), 1 error, 64 bad input, 77 not root.

            Examples:
              carve snapshots pinned /.snapshots/12/snapshot
              carve snapshots pinned --filesystem / --keep-last 5 --top 5
              carve snapshots pinned root:3-17 --json
            """
    )

    @OptionGroup var named: NamedSnapshotsOptions
    @OptionGroup(title: "Selection") var selection: SelectionOptions
    @OptionGroup var options: PinnedOptions

    func run() throws {
        try options.report.apply(show)
    }

    private func show() throws {
        let services = Services.current
        if options.output?.lowercased() == "help" { return PinnedFilesView.columnHelp(to: services.output) }
        // As delete: root first (exit 77 before anything else is said).
        guard services.isRoot else { throw NeedsRootError("reading exact sizes (--sizes exact)") }
        let view = try PinnedFilesView(output: options.output, top: options.top, bytes: options.bytes)
        let request = PinnedRequest(try named.request(selection.selection(timeZone: services.clock.timeZone)))
        let report = try ScanProgressLine.around(services) {
            try request.run(backend: services.snapshots, reader: services.backends, now: services.clock.now)
        }
        for note in report.notes { services.output.note(note) }
        for set in report.sets where services.exactScan.verbose {
            if let scan = set.pinned.scan { services.output.note("\(set.filesystem.mountpoint): \(scan.summary)") }
        }
        for kept in report.leftOut {
            services.output.note("left out: \(kept.snapshot.displayPath) (delete keeps it: \(kept.reason))")
        }
        if options.json {
            services.output.line(JSONValue.document([view.json(report.sets)]).rendered())
        } else if report.sets.isEmpty {
            services.output.line("no snapshots matched")
        } else {
            services.output.write(view.text(report.sets))
        }
    }
}
