import ArgumentParser
import CarveCore

/// `carve devices`: block devices, partitions and filesystems, as lsblk lists them.
struct DevicesCommand: ParsableCommand {
    /// The exit statuses it can end with: its help and man page list these.
    static let exitStatuses: [ExitStatus] = [.success, .failure, .partialFailure, .noDeviceFound, .usage]

    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List block devices, partitions and filesystems.",
        usage: "carve devices [<options>] [<devices> ...]",
        discussion: """
            Shows a tree like lsblk: disks with their partitions, and stacked devices \
            under the devices they sit on. Properties come from the udev database first, \
            then from probing the device with libblkid for whatever udev lacks (probing \
            needs root), then from sysfs and the mount table. --json prints the keys and \
            value types of `lsblk -J -b` for the same columns.

            Examples:
              $ carve devices
              $ carve devices --json /dev/loop0
              $ carve devices --list --output NAME,SIZE,PARTUUID,PTTYPE
              $ carve devices -rno NAME,FSTYPE,FSAVAIL
              $ carve devices -dPo NAME,SIZE,MODEL

            FSSIZE, FSUSED, FSAVAIL and FSUSE% are statvfs(3) of the filesystem's \
            mountpoint, empty (null in JSON) when it is not mounted. Named devices that \
            are not found are named on stderr and the others are listed; the exit \
            status is then 32 when none was found, 4 when some were.
            """
    )

    @Argument(
        help: "Devices to show, with what sits on them (a /dev node or a symlink to one).", completion: .blockDevice)
    var devices: [String] = []

    @OptionGroup var options: DeviceListingOptions

    @Option(
        help: ArgumentHelp(
            "Read /sys, /proc and the udev records of a machine kept in DIR (a util-linux dump, or one --dump made) instead of this one's; nothing is probed.",
            valueName: "DIR"), completion: .directory)
    var sysroot: String?

    @Option(
        help: ArgumentHelp(
            "Write what --sysroot needs of this machine (or of the named devices) into DIR, for a bug report or a test, and list nothing. DIR is made (or must be empty); nothing is written through a symlink in it.",
            valueName: "DIR"), completion: .directory)
    var dump: String?

    func validate() throws {
        if dump != nil && sysroot != nil { throw ValidationError("--dump and --sysroot are mutually exclusive") }
    }

    func run() throws {
        let services = Services.current
        if options.output?.lowercased() == "help" { return services.output.write(DeviceColumns.helpText) }
        let listing = try DeviceListingRun(options: options, devices: devices, sysroot: sysroot, services: services)
        if let dump { return try DeviceListing.dump(into: dump, devices: devices, services: services) }
        let status = try listing.run()
        if status != .success { throw CommandExit(status) }
    }
}
