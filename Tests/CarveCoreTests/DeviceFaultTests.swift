import CarveCore
import CarveTestSupport
import Testing

/// sysfs as a table, the base the fault wrappers wrap.
private struct TableSysfs: DeviceAttributeSource {
    var devices: [String: SysfsDevice]
    func attributes(of name: String) throws -> SysfsDevice? { devices[name] }
}

private struct NoMounts: MountTable {
    func mounts() throws -> [MountEntry] { [] }
}

/// A probe that knows every device's filesystem, or fails for the given ones.
private struct ProbeTable: DevicePropertySource {
    let name = "blkid"
    let fields = Set(DeviceField.allCases)
    var failing: [String: SystemCallError] = [:]
    func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        if let error = failing[device.name] { throw error }
        return DeviceProperties(fsType: "ext4", uuid: "uuid-\(device.name)")
    }
}

/// Faults while devices are listed and probed: what the user gets, and that a
/// fault on one device never changes what is said about the others.
@Suite struct DeviceFaultTests {
    static let names = ["sda", "sda1", "sdb", "sdc"]
    static let sysfs: [String: SysfsDevice] = [
        "sda": SysfsDevice(number: .init(major: 8, minor: 0), size: 1 << 30),
        "sda1": SysfsDevice(number: .init(major: 8, minor: 1), size: 1 << 29, parent: "sda", start: 2048),
        "sdb": SysfsDevice(number: .init(major: 8, minor: 16), size: 1 << 30),
        "sdc": SysfsDevice(number: .init(major: 8, minor: 32), size: 1 << 30),
    ]

    fileprivate func inventory(
        _ attributes: FaultyAttributes, enumerator: ScriptedEnumerator = ScriptedEnumerator(names),
        probe: ProbeTable = ProbeTable()
    ) -> DeviceInventory {
        DeviceInventory(enumerator: enumerator, attributes: attributes, propertySources: [probe], mounts: NoMounts())
    }

    @Test func enumerationThatFailsIsOneErrorNamingTheCall() {
        let failing = ScriptedEnumerator(
            [],
            failure: SystemCallError(
                "cannot list block devices", call: "udev_enumerate_scan_devices", errno: 12))
        #expect {
            _ = try inventory(FaultyAttributes(TableSysfs(devices: Self.sysfs)), enumerator: failing).collect()
        } throws: { error in
            (error as? SystemCallError)?.message
                == "cannot list block devices: out of memory (ENOMEM, udev_enumerate_scan_devices)"
        }
    }

    @Test func sysfsFailingHalfWayFailsTheListingInsteadOfShowingHalf() {
        let attributes = FaultyAttributes(TableSysfs(devices: Self.sysfs))
        attributes.failOnCall = 3
        #expect(throws: SystemCallError.self) { try inventory(attributes).collect() }
        #expect(attributes.asked == ["sda", "sda1", "sdb"], "nothing is read after the failure")
    }

    @Test func aDeviceGoneBetweenListingAndReadingIsLeftOutAndTheOthersAreWhole() throws {
        let attributes = FaultyAttributes(TableSysfs(devices: Self.sysfs))
        attributes.vanished = ["sdb"]
        let result = try inventory(attributes).collect()
        #expect(result.devices.map(\.name) == ["sda", "sda1", "sdc"])
        #expect(result.devices.allSatisfy { $0.properties.uuid == "uuid-\($0.name)" })
        #expect(result.fieldsNeedingRoot().isEmpty)
    }

    @Test(arguments: [Int32(2), 6, 19, 5])
    func aDeviceGoneBetweenListingAndProbingIsListedWithoutItsContent(errno: Int32) throws {
        let probe = ProbeTable(failing: ["sdb": SystemCallError("cannot open /dev/sdb", call: "open", errno: errno)])
        let result = try inventory(FaultyAttributes(TableSysfs(devices: Self.sysfs)), probe: probe).collect()
        #expect(result.devices.map(\.name) == ["sda", "sda1", "sdb", "sdc"])
        let gone = try #require(result.devices.first { $0.name == "sdb" })
        #expect(gone.properties.fsType == nil && gone.properties.uuid == nil)
        #expect(result.devices.filter { $0.name != "sdb" }.allSatisfy { $0.properties.fsType == "ext4" })
        #expect(result.fieldsNeedingRoot().isEmpty, "a vanished device is not a permission problem")
    }
}
