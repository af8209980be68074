import CarveCore
import Foundation
import Testing
@testable import CarveLinux
import CarveTestSupport

/// sysfs read through a root prefix: a fixture tree laid out as the kernel lays it out.
@Suite struct SysfsTreeTests {
    func tree(_ files: [String: String], links: [String: String] = [:]) throws -> String {
        try Integration.makeTree(files, links: links)
    }

    let disk = "sys/devices/pci0000:00/0000:00:05.0/block/sda"

    @Test func readsADiskAndItsPartitionLikeTheKernelLaysThemOut() throws {
        let root = try tree(
            [
                "\(disk)/dev": "8:0\n", "\(disk)/size": "41943040\n", "\(disk)/ro": "0\n", "\(disk)/removable": "1\n",
                "\(disk)/queue/rotational": "1\n", "\(disk)/queue/logical_block_size": "4096\n",
                "\(disk)/device/model": "QEMU HARDDISK   \n", "\(disk)/device/serial": "QM00001\n",
                "\(disk)/sda2/dev": "8:2\n", "\(disk)/sda2/size": "2048\n", "\(disk)/sda2/ro": "1\n",
                "\(disk)/sda2/partition": "2\n", "\(disk)/sda2/start": "4096\n",
                "\(disk)/sda2/holders/dm-0": "", "\(disk)/sda2/holders/dm-1": "",
            ],
            links: [
                "sys/class/block/sda": "../../devices/pci0000:00/0000:00:05.0/block/sda",
                "sys/class/block/sda2": "../../devices/pci0000:00/0000:00:05.0/block/sda/sda2",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sysfs = SysfsTree(host: HostRoot(root))
        let sda = try #require(try sysfs.attributes(of: "sda"))
        #expect(
            sda
                == SysfsDevice(
                    number: DeviceNumber(major: 8, minor: 0), size: 41943040 * 512, logicalBlockSize: 4096,
                    readOnly: false,
                    // sysfs pads the model; lsblk shows it padded when udev has none.
                    removable: true, rotational: true, model: "QEMU HARDDISK   ", serial: "QM00001"))
        let sda2 = try #require(try sysfs.attributes(of: "sda2"))
        #expect(sda2.parent == "sda")
        #expect(sda2.start == 4096)
        #expect(sda2.partitionNumber == 2)
        #expect(sda2.size == 2048 * 512)
        #expect(sda2.readOnly)
        #expect(sda2.removable && sda2.rotational && sda2.logicalBlockSize == 4096)
        #expect(sda2.holders == ["dm-0", "dm-1"])
    }

    @Test func readsLoopBackingAndDeviceMapperUUID() throws {
        let root = try tree([
            "sys/class/block/loop3/dev": "7:3", "sys/class/block/loop3/size": "0",
            "sys/class/block/loop3/loop/backing_file": "/tmp/img (deleted)\n",
            "sys/class/block/dm-0/dev": "254:0", "sys/class/block/dm-0/size": "8",
            "sys/class/block/dm-0/dm/uuid": "CRYPT-LUKS2-abc-root\n", "sys/class/block/dm-0/slaves/loop3": "",
            "sys/class/block/dm-0/dm/name": "cryptroot\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sysfs = SysfsTree(host: HostRoot(root + "/"))
        #expect(try sysfs.attributes(of: "loop3")?.hasBackingFile == true)
        let dm = try #require(try sysfs.attributes(of: "dm-0"))
        #expect(dm.dmUUID == "CRYPT-LUKS2-abc-root" && dm.slaves == ["loop3"] && dm.size == 4096)
        #expect(dm.dmName == "cryptroot")
        #expect(DeviceKind.classify(name: "dm-0", isPartition: false, dmUUID: dm.dmUUID) == .crypt)
    }

    /// lsblk shows an md array's TYPE as its level (lsblk-cmd get_type reads md/level).
    @Test func readsAnMdArraysLevel() throws {
        let root = try tree([
            "sys/class/block/md0/dev": "9:0", "sys/class/block/md0/size": "2048",
            "sys/class/block/md0/md/level": "raid1\n",
            "sys/class/block/md0/slaves/sda": "", "sys/class/block/md0/slaves/sdb": "",
            "sys/class/block/md1/dev": "9:1", "sys/class/block/md1/size": "0",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sysfs = SysfsTree(host: HostRoot(root))
        let md0 = try #require(try sysfs.attributes(of: "md0"))
        #expect(md0.mdLevel == "raid1" && md0.slaves == ["sda", "sdb"])
        #expect(DeviceKind.raid.typeName(dmUUID: nil, mdLevel: md0.mdLevel) == "raid1")
        // An array being assembled has no md/ yet: lsblk says "md".
        let md1 = try #require(try sysfs.attributes(of: "md1"))
        #expect(md1.mdLevel == nil && DeviceKind.raid.typeName(dmUUID: nil, mdLevel: nil) == "md")
    }

    @Test(arguments: ["", "8", "8:", ":1", "a:b", "8:1:2", "-1:0"])
    func malformedDevAttributeMeansNoDevice(dev: String) throws {
        let root = try tree(["sys/class/block/odd/dev": dev, "sys/class/block/odd/size": "8"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try SysfsTree(host: HostRoot(root)).attributes(of: "odd") == nil)
    }

    @Test func missingDeviceIsNil() throws {
        #expect(try SysfsTree(host: HostRoot("/nonexistent-carve-root")).attributes(of: "sda") == nil)
    }
}

/// The udev keys as lsblk reads them, from a dictionary instead of the database.
@Suite struct UdevPropertyMappingTests {
    @Test func decodesEncodedValuesAndPrefersThem() {
        let record = [
            "ID_FS_TYPE": "ext4", "ID_FS_VERSION": "1.0", "ID_FS_LABEL": "my_data", "ID_FS_LABEL_ENC": "my\\x20data",
            "ID_FS_UUID_ENC": "8bc12745-22cf", "ID_PART_ENTRY_UUID": "a8ab0669", "ID_PART_ENTRY_TYPE": "0fc63daf",
            "ID_PART_ENTRY_NAME": "EFI\\x20System", "ID_PART_ENTRY_NUMBER": "1", "ID_PART_ENTRY_SCHEME": "gpt",
            "ID_PART_TABLE_UUID": "84497f95", "ID_MODEL_ENC": "QEMU\\x20HARDDISK\\x20\\x20\\x20",
            "ID_SERIAL": "QEMU_HARDDISK_QM00001", "ID_SERIAL_SHORT": "QM00001",
        ]
        let properties = UdevPropertySource.properties(from: { record[$0] })
        #expect(
            properties
                == DeviceProperties(
                    fsType: "ext4", fsVersion: "1.0", uuid: "8bc12745-22cf", label: "my data", partUUID: "a8ab0669",
                    partType: "0fc63daf", partLabel: "EFI System", partNumber: 1, ptType: "gpt", ptUUID: "84497f95",
                    model: "QEMU HARDDISK", serial: "QM00001"))
    }

    @Test func aMalformedPartitionNumberIsUnknown() {
        let properties = UdevPropertySource.properties(from: { $0 == "ID_PART_ENTRY_NUMBER" ? "x1" : nil })
        #expect(properties == DeviceProperties())
    }

    @Test func noRecordIsTrustedWhileUdevdIsNotRunning() throws {
        let device = BlockDevice(name: "loop0", kind: .loop, number: DeviceNumber(major: 7, minor: 0), size: 1)
        #expect(try UdevPropertySource(daemonRunning: false).properties(of: device, parent: nil) == nil)
    }

    @Test func udevdStateFromAProcFixture() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        func process(_ pid: Int, _ stat: String) throws {
            try FileManager.default.createDirectory(atPath: "\(root)/proc/\(pid)", withIntermediateDirectories: true)
            try Data(stat.utf8).write(to: URL(fileURLWithPath: "\(root)/proc/\(pid)/stat"))
        }
        let host = HostRoot(root)
        try process(1, "1 (init) S 0 1 1")
        try process(40, "40 (systemd-udevd) Z 1 40 40")
        #expect(!UdevDaemon.processIsRunning(host: host), "a zombie udevd is not running")
        try process(41, "41 (systemd-udevd) S 1 41 41")
        #expect(UdevDaemon.processIsRunning(host: host))
        #expect(!UdevDaemon.isRunning(host: host), "no control socket, no udevd")
        // A control path nobody listens on refuses the connection: udevd is gone.
        try FileManager.default.createDirectory(atPath: "\(root)/run/udev", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: host.udevControl))
        #expect(UdevDaemon.acceptsConnection(host.udevControl) == false)
        #expect(!UdevDaemon.isRunning(host: host))
    }
}
