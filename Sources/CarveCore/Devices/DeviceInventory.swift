/// Assembles the machine's block devices from separate sources, merged in a
/// stated order as lsblk does: enumeration names the devices; sysfs gives their
/// geometry, flags and stacking; then each property source in turn fills only the
/// fields still unknown, so an earlier source (the udev database) always wins over
/// a later one (libblkid probing); last, the mount table gives mountpoints.
public struct DeviceInventory: Sendable {
    public var enumerator: any BlockDeviceEnumerator
    public var attributes: any DeviceAttributeSource
    /// Earlier sources win: a later source only fills what the earlier ones lack.
    public var propertySources: [any DevicePropertySource]
    public var mounts: any MountTable
    /// The fields a listing shows: sources are asked only for these, so a sysfs
    /// attribute no column needs is never read. The standard fields always are.
    public var requested: Set<DeviceField> = DeviceField.standard
    /// `--all`: list the devices lsblk hides by default too (see `listedDevices`).
    public var includesHidden = false

    public init(
        enumerator: any BlockDeviceEnumerator, attributes: any DeviceAttributeSource,
        propertySources: [any DevicePropertySource], mounts: any MountTable
    ) {
        self.enumerator = enumerator; self.attributes = attributes
        self.propertySources = propertySources; self.mounts = mounts
    }

    /// The devices, and the fields that stayed unknown because a source was denied.
    public struct Result: Sendable {
        /// Every listed device, each disk followed by its partitions.
        public var devices: [BlockDevice]
        /// Per device (kernel name): the fields that stayed unknown because a source
        /// was denied for lack of privileges.
        public var deniedFields: [String: Set<DeviceField>]

        public init(devices: [BlockDevice], deniedFields: [String: Set<DeviceField>] = [:]) {
            self.devices = devices
            self.deniedFields = deniedFields
        }

        /// Column names, e.g. ["FSTYPE", "LABEL"], in a fixed order; for the named devices, or all.
        public func fieldsNeedingRoot(on names: Set<String>? = nil) -> [String] {
            var denied = Set<DeviceField>()
            for (name, fields) in deniedFields where names?.contains(name) ?? true { denied.formUnion(fields) }
            return DeviceField.allCases.filter(denied.contains).map(\.rawValue)
        }
    }

    /// Every listed device with its properties and mountpoints; with `names`, only
    /// those devices (and the disks of partitions among them) are described and returned.
    /// `listed` is `listedDevices()` when the caller has it already.
    public func collect(restrictedTo names: Set<String>? = nil, listed: [BlockDevice]? = nil) throws -> Result {
        var devices = try listed ?? listedDevices(includingHidden: includesHidden)
        if let names {
            let wanted = names.union(devices.filter { names.contains($0.name) }.compactMap(\.parent))
            devices = devices.filter { wanted.contains($0.name) }
        }
        var denied: [String: Set<DeviceField>] = [:]
        // Disks come before their partitions, so a partition's source sees its disk
        // already merged (its partition table known) and need not probe it again.
        var merged: [String: BlockDevice] = [:]
        for index in devices.indices {
            let parent = devices[index].parent.flatMap { merged[$0] }
            var deniedHere = Set<DeviceField>()
            devices[index].properties = mergedProperties(of: devices[index], parent: parent, denied: &deniedHere)
            if !deniedHere.isEmpty { denied[devices[index].name] = deniedHere }
            merged[devices[index].name] = devices[index]
        }
        DeviceInventory.attachMountpoints(to: &devices, from: try mounts.mounts())
        return Result(devices: devices, deniedFields: denied)
    }

    /// Enumerated devices with their sysfs attributes only (no property source is
    /// asked), without what lsblk hides by default: RAM disks (major 1) and loop
    /// devices with no file attached. `includingHidden` keeps those too, for a
    /// device named on the command line, which lsblk shows whatever it is.
    public func listedDevices(includingHidden: Bool = false) throws -> [BlockDevice] {
        var devices: [BlockDevice] = []
        for entry in try enumerator.blockDevices() {
            guard let sysfs = try attributes.attributes(of: entry.name) else { continue }
            if !includingHidden && DeviceInventory.isHiddenByDefault(entry.name, sysfs) { continue }
            devices.append(BlockDevice(entry, sysfs))
        }
        return DeviceInventory.parentsFirst(devices)
    }

