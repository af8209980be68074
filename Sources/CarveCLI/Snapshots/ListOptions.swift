import ArgumentParser
import CarveCore

extension SizeMode: ExpressibleByArgument {}

/// The options of `carve snapshots list` that shape its output and sizes.
struct ListOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How to find sizes: auto (default: quota when quotas are on and consistent, else exact), none (fastest), quota, or exact (reads every subvolume's extents; root).",
            valueName: "mode"))
    var sizes: SizeMode?

    @Flag(name: .customLong("all-subvolumes"), help: "Also list subvolumes that are not snapshots, marked as such.")
    var allSubvolumes = false

    @Flag(
        help:
            "Show every snapshot the other criteria match, with DECISION (delete or keep) and KEPT-BY (the retention rules that keep it)."
    )
    var explain = false

    @Flag(name: .customLong("json"), help: "Print JSON: {\"snapshots\": [...]}.")
    var jsonFlag = false

    @Flag(
        help:
            "Print Prometheus metrics for node_exporter's textfile collector: counts, sizes and dates by filesystem, manager and source."
    )
    var prometheus = false

    @Option(
        name: .customLong("metrics-file"),
        help: ArgumentHelp(
            "Write the --prometheus metrics to FILE instead of stdout, as a whole (a new file renamed over FILE, mode 0644; a symlink at FILE is replaced, never followed).",
            valueName: "file"), completion: .file())
    var metricsFile: String?

    /// Metrics are printed or written: `--prometheus`, or `--metrics-file`, which implies it.
    var metrics: Bool { prometheus || metricsFile != nil }

    @OptionGroup var report: ReportOptions

    /// --prometheus is an output of its own: with another one it is bad input.
    func checkOutputs() throws(UsageError) {
        guard metrics else { return }
        if json { throw UsageError("--prometheus and --json are one or the other: metrics or a JSON listing") }
        if output != nil || explain || sort != nil {
            throw UsageError(
                "--prometheus prints every metric in a fixed form: --output, --sort and --explain do not apply")
        }
    }

    var json: Bool { report.json(jsonFlag) }

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Columns to show, comma separated; +COLS adds to the default ('--output help' lists them).",
            valueName: "columns"))
    var output: String?

    @Flag(name: [.short, .long], help: "Print sizes in bytes.")
    var bytes = false

    @Option(
        help: ArgumentHelp(
            "Sort by this column (default CREATED, oldest first; EXCL and RFER sort largest first).",
            valueName: "column"))
    var sort: String?

    /// quota and exact read trees only root may read: said before anything is listed.
    func sizeMode(isRoot: Bool) throws -> SizeMode {
        switch sizes {
        case .exact? where !isRoot:
            throw NeedsRootError.exactSizes
        case .quota? where !isRoot:
            throw NeedsRootError("reading quota sizes (--sizes quota)")
        case let mode?: return mode
        case nil: return .auto
        }
    }
}
