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
        let columns = try DeviceColumns.select(options.output, sets: options.columnSets, all: options.outputAll)
        let sortColumn = try options.sort.map(DeviceColumns.column(named:))
        if let dump { return try DeviceListing.dump(into: dump, devices: devices, services: services) }
        var source = try DeviceListing.source(services: services, sysroot: sysroot)
            .requesting(DeviceColumns.fields(of: columns + (sortColumn.map { [$0] } ?? [])))
        if options.all { source = source.includingEmpty() }
        var (forest, missing) = try DeviceListing.forest(of: source, paths: devices)
        for message in missing { services.output.note(message) }
        // A dump with nothing listable: the notes above said why.
        if sysroot != nil && devices.isEmpty && forest.isEmpty { throw CommandExit(.failure) }
        // As lsblk, the majors filter the top-level devices of a whole listing only.
        if devices.isEmpty { forest = try options.majorFilter().apply(forest) }
        // lsblk -S: SCSI devices only; a named device that is not one counts as not found, silently.
        var notSCSI = 0
        if options.scsi {
            let kept = forest.filter { $0.device.properties[.hctl] != nil }
            notSCSI = forest.count - kept.count
            forest = kept
        }
        if options.nodeps || options.scsi { forest = DeviceListing.withoutDependents(forest) }
        var view = options.view(of: forest, columns: columns)
        view.ascii = !services.localeIsUTF8
        view.sortColumn = sortColumn
        if sortColumn != nil {
            view.entryOrder = source.entryOrder()
            view.named = devices.compactMap { try? source.deviceName(at: $0) }
        }
        if columns.contains(where: { DeviceColumns.spaceColumns.contains($0.name) }) {
            view.space = services.filesystemSpace
        }
        services.output.write(view.rendered())
        let denied = source.fieldsNeedingRoot(on: Set(DeviceTree.flattened(forest).map(\.name)))
        if let note = DeviceListing.rootNote(denied, shown: columns.map(\.name), isRoot: services.isRoot) {
            services.output.note(note)
        }
        let status = DeviceListing.status(named: devices.count, missing: missing.count + notSCSI)
        if status != .success { throw CommandExit(status) }
    }
}