    /// The named devices and all that sits on them (partitions, holders, theirs in
    /// turn), hidden ones included, and the disk of each named partition (its table
    /// describes the partition): what a listing of named devices shows, read as lsblk
    /// reads it, without the attributes of every other device on the machine.
    /// `dependents: false` leaves out what sits on them: the named devices alone.
    public func listedDevices(under roots: [String], dependents: Bool = true) throws -> [BlockDevice] {
        let entries = try enumerator.blockDevices()
        let byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // One parent lookup per device, once, when a whole device is reached.
        var partitionsByDisk: [String: [String]]?
        func partitions(of disk: String) -> [String] {
            if partitionsByDisk == nil {
                var found: [String: [String]] = [:]
                for entry in entries {
                    if let parent = attributes.parentName(of: entry.name) {
                        found[parent, default: []].append(entry.name)
                    }
                }
                partitionsByDisk = found
            }
            return partitionsByDisk?[disk] ?? []
        }
        var seen = Set<String>()
        var queue = roots.filter { byName[$0] != nil && seen.insert($0).inserted }
        var devices: [BlockDevice] = []
        var disksOfNamed: [String] = []
        while !queue.isEmpty {
            let name = queue.removeFirst()
            guard let entry = byName[name], let sysfs = try attributes.attributes(of: name) else { continue }
            let device = BlockDevice(entry, sysfs)
            devices.append(device)
            if let disk = device.parent, roots.contains(name) { disksOfNamed.append(disk) }
            guard dependents else { continue }
            let above = (device.parent == nil ? partitions(of: name) : []) + device.holders
            for next in above where byName[next] != nil && seen.insert(next).inserted { queue.append(next) }
        }
        for disk in disksOfNamed where seen.insert(disk).inserted {
            guard let entry = byName[disk], let sysfs = try attributes.attributes(of: disk) else { continue }
            devices.append(BlockDevice(entry, sysfs))
        }
        return DeviceInventory.parentsFirst(devices)
    }

    static func isHiddenByDefault(_ name: String, _ sysfs: SysfsDevice) -> Bool {
        if sysfs.number.major == 1 { return true }
        return name.hasPrefix("loop") && sysfs.parent == nil && sysfs.size == 0 && !sysfs.hasBackingFile
    }

    func mergedProperties(
        of device: BlockDevice, parent: BlockDevice?, denied: inout Set<DeviceField>
    ) -> DeviceProperties {
        var known = DeviceProperties()
        var deniedHere = Set<DeviceField>()
        var hadRecord = false
        // Fields an earlier whole-probe record showed to be absent: no later source probes for them.
        var settled = Set<DeviceField>()
        for source in propertySources {
            let wanted = source.fields.filter {
                requested.contains($0) && !$0.isKnown(in: known) && !settled.contains($0)
            }
            guard !wanted.isEmpty else { continue }
            do {
                // A source sees what the earlier ones found (a type name needs the type code).
                var current = device
                if !known.values.isEmpty { current.properties = known.filling(from: device.properties) }
                if let found = try source.properties(of: current, parent: parent, wanted: wanted) {
                    known = known.filling(from: found)
                    hadRecord = true
                    if source.recordsWholeProbes { settled.formUnion(DeviceField.settled(by: found)) }
                }
            } catch let error as any ReportableError where error.exitStatus == .needsRoot {
                // Where an earlier source had a record (udev's), what it lacks is most
                // likely absent from the device too: only a device no source could
                // describe is reported as needing root.
                if !hadRecord { deniedHere.formUnion(wanted) }
            } catch {
                // A device that cannot be probed (no medium, I/O error) is listed
                // with what the other sources know, as lsblk lists it.
                continue
            }
        }
        // sysfs hardware identification is the last resort, after every content source.
        let merged = known.filling(from: device.properties)
        denied.formUnion(deniedHere.filter { !$0.isKnown(in: merged) })
        return merged
    }

