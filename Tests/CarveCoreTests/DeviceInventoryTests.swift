import CarveCore
import Testing

private struct ListedNames: BlockDeviceEnumerator {
    var names: [String]
    func blockDevices() throws -> [EnumeratedDevice] { names.map { EnumeratedDevice(name: $0, node: "/dev/\($0)") } }
}

private struct FixedSysfs: DeviceAttributeSource {
    var devices: [String: SysfsDevice]
    func attributes(of name: String) throws -> SysfsDevice? { devices[name] }
}

private struct FixedMounts: MountTable {
    var entries: [MountEntry] = []
    func mounts() throws -> [MountEntry] { entries }
}

/// A property source answering from a table, or failing, and counting what it was asked.
private final class TableSource: DevicePropertySource, @unchecked Sendable {
    let name: String
    let fields: Set<DeviceField>
    let table: [String: DeviceProperties]
    let failure: (any Error)?
    private(set) var asked: [String] = []
    private(set) var parents: [String: String] = [:]

    let recordsWholeProbes: Bool

    init(
        _ name: String, fields: Set<DeviceField> = Set(DeviceField.allCases), _ table: [String: DeviceProperties] = [:],
        failing failure: (any Error)? = nil, wholeProbes: Bool = false
    ) {
        self.name = name; self.fields = fields; self.table = table; self.failure = failure;
        recordsWholeProbes = wholeProbes
    }

    func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        asked.append(device.name)
        if let parent { parents[device.name] = parent.name }
        if let failure { throw failure }
        return table[device.name]
    }
}

/// Records the partition table type of the parent each partition is asked with.
private final class ParentSpy: DevicePropertySource, @unchecked Sendable {
    let name = "spy"
    let fields = Set(DeviceField.allCases)
    private(set) var seen: [String: String] = [:]
    func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        if let parent { seen[device.name] = parent.properties.ptType ?? "nil" }
        return nil
    }
}

private func sysfs(
    _ major: UInt32, _ minor: UInt32, size: UInt64 = 1 << 30, parent: String? = nil, start: UInt64? = nil,
    holders: [String] = [], slaves: [String] = [], backed: Bool = false
) -> SysfsDevice {
    SysfsDevice(
        number: DeviceNumber(major: major, minor: minor), size: size, parent: parent, start: start,
        holders: holders, slaves: slaves, hasBackingFile: backed)
}

private func mount(_ number: DeviceNumber, at mountpoint: String, source: String, fsType: String) -> MountEntry {
    MountEntry(
        mountID: 1, parentID: 0, number: number, root: "/", mountpoint: mountpoint, options: ["rw"],
        fsType: fsType, source: source, superOptions: ["rw"])
}

@Suite struct DeviceInventoryTests {
    let disk = [
        "sda": sysfs(8, 0), "sda1": sysfs(8, 1, parent: "sda", start: 2048),
        "sda2": sysfs(8, 2, parent: "sda", start: 4096),
    ]

    func inventory(
        _ names: [String], _ attributes: [String: SysfsDevice], _ sources: [any DevicePropertySource],
        mounts: [MountEntry] = []
    ) -> DeviceInventory {
        DeviceInventory(
            enumerator: ListedNames(names: names), attributes: FixedSysfs(devices: attributes),
            propertySources: sources, mounts: FixedMounts(entries: mounts))
    }

    /// As lsblk: a udev record that holds a probe result is the whole truth about the
    /// device's content, so a filesystem without a label is not probed for one.
    @Test func aRecordWithAProbeResultIsNotProbedAgain() throws {
        let udev = TableSource(
            "udev",
            [
                "sda": DeviceProperties(ptType: "gpt", model: "DISK"),
                "sda1": DeviceProperties(fsType: "ext4", partUUID: "p1", partNumber: 1),
                "sda2": DeviceProperties(model: "DISK"),
            ], wholeProbes: true)
        let blkid = TableSource("blkid", fields: DeviceField.probed, ["sda2": DeviceProperties(fsType: "vfat")])
        let result = try inventory(["sda", "sda1", "sda2"], disk, [udev, blkid]).collect()
        #expect(blkid.asked == ["sda2"], "only the device whose record holds no probe result is probed")
        #expect(result.devices.first { $0.name == "sda1" }?.properties.label == nil)
        #expect(result.devices.first { $0.name == "sda2" }?.properties.fsType == "vfat")
    }

