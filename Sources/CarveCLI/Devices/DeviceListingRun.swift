import CarveCore

/// One `carve devices` listing, as lsblk makes it: the devices from the property
/// sources, the filters of the options (majors, SCSI only, no dependents), the view in
/// the chosen columns and order, and the notes and exit status lsblk would give.
struct DeviceListingRun {
    let options: DeviceListingOptions
    /// The devices named on the command line; empty: every one.
    let devices: [String]
    let sysroot: String?
    let services: Services
    let columns: [Column<DeviceRow>]
    let sortColumn: Column<DeviceRow>?

    /// Checks the columns and the sort column first: a bad one is bad input whatever else.
    init(options: DeviceListingOptions, devices: [String], sysroot: String?, services: Services) throws {
        self.options = options; self.devices = devices; self.sysroot = sysroot; self.services = services
        columns = try DeviceColumns.select(options.output, sets: options.columnSets, all: options.outputAll)
        sortColumn = try options.sort.map(DeviceColumns.column(named:))
    }

    /// Lists, prints and returns the exit status: 32 when no named device was found, 4
    /// when some were not.
    func run() throws -> ExitStatus {
        var source = try DeviceListing.source(services: services, sysroot: sysroot)
            .requesting(DeviceColumns.fields(of: columns + (sortColumn.map { [$0] } ?? [])))
        if options.all { source = source.includingEmpty() }
        var (forest, missing) = try DeviceListing.forest(of: source, paths: devices)
        for message in missing { services.output.note(message) }
        // A dump with nothing listable: the notes above said why.
        if sysroot != nil && devices.isEmpty && forest.isEmpty { return .failure }
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
        services.output.write(view(of: forest, source: source).rendered())
        let denied = source.fieldsNeedingRoot(on: Set(DeviceTree.flattened(forest).map(\.name)))
        if let note = DeviceListing.rootNote(denied, shown: columns.map(\.name), isRoot: services.isRoot) {
            services.output.note(note)
        }
        return DeviceListing.status(named: devices.count, missing: missing.count + notSCSI)
    }

    private func view(of forest: [DeviceTreeNode], source: any DeviceSource) -> DeviceListingView {
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
        return view
    }
}
