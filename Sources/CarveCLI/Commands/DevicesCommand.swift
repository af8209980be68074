import ArgumentParser
import CarveCore

/// `carve devices`: block devices, partitions and filesystems, as lsblk lists them.
struct DevicesCommand: ParsableCommand {
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
            """
    )

    @Argument(help: "Devices to show, with what sits on them (a /dev node or a symlink to one).", completion: .blockDevice)
    var devices: [String] = []

    @Flag(name: [.customShort("J"), .long], help: "Print JSON, as `lsblk -J -b` does.")
    var json = false

    @Flag(name: [.short, .long], help: "Print a flat list instead of a tree.")
    var list = false

    @Option(name: [.short, .long], help: "Columns to show, comma-separated; '+COLS' adds to the defaults; 'help' lists them.")
    var output: String?

    @Flag(name: [.short, .long], help: "Print sizes in bytes.")
    var bytes = false

    func run() throws {
        let services = Services.current
        if output?.lowercased() == "help" { return services.output.write(DeviceColumns.helpText) }
        let columns = try DeviceColumns.select(output)
        let forest = try DeviceListing.forest(of: services.devices, paths: devices)
        let view = DeviceListingView(forest: forest, columns: columns, list: list, bytes: bytes)
        services.output.write(json ? view.json().rendered() + "\n" : view.table())
        let denied = services.devices.fieldsNeedingRoot(on: Set(DeviceTree.flattened(forest).map(\.name)))
        if let note = DeviceListing.rootNote(denied, shown: columns.map(\.name), isRoot: services.isRoot) {
            services.output.note(note)
        }
    }
}
