import CarveCore
import CarveTestSupport
import Testing
@testable import CarveCLI

/// A machine with a GPT disk (an EFI partition, a labelled ext4 and a LUKS partition
/// holding ext4), and a loop device with btrfs.
private let machine = FakeDeviceSource()
    .disk(
        "sda", size: 20 * .gib, ptUUID: "8e1e2c0a-5a9b-4e57-9d1f-2f6c3b1d7a10", model: "QEMU HARDDISK",
        serial: "QM0001", rotational: true,
        partitions: [
            FakePartition(
                size: 512 * .mib, .vfat(label: "EFI"), partLabel: "EFI System",
                partType: "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", mountpoints: ["/boot/efi"]),
            FakePartition(size: 10 * .gib, .ext4(label: "my data"), mountpoints: ["/srv", "/mnt/data copy"]),
            FakePartition(size: 9 * .gib + 512 * .mib, .crypto()),
        ]
    )
    .stacked("dm-0", kind: .crypt, on: ["sda3"], size: 9 * .gib + 496 * .mib, .ext4(label: "root"), mountpoints: ["/"])
    .loop("loop0", size: .gib, .btrfs(label: "pool"))
    .path("/tmp/disk.img", is: .regularFile)
    .path("/tmp", is: .directory)
    .path("/dev/null", is: .characterDevice)
    .path("/dev/disk/by-label/pool", is: .symlink("/dev/loop0"))

/// /boot/efi is a quarter used (512 of 2048 blocks free to users, 1024 free to root); /srv is empty
/// but for root's reserve; / has no blocks at all.
let deviceSpace = FakeFilesystemSpace([
    "/boot/efi": FilesystemUsage(fragmentSize: 4096, blocks: 131_072, freeBlocks: 98_304, availableBlocks: 98_304),
    "/srv": FilesystemUsage(fragmentSize: 4096, blocks: 2_621_440, freeBlocks: 2_621_440, availableBlocks: 2_490_368),
    "/": FilesystemUsage(fragmentSize: 4096, blocks: 0, freeBlocks: 0, availableBlocks: 0),
])

private func carve(_ arguments: [String], devices: FakeDeviceSource = machine, isRoot: Bool = true) -> RunResult {
    runCarve(["devices"] + arguments) { captured in
        Services(
            devices: devices, snapshots: FakeSnapshotBackend(), output: captured, isRoot: isRoot,
            filesystemSpace: deviceSpace)
    }
}