    @Test func udevValueWinsOverBlkidValue() throws {
        let udev = TableSource("udev", ["sda1": DeviceProperties(fsType: "ext4", label: "from udev")])
        let blkid = TableSource("blkid", ["sda1": DeviceProperties(fsType: "ext2", label: "from blkid")])
        let result = try inventory(["sda", "sda1"], disk, [udev, blkid]).collect()
        let part = try #require(result.devices.first { $0.name == "sda1" })
        #expect(part.properties.fsType == "ext4")
        #expect(part.properties.label == "from udev")
    }

    @Test func blkidFillsWhatUdevLacks() throws {
        let udev = TableSource("udev", ["sda1": DeviceProperties(fsType: "ext4")])
        let blkid = TableSource("blkid", ["sda1": DeviceProperties(fsType: "ext2", uuid: "u-1", label: "data")])
        let part = try #require(
            try inventory(["sda", "sda1"], disk, [udev, blkid]).collect().devices.first { $0.name == "sda1" })
        #expect(part.properties == DeviceProperties(fsType: "ext4", uuid: "u-1", label: "data"))
    }

    @Test func everythingComesFromBlkidWhenUdevHasNoRecord() throws {
        let blkid = TableSource("blkid", ["sda": DeviceProperties(ptType: "gpt", ptUUID: "pt-1")])
        let result = try inventory(["sda"], disk, [TableSource("udev"), blkid]).collect()
        #expect(result.devices[0].properties == DeviceProperties(ptType: "gpt", ptUUID: "pt-1"))
    }

    @Test func laterSourceIsNotAskedWhenItsFieldsAreKnown() throws {
        let udev = TableSource("udev", ["sda": DeviceProperties(fsType: "xfs", uuid: "u", label: "l")])
        let blkid = TableSource("blkid", fields: [.fsType, .uuid, .label])
        _ = try inventory(["sda"], disk, [udev, blkid]).collect()
        #expect(blkid.asked.isEmpty)
    }

    @Test func restrictedCollectionAsksSourcesOnlyAboutTheNamedDevicesAndTheirDisks() throws {
        var attributes = disk
        attributes["loop0"] = sysfs(7, 0)
        let blkid = TableSource("blkid", ["sda": DeviceProperties(ptType: "gpt")])
        let result = try inventory(["sda", "sda1", "sda2", "loop0"], attributes, [blkid]).collect(restrictedTo: ["sda2"]
        )
        #expect(result.devices.map(\.name) == ["sda", "sda2"])
        #expect(blkid.asked == ["sda", "sda2"])
    }

    @Test func partitionsAreProbedWithTheirDisk() throws {
        let blkid = TableSource("blkid")
        _ = try inventory(["sda1", "sda"], disk, [blkid]).collect()
        #expect(blkid.parents == ["sda1": "sda"])
    }

    @Test func deniedSourceIsReportedOnlyWhereNoEarlierSourceHadARecord() throws {
        let udev = TableSource("udev", ["sda1": DeviceProperties(fsType: "ext4")])
        let blkid = TableSource("blkid", fields: [.fsType, .label, .uuid], failing: NeedsRootError("probing"))
        let result = try inventory(["sda", "sda1"], disk, [udev, blkid]).collect()
        #expect(result.fieldsNeedingRoot(on: ["sda1"]).isEmpty, "udev described sda1")
        #expect(result.fieldsNeedingRoot(on: ["sda"]) == ["FSTYPE", "UUID", "LABEL"])
        #expect(result.fieldsNeedingRoot() == ["FSTYPE", "UUID", "LABEL"])
    }

    @Test func partitionsSeeTheirDiskAlreadyMerged() throws {
        let udev = TableSource("udev", ["sda": DeviceProperties(ptType: "gpt", ptUUID: "pt-1")])
        let spy = ParentSpy()
        _ = try inventory(["sda1", "sda"], disk, [udev, spy]).collect()
        #expect(spy.seen == ["sda1": "gpt"])
    }

    @Test func aPermissionSystemCallErrorCountsAsNeedingRoot() throws {
        let blkid = TableSource(
            "blkid", fields: [.fsType], failing: SystemCallError("cannot probe", call: "open", errno: 13))
        #expect(try inventory(["sda"], disk, [blkid]).collect().fieldsNeedingRoot() == ["FSTYPE"])
    }

    @Test func aDeviceThatCannotBeProbedIsStillListed() throws {
        let blkid = TableSource("blkid", failing: SystemCallError("cannot probe", call: "blkid_do_safeprobe", errno: 5))
        let result = try inventory(["sda"], disk, [blkid]).collect()
        #expect(result.devices.map(\.name) == ["sda"])
        #expect(result.fieldsNeedingRoot().isEmpty)
    }

    @Test func hidesRamDisksAndLoopDevicesWithoutFile() throws {
        let attributes = [
            "ram0": sysfs(1, 0), "loop0": sysfs(7, 0, size: 0), "loop1": sysfs(7, 1, size: 0, backed: true),
            "loop2": sysfs(7, 2), "zram0": sysfs(253, 0, size: 0),
        ]
        let names = try inventory(["ram0", "loop0", "loop1", "loop2", "zram0"], attributes, []).collect().devices.map(
            \.name)
        #expect(names == ["loop1", "loop2", "zram0"])
    }

    @Test func hiddenDevicesAreListedWhenAsked() throws {
        let attributes = ["ram0": sysfs(1, 0), "loop0": sysfs(7, 0, size: 0), "loop2": sysfs(7, 2)]
        let all = try inventory(["ram0", "loop0", "loop2"], attributes, []).listedDevices(includingHidden: true)
        #expect(all.map(\.name) == ["ram0", "loop0", "loop2"])
        let result = try inventory(["ram0", "loop0", "loop2"], attributes, []).collect(
            restrictedTo: ["loop0"], listed: all)
        #expect(result.devices.map(\.name) == ["loop0"])
    }

    @Test func ordersDisksByNumberWithTheirPartitionsAfterThem() throws {
        var attributes = disk
        attributes["loop0"] = sysfs(7, 0)
        attributes["loop0p1"] = sysfs(259, 0, parent: "loop0", start: 2048)
        let devices = try inventory(["sda2", "loop0p1", "sda1", "sda", "loop0"], attributes, []).collect().devices
        #expect(devices.map(\.name) == ["loop0", "loop0p1", "sda", "sda1", "sda2"])
        #expect(devices.map(\.kind) == [.loop, .part, .disk, .part, .part])
    }

    @Test func mountpointsByDeviceNumber() throws {
        let mounts = [
            mount(DeviceNumber(major: 8, minor: 1), at: "/srv", source: "/dev/sda1", fsType: "ext4"),
            mount(DeviceNumber(major: 8, minor: 1), at: "/mnt/again", source: "/dev/sda1", fsType: "ext4"),
            mount(DeviceNumber(major: 0, minor: 25), at: "/tmp", source: "tmpfs", fsType: "tmpfs"),
        ]
        let devices = try inventory(["sda", "sda1"], disk, [], mounts: mounts).collect().devices
        #expect(devices.map(\.mountpoints) == [[], ["/mnt/again", "/srv"]], "latest first, as lsblk")
    }

    /// btrfs mounts carry an anonymous 0:NN number: they are found by source path,
    /// and shown on every device of the same filesystem.
    @Test func btrfsMountsBySourceAndFilesystemUUID() throws {
        let btrfs = DeviceProperties(fsType: "btrfs", uuid: "fs-1")
        let udev = TableSource("udev", ["sda1": btrfs, "sda2": btrfs])
        let mounts = [
            mount(DeviceNumber(major: 0, minor: 41), at: "/data", source: "/dev/sda2", fsType: "btrfs"),
            mount(DeviceNumber(major: 0, minor: 41), at: "/home", source: "/dev/sda2", fsType: "btrfs"),
        ]
        let devices = try inventory(["sda", "sda1", "sda2"], disk, [udev], mounts: mounts).collect().devices
        #expect(devices.map(\.mountpoints) == [[], ["/home", "/data"], ["/home", "/data"]])
    }

    @Test func deviceMapperDevicesAreNamedAndPathedByTheirMapperName() throws {
        var attributes = disk
        attributes["dm-0"] = SysfsDevice(
            number: DeviceNumber(major: 254, minor: 0), size: 1 << 20, slaves: ["sda2"],
            dmUUID: "CRYPT-LUKS2-x", dmName: "cryptroot")
        let dm = try #require(
            try inventory(["sda", "sda2", "dm-0"], attributes, []).collect().devices.first { $0.name == "dm-0" })
        #expect(dm.displayName == "cryptroot" && dm.path == "/dev/mapper/cryptroot" && dm.kind == .crypt)
    }

    @Test func sysfsHardwareNamesComeLast() throws {
        var attributes = disk
        attributes["sda"]?.model = "SYSFS MODEL"
        attributes["sda"]?.serial = "sysfs-serial"
        let udev = TableSource("udev", ["sda": DeviceProperties(model: "Udev Model")])
        let device = try inventory(["sda"], attributes, [udev]).collect().devices[0]
        #expect(device.properties.model == "Udev Model")
        #expect(device.properties.serial == "sysfs-serial")
    }

    @Test(
        arguments: [
            ("sda", false, nil, DeviceKind.disk), ("sda1", true, nil, .part), ("loop3", false, nil, .loop),
            ("dm-0", false, "CRYPT-LUKS2-abc", .crypt), ("dm-1", false, "LVM-xyz", .lvm), ("dm-2", false, nil, .dm),
            ("sr0", false, nil, .rom), ("md0", false, nil, .raid), ("loop3p1", true, nil, .part),
        ] as [(String, Bool, String?, DeviceKind)])
    func classifiesKinds(name: String, isPartition: Bool, dmUUID: String?, kind: DeviceKind) {
        #expect(DeviceKind.classify(name: name, isPartition: isPartition, dmUUID: dmUUID) == kind)
    }

    /// TYPE as lsblk words it: the md level, the DM UUID's owner (kpartx's partN- as part).
    @Test(
        arguments: [
            (DeviceKind.raid, nil, "raid1", "raid1"), (.raid, nil, "RAID10", "raid10"),
            (.raid, nil, "linear", "linear"),
            (.raid, nil, nil, "md"), (.raid, nil, "", "md"), (.crypt, "CRYPT-LUKS2-abc", nil, "crypt"),
            (.lvm, "LVM-xyz", nil, "lvm"),
            (.dm, "mpath-3600", nil, "mpath"), (.dm, "part1-mpath-3600", nil, "part"), (.dm, "DMRAID-x", nil, "dmraid"),
            (.dm, nil, nil, "dm"), (.dm, "", nil, "dm"), (.disk, nil, "raid1", "disk"), (.loop, nil, nil, "loop"),
        ] as [(DeviceKind, String?, String?, String)])
    func typeIsWhatLsblkShows(kind: DeviceKind, dmUUID: String?, mdLevel: String?, type: String) {
        #expect(kind.typeName(dmUUID: dmUUID, mdLevel: mdLevel) == type)
    }

    @Test func anMdArrayShowsItsLevelAsType() throws {
        var attributes = disk
        attributes["md0"] = SysfsDevice(number: DeviceNumber(major: 9, minor: 0), size: 1 << 20, slaves: ["sda2"])
        attributes["md0"]?.mdLevel = "raid1"
        let devices = try inventory(["sda", "sda2", "md0"], attributes, []).collect().devices
        let md = try #require(devices.first { $0.name == "md0" })
        #expect(md.kind == .raid && md.type == "raid1")
        #expect(devices.first { $0.name == "sda" }?.type == "disk")
    }
}

