import CarveCore
import CarveLinux

/// What `carve devices` lists: the whole tree, or the named devices with what sits on them.
enum DeviceListing {
    /// The machine's devices, or with `--sysroot` those of the machine kept in `sysroot`.
    /// What of a `--sysroot` dump could not be read is named on stderr; a directory
    /// that is missing ends the command with status 1, nothing being listable.
    static func source(services: Services, sysroot: String?) throws -> any DeviceSource {
        guard let sysroot else { return services.devices }
        guard Files.isDirectory(sysroot) else {
            services.output.note("--sysroot \(sysroot): no such directory")
            throw CommandExit(.failure)
        }
        let source = LinuxDeviceSource(sysroot: HostRoot(sysroot))
        for problem in source.sysrootProblems { services.output.note("--sysroot \(sysroot): \(problem)") }
        return source
    }

    /// `--dump DIR`: the named devices (or all, empty ones too) and what sits on them,
    /// with every property a dump keeps, written as `DeviceDump` lays them out.
    static func dump(into directory: String, devices paths: [String], services: Services) throws {
        // DIR first: one that is not new or empty is refused before anything is read.
        let dump = try DeviceDump(directory: directory)
        let source = services.devices.includingEmpty().requesting(UdevPropertyFile.fields)
        let (forest, missing) = try forest(of: source, paths: paths)
        for message in missing { services.output.note(message) }
        var devices = DeviceTree.flattened(forest)
        // A named partition's disk holds its table and its queue: the dump keeps it too.
        let all = try source.devices()
        for device in devices {
            if let disk = device.parent, !devices.contains(where: { $0.name == disk }),
                let parent = all.first(where: { $0.name == disk })
            {
                devices.append(parent)
            }
        }
        let gone = try dump.write(devices)
        for name in gone { services.output.note("\(name): no sysfs directory, left out of the dump") }
        services.output.note("\(devices.count - gone.count) devices written to \(directory)")
        let status = DeviceListing.status(named: paths.count, missing: missing.count)
        if status != .success { throw CommandExit(status) }
    }

    /// The forest, and one message per named path that is not a block device the
    /// kernel lists. As lsblk, the devices found are shown and the others named.
    static func forest(
        of source: any DeviceSource, paths: [String]
    ) throws -> (forest: [DeviceTreeNode], missing: [String]) {
        guard !paths.isEmpty else { return (DeviceTree.build(try source.devices()), []) }
        var named: [String] = [], missing: [String] = []
        for path in paths {
            do { named.append(try source.deviceName(at: path)) } catch let error as UsageError {
                missing.append(error.message)
            }
        }
        guard !named.isEmpty else { return ([], missing) }
        return (DeviceTree.build(try source.devices(under: named), roots: named), missing)
    }

    /// lsblk's status when devices were named: 32 when none was found; carve's partial
    /// failure (4) when some were (lsblk says 64, which is carve's usage error).
    static func status(named: Int, missing: Int) -> ExitStatus {
        guard missing > 0 else { return .success }
        return missing == named ? .noDeviceFound : .partialFailure
    }

    /// `--nodeps`: the named (or top-level) devices alone, without what sits on them.
    static func withoutDependents(_ forest: [DeviceTreeNode]) -> [DeviceTreeNode] {
        forest.map { DeviceTreeNode(device: $0.device) }
    }

    /// The stderr line saying which shown columns stayed empty because a device could
    /// not be opened for probing; nil when none.
    static func rootNote(_ deniedFields: [String], shown: [String], isRoot: Bool) -> String? {
        let missing = deniedFields.filter(shown.contains)
        guard !missing.isEmpty else { return nil }
        let fields = missing.joined(separator: ", ")
        return isRoot
            ? "\(fields) missing where a device could not be opened for probing (operation not permitted)"
            : "not root: \(fields) missing where udev has no record (probing a device needs root)"
    }
}