@Suite struct DevicesCommandTests {
    @Test func treeWithDefaultColumns() {
        let result = carve([])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        // As lsblk: sorted by MAJ:MIN, SIZE at least 5 wide (its width hint), and every cell
        // but an empty last one padded.
        #expect(
            result.stdout.split(separator: "\n", omittingEmptySubsequences: false) == [
                "NAME      SIZE TYPE  FSTYPE      LABEL   UUID                                 MOUNTPOINTS",
                "loop0       1G loop  btrfs       pool    5e3c1d7a-2b4f-4c89-8a1e-3f2d6b7c9a02 ",
                "sda        20G disk                                                           ",
                "├─sda1    512M part  vfat        EFI     1A2B-3C4D                            /boot/efi",
                "├─sda2     10G part  ext4        my data 0b6a8f56-5d2c-4f43-9e6b-6d3a1c2b4e01 /srv",
                "│                                                                             /mnt/data copy",
                "└─sda3    9.5G part  crypto_LUKS         9f8e7d6c-5b4a-4938-8271-605f4e3d2c07 ",
                "  └─dm-0  9.5G crypt ext4        root    0b6a8f56-5d2c-4f43-9e6b-6d3a1c2b4e01 /",
                "",
            ])
    }

    @Test func listWithChosenColumnsAndBytes() {
        let result = carve(["--list", "--bytes", "--output", "name,size,maj:min,pttype,start,ro,rota"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                NAME         SIZE MAJ:MIN PTTYPE    START RO ROTA
                loop0  1073741824   7:0                    0    0
                sda   21474836480   8:0   gpt              0    1
                sda1    536870912   8:1   gpt        2048  0    1
                sda2  10737418240   8:2   gpt     1050624  0    1
                sda3  10200547328   8:3   gpt    22022144  0    1
                dm-0  10183770112 254:0                    0    0

                """)
    }

    @Test func plusAddsColumnsToTheDefaults() {
        let header = carve(["-o", "+PARTLABEL"]).stdout.split(separator: "\n").first.map(String.init)
        #expect(
            header
                == "NAME      SIZE TYPE  FSTYPE      LABEL   UUID                                 MOUNTPOINTS    PARTLABEL"
        )
    }

    @Test func unknownColumnIsAUsageErrorOnOneLine() {
        let result = carve(["--output", "NAME,BOGUS"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("carve: unknown column 'BOGUS' for --output (known: NAME, KNAME, PATH,"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func outputHelpListsEveryColumn() {
        let result = carve(["--output", "help"])
        #expect(result.status == 0)
        for column in DeviceColumns.all { #expect(result.stdout.contains("  \(column.name) ")) }
    }

    @Test func jsonHasLsblkKeysAndTypes() {
        let result = carve(["--json", "-o", "NAME,SIZE,MAJ:MIN,RO,RM,ROTA,START,MOUNTPOINTS,MOUNTPOINT", "/dev/sda"])
        #expect(result.status == 0)
        let sda1 = """
                  {
                     "name": "sda1",
                     "size": 536870912,
                     "maj:min": "8:1",
                     "ro": false,
                     "rm": false,
                     "rota": true,
                     "start": 2048,
                     "mountpoints": [
                        "/boot/efi"
                     ],
                     "mountpoint": "/boot/efi"
                  },
            """
        #expect(
            result.stdout.hasPrefix(
                """
                {
                   "blockdevices": [
                      {
                         "name": "sda",
                         "size": 21474836480,
                         "maj:min": "8:0",
                         "ro": false,
                         "rm": false,
                         "rota": true,
                         "start": null,
                         "mountpoints": [
                            null
                         ],
                         "mountpoint": null,
                         "children": [
                \(sda1.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
                """))
        #expect(result.stdout.contains("\"name\": \"dm-0\""))
        #expect(!result.stdout.contains("loop0"))
    }

    @Test func jsonListIsFlat() {
        let result = carve(["--json", "--list", "-o", "NAME"])
        #expect(
            result.stdout == """
                {
                   "blockdevices": [
                      {
                         "name": "loop0"
                      },
                      {
                         "name": "sda"
                      },
                      {
                         "name": "sda1"
                      },
                      {
                         "name": "sda2"
                      },
                      {
                         "name": "sda3"
                      },
                      {
                         "name": "dm-0"
                      }
                   ]
                }

                """)
    }

    @Test func oddLabelBytesAreEscapedInTheTableAndExactInJSON() {
        let odd = "tab\there\\back é"
        let devices = FakeDeviceSource().loop("loop7", size: .gib, .ext4(label: odd))
        let table = carve(["-o", "NAME,LABEL"], devices: devices).stdout
        #expect(table == "NAME  LABEL\nloop7 tab\\x09here\\x5cback é\n")
        let json = carve(["--json", "-o", "LABEL"], devices: devices).stdout
        #expect(json.contains(#""label": "tab\there\\back é""#))
    }

    @Test func namedDeviceThroughASymlink() {
        let result = carve(["-o", "NAME,LABEL", "/dev/disk/by-label/pool"])
        #expect(result.stdout == "NAME  LABEL\nloop0 pool\n")
    }

    @Test(arguments: [
        ("/tmp/disk.img", "carve: /tmp/disk.img is not a block device (it is a regular file)\n"),
        ("/tmp", "carve: /tmp is not a block device (it is a directory)\n"),
        ("/dev/null", "carve: /dev/null is not a block device (it is a character device)\n"),
        ("/dev/sdz", "carve: /dev/sdz: no such file or directory\n"),
    ])
    func aDeviceNotFoundIsOneLineAndExit32AsInLsblk(path: String, message: String) {
        let result = carve([path])
        #expect(result.status == 32)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == message)
    }

    @Test func nonRootSaysWhichShownFieldsNeedRoot() {
        let devices = machine.needingRoot(["FSTYPE", "UUID", "LABEL", "PTTYPE"])
        let result = carve(["-o", "NAME,FSTYPE,LABEL"], devices: devices, isRoot: false)
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "carve: not root: FSTYPE, LABEL missing where udev has no record (probing a device needs root)\n")
        #expect(carve(["-o", "NAME,SIZE"], devices: devices, isRoot: false).stderr.isEmpty)
    }

    @Test func aFailingSourceIsARuntimeError() {
        var devices = machine
        devices.failure = RuntimeError("cannot list block devices: udev_enumerate_scan_devices failed")
        let result = carve([], devices: devices)
        #expect(result.status == 1)
        #expect(result.stderr == "carve: cannot list block devices: udev_enumerate_scan_devices failed\n")
    }
}