/// Named devices are read as lsblk reads them: their subtree (and a named
/// partition's disk), not every device of the machine.
@Suite struct NamedDeviceListingTests {
    let machine: [String: SysfsDevice] = [
        "sda": sysfs(8, 0), "sda1": sysfs(8, 1, parent: "sda", start: 2048),
        "sda2": sysfs(8, 2, parent: "sda", start: 4096, holders: ["dm-0"]),
        "dm-0": sysfs(253, 0, holders: ["dm-1"], slaves: ["sda2", "sdb1"]), "dm-1": sysfs(253, 1, slaves: ["dm-0"]),
        "sdb": sysfs(8, 16), "sdb1": sysfs(8, 17, parent: "sdb", start: 2048, holders: ["dm-0"]),
        "loop0": sysfs(7, 0, size: 0),
    ]

    /// Counts what is read, to show the rest of the machine is left alone.
    final class CountingSysfs: DeviceAttributeSource, @unchecked Sendable {
        let devices: [String: SysfsDevice]
        private(set) var read: [String] = []
        init(_ devices: [String: SysfsDevice]) { self.devices = devices }
        func attributes(of name: String) throws -> SysfsDevice? {
            read.append(name)
            return devices[name]
        }
        func parentName(of name: String) -> String? { devices[name]?.parent }
    }

