import ArgumentParser

/// The options of `carve snapshots pinned` that shape its output.
struct PinnedOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Show the N largest files (default: \(PinnedFilesView.screenful) in the table, every file in JSON; 0: every file).",
            valueName: "n"))
    var top: Int?

    @Flag(name: .customLong("json"), help: "Print JSON: {\"filesystems\": [{..., \"files\": [...]}]}.")
    var jsonFlag = false

    @Flag(name: [.short, .long], help: "Print sizes in bytes.")
    var bytes = false

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Columns to show, comma separated; +COLS adds to the default ('--output help' lists them).",
            valueName: "columns"))
    var output: String?

    @OptionGroup var report: ReportOptions

    var json: Bool { report.json(jsonFlag) }
}