    /// Orders devices as lsblk does: whole devices by device number, each followed
    /// by its partitions in disk order.
    static func parentsFirst(_ devices: [BlockDevice]) -> [BlockDevice] {
        let byNumber: (BlockDevice, BlockDevice) -> Bool = {
            ($0.number.major, $0.number.minor) < ($1.number.major, $1.number.minor)
        }
        let names = Set(devices.map(\.name))
        let wholes = devices.filter { $0.parent == nil || !names.contains($0.parent!) }.sorted(by: byNumber)
        var partitions: [String: [BlockDevice]] = [:]
        for device in devices where device.parent != nil && names.contains(device.parent!) {
            partitions[device.parent!, default: []].append(device)
        }
        return wholes.flatMap { whole in
            [whole] + (partitions[whole.name] ?? []).sorted { ($0.start ?? 0, $0.name) < ($1.start ?? 0, $1.name) }
        }
    }

    /// Adds each mount to the devices it belongs to: by device number; for btrfs,
    /// whose mounts carry an anonymous 0:NN number, by the mount source path, then
    /// to every device of the same btrfs filesystem (same UUID), as lsblk groups them.
    /// Latest mount first: lsblk walks the mount table backwards, and scripts compare orders.
    public static func attachMountpoints(to devices: inout [BlockDevice], from mounts: [MountEntry]) {
        var rootShown = Set<String>()
        for mount in mounts.reversed() {
            var targets = Set(devices.indices.filter { devices[$0].number == mount.number })
            // A multi-device filesystem (bcachefs) names all its members: "/dev/sdc1:/dev/sdc2".
            let members = mount.source.split(separator: ":").map(String.init)
            if members.count > 1, members.allSatisfy({ $0.hasPrefix("/dev/") }) {
                targets.formUnion(devices.indices.filter { members.contains(devices[$0].path) })
            }
            if targets.isEmpty, mount.source.hasPrefix("/") {
                let bySource = devices.indices.filter { devices[$0].path == mount.source }
                targets.formUnion(bySource)
                for index in bySource where devices[index].properties.fsType == "btrfs" {
                    guard let uuid = devices[index].properties.uuid else { continue }
                    targets.formUnion(
                        devices.indices.filter {
                            devices[$0].properties.fsType == "btrfs" && devices[$0].properties.uuid == uuid
                        })
                }
            }
            for index in targets.sorted() where !devices[index].mountpoints.contains(mount.mountpoint) {
                devices[index].mountpoints.append(mount.mountpoint)
                if mount.mountpoint != "[SWAP]" { devices[index].fsRoots.append(mount.root) }
                primary(of: &devices[index], mount, rootShown: &rootShown)
            }
        }
    }

    /// lsblk's single mountpoint: the latest mount, but a mount of the filesystem's
    /// root ("/") wins over a latest mount of a subvolume or subdirectory.
    private static func primary(of device: inout BlockDevice, _ mount: MountEntry, rootShown: inout Set<String>) {
        if device.primaryMountpoint == nil || (!rootShown.contains(device.name) && mount.root == "/") {
            device.primaryMountpoint = mount.mountpoint
            if mount.root == "/" { rootShown.insert(device.name) }
        }
    }
}

extension BlockDevice {
    /// A device as enumeration and sysfs describe it, before any property source.
    init(_ entry: EnumeratedDevice, _ sysfs: SysfsDevice) {
        self.init(
            name: entry.name, path: entry.node,
            kind: .classify(name: entry.name, isPartition: sysfs.parent != nil, dmUUID: sysfs.dmUUID),
            number: sysfs.number, size: sysfs.size, sectorSize: sysfs.logicalBlockSize, readOnly: sysfs.readOnly,
            removable: sysfs.removable, rotational: sysfs.rotational, parent: sysfs.parent, start: sysfs.start,
            holders: sysfs.holders, slaves: sysfs.slaves,
            properties: DeviceProperties(partNumber: sysfs.partitionNumber, model: sysfs.model, serial: sysfs.serial)
        )
        mapperName = sysfs.dmName
        let shown = kind.typeName(dmUUID: sysfs.dmUUID, mdLevel: sysfs.mdLevel)
        typeName = shown == kind.rawValue ? nil : shown
        // udev's /dev/dm-N is a real node, but lsblk names dm devices by their mapper path.
        if let dmName = sysfs.dmName, entry.node == nil || entry.node == "/dev/\(entry.name)" {
            path = "/dev/mapper/\(dmName)"
        }
    }
}