    func inventory(_ sysfs: any DeviceAttributeSource) -> DeviceInventory {
        DeviceInventory(
            enumerator: ListedNames(names: machine.keys.sorted()), attributes: sysfs, propertySources: [],
            mounts: FixedMounts())
    }

    @Test(arguments: [["sda"], ["sda2"], ["sdb", "sda1"], ["dm-0"], ["loop0"], ["nothing"], ["sda", "sda"]])
    func theSubtreeIsTheOneTheWholeListingGives(roots: [String]) throws {
        let sysfs = CountingSysfs(machine)
        let under = try inventory(sysfs).listedDevices(under: roots)
        let all = try inventory(FixedSysfs(devices: machine)).listedDevices(includingHidden: true)
        func shown(_ devices: [BlockDevice]) -> [[String]] {
            DeviceTree.lines(DeviceTree.build(devices, roots: roots)).map { [$0.prefix, $0.device.name] }
        }
        #expect(shown(under) == shown(all))
        #expect(Set(sysfs.read).count == sysfs.read.count, "each device is read once")
    }

    @Test func aNamedPartitionBringsItsDiskButNotItsSiblings() throws {
        let sysfs = CountingSysfs(machine)
        let under = try inventory(sysfs).listedDevices(under: ["sda2"])
        #expect(under.map(\.name) == ["sda", "sda2", "dm-0", "dm-1"])
        #expect(!sysfs.read.contains("sdb") && !sysfs.read.contains("sda1") && !sysfs.read.contains("loop0"))
    }
}

extension NamedDeviceListingTests {
    @Test func withoutDependentsTheNamedDeviceAndItsDiskAreReadAlone() throws {
        let sysfs = CountingSysfs(machine)
        let alone = try inventory(sysfs).listedDevices(under: ["sda2"], dependents: false)
        #expect(alone.map(\.name) == ["sda", "sda2"])
        #expect(sysfs.read.sorted() == ["sda", "sda2"])
    }
}
