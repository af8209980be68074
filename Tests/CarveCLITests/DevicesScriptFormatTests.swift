import CarveCore
import CarveTestSupport
import Foundation
import Testing
@testable import CarveCLI

/// `carve devices` in lsblk's formats for scripts: --raw, --pairs, --noheadings,
/// --paths, --nodeps, the FS* columns and the exit status of devices not found.
/// The byte-for-byte comparison with lsblk itself is DevicesLikeLsblkIntegrationTests.
private let machine = FakeDeviceSource()
    .disk(
        "sda", size: 20 * .gib,
        partitions: [
            FakePartition(size: 512 * .mib, .vfat(label: "EFI"), mountpoints: ["/boot/efi"]),
            FakePartition(
                size: 10 * .gib, .ext4(label: "my \"data\" $HOME\\x"), mountpoints: ["/srv", "/mnt/data copy"]),
        ]
    )
    .stacked("dm-0", kind: .crypt, on: ["sda2"], size: 9 * .gib, .ext4(label: "rööt"), mountpoints: ["/"])
    .loop("loop0", size: .gib, .btrfs(label: "pool"))

private func carve(_ arguments: [String]) -> RunResult {
    runCarve(["devices"] + arguments) { captured in
        Services(
            devices: machine, snapshots: FakeSnapshotBackend(), output: captured, isRoot: true,
            filesystemSpace: deviceSpace)
    }
}

@Suite struct DevicesScriptFormatTests {
    @Test func rawEscapesBlanksBackslashesAndEveryNonASCIIByte() {
        let result = carve(["-r", "-o", "NAME,LABEL,MOUNTPOINTS"])
        #expect(result.status == 0)
        #expect(
            result.stdout == #"""
                NAME LABEL MOUNTPOINTS
                loop0 pool 
                sda  
                sda1 EFI /boot/efi
                sda2 my\x20"data"\x20$HOME\x5cx /srv\x0a/mnt/data\x20copy
                dm-0 r\xc3\xb6\xc3\xb6t /

                """#)
    }

    @Test func pairsQuoteWhatAShellWouldExpand() {
        let result = carve(["-P", "-o", "NAME,LABEL,MAJ:MIN"])
        #expect(
            result.stdout.split(separator: "\n")[3]
                == #"NAME="sda2" LABEL="my \x22data\x22 \x24HOME\x5cx" MAJ:MIN="8:2""#)
        #expect(result.stdout.split(separator: "\n")[4] == #"NAME="dm-0" LABEL="r\xc3\xb6\xc3\xb6t" MAJ:MIN="254:0""#)
    }

    @Test func noheadingsPathsAndNodeps() {
        #expect(carve(["-rnd", "-o", "NAME,TYPE"]).stdout == "loop0 loop\nsda disk\n")
        #expect(
            carve(["-rnp", "-o", "NAME,KNAME,PKNAME", "/dev/sda"]).stdout == """
                /dev/sda /dev/sda 
                /dev/sda1 /dev/sda1 /dev/sda
                /dev/sda2 /dev/sda2 /dev/sda
                /dev/dm-0 /dev/dm-0 /dev/sda2

                """)
        // The header still sets the widths, as in lsblk: only its line is left out.
        #expect(carve(["-ln", "-o", "NAME,TYPE"]).stdout.hasPrefix("loop0 loop\nsda   disk\nsda1  part\n"))
    }

    @Test func filesystemSpaceColumnsAreStatvfsOfTheMountpoint() {
        let result = carve(["-o", "NAME,FSSIZE,FSUSED,FSAVAIL,FSUSE%", "-l"])
        #expect(
            result.stdout.split(separator: "\n", omittingEmptySubsequences: false) == [
                "NAME  FSSIZE FSUSED FSAVAIL FSUSE%",
                "loop0                       ",
                "sda                         ",
                "sda1    512M   128M    384M    25%",
                "sda2     10G      0    9.5G     0%",
                "dm-0       0      0       0      -",
                "",
            ])
        let bytes = carve(["-rnb", "-o", "NAME,FSSIZE,FSAVAIL", "/dev/sda"]).stdout
        #expect(bytes.split(separator: "\n")[1] == "sda1 536870912 402653184")
    }

    @Test func filesystemSpaceInJSONIsNumbersOrNull() throws {
        let result = carve(["-J", "-o", "NAME,FSSIZE,FSUSE%", "/dev/sda"])
        let devices = try Reference.flattenedJSON(result.stdout)
        #expect(devices["sda"]?["fssize"] is NSNull)
        #expect(devices["sda1"]?["fssize"] as? Int == 536_870_912)
        #expect(devices["sda1"]?["fsuse%"] as? String == "25%")
    }

    @Test func usePercentRoundsAsPrintfDoes() {
        func percent(_ used: UInt64, of blocks: UInt64) -> String {
            FilesystemUsage(fragmentSize: 1, blocks: blocks, freeBlocks: blocks - used, availableBlocks: 0).usePercent
        }
        #expect(percent(1, of: 8) == "12%") // 12.5: ties go to even
        #expect(percent(3, of: 8) == "38%") // 37.5
        #expect(percent(1, of: 3) == "33%")
        #expect(percent(2, of: 3) == "67%")
        #expect(percent(0, of: 0) == "-")
    }

    @Test func someDevicesNotFoundAreNamedAndTheOthersListed() {
        let result = carve(["-rno", "NAME", "/dev/sdz", "/dev/loop0"])
        #expect(result.status == 4)
        #expect(result.stdout == "loop0\n")
        #expect(result.stderr == "carve: /dev/sdz: no such file or directory\n")
        let none = carve(["-J", "/dev/sdz"])
        #expect(none.status == 32)
        #expect(none.stdout == "{\n   \"blockdevices\": []\n}\n")
    }

    @Test func formatsAreMutuallyExclusive() {
        let result = carve(["-J", "-r"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("carve: --json and --raw are mutually exclusive\n"))
    }
}
