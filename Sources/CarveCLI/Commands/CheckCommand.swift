import ArgumentParser
import CarveCore

/// `carve check DEVICE (--shrink-to SIZE | --shrink-by SIZE | --new-partition SIZE | --remove) [--json]`
struct CheckCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [.success, .failure, .doesNotFit, .usage, .needsRoot]

    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that a shrink, a new partition or a device removal fits, and say what is in the way.",
        usage: """
            carve check <device> --shrink-to <SIZE> [--json]
            carve check <device> --shrink-by <SIZE> [--json]
            carve check <disk> --new-partition <SIZE> [--json]
            carve check <device> --remove [--json]
            """,
        discussion: """
            Read-only: nothing is written to any device. When it does not fit, every blocker and remedy \
            is listed. \(ExitStatus.summary(exitStatuses)) When it fits, Steps \
            lists the commands that make it real, in the order safe for the filesystem, with a \
            guard that stops them if the partition table changed since the check; the timers that \
            would take snapshots meanwhile are named with the commands that pause them.

            Examples:
              $ carve check /dev/sda2 --shrink-to 40G
              $ carve check /dev/sda2 --shrink-by 10G --json
              $ carve check /dev/sda --new-partition 20G
              $ carve check /dev/sdc --remove
            """
    )

    @Argument(
        help: "A partition or whole-device filesystem to shrink, or a disk for --new-partition.",
        completion: .blockDevice)
    var device: String

    @OptionGroup var operationOptions: CheckOperationOptions

    @Flag(name: .customLong("json"), help: "Print the report as JSON.")
    var jsonFlag = false

    @OptionGroup var reportOptions: ReportOptions

    func run() throws {
        let operation = try operationOptions.operation()
        let services = reportOptions.shaped(Services.current)
        let report = try ExactScanOptions.$current.withValue(services.exactScan) {
            try Check.run(device: device, operation: operation, in: services.checkEnvironment)
        }
        if reportOptions.json(jsonFlag) {
            services.output.write(CheckReportView.json(report).rendered() + "\n")
        } else if !reportOptions.quiet {
            services.output.write(CheckReportView.text(report))
        }
        guard report.verdict == .fits else { throw CommandExit(.doesNotFit) }
    }
}
