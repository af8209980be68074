import ArgumentParser
import CarveCore

/// `carve check DEVICE (--shrink-to SIZE | --shrink-by SIZE | --new-partition SIZE | --remove) [--json]`
struct CheckCommand: ParsableCommand {
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
            Read-only: nothing is written to any device. Exit status 0 when it fits, 3 when it \
            does not (every blocker and remedy is listed), 64 for bad input.

            Examples:
              $ carve check /dev/sda2 --shrink-to 40G
              $ carve check /dev/sda2 --shrink-by 10G --json
              $ carve check /dev/sda --new-partition 20G
              $ carve check /dev/sdc --remove
            """
    )

    @Argument(help: "A partition or whole-device filesystem to shrink, or a disk for --new-partition.", completion: .blockDevice)
    var device: String

    @Option(name: .customLong("shrink-to"), parsing: .unconditional, help: ArgumentHelp("Shrink the filesystem and its partition to SIZE.", valueName: "SIZE"))
    var shrinkTo: String?

    @Option(name: .customLong("shrink-by"), parsing: .unconditional, help: ArgumentHelp("Shrink the filesystem and its partition by SIZE.", valueName: "SIZE"))
    var shrinkBy: String?

    @Option(name: .customLong("new-partition"), parsing: .unconditional, help: ArgumentHelp("Find room for a new partition of SIZE on the disk.", valueName: "SIZE"))
    var newPartition: String?

    @Flag(help: "Take the device out of its multi-device btrfs (btrfs device remove): can the other devices hold everything?")
    var remove = false

    @Flag(name: .customLong("json"), help: "Print the report as JSON.")
    var jsonFlag = false

    @OptionGroup var reportOptions: ReportOptions

    func run() throws {
        let operation = try requestedOperation()
        let services = reportOptions.shaped(Services.current)
        let report = try Check.run(device: device, operation: operation, in: services.checkEnvironment)
        if reportOptions.json(jsonFlag) {
            services.output.write(CheckReportView.json(report).rendered() + "\n")
        } else if !reportOptions.quiet {
            services.output.write(CheckReportView.text(report))
        }
        guard report.verdict == .fits else { throw CommandExit(.doesNotFit) }
    }
}
