import CarveCore
import CarveTestSupport
import Foundation
import Testing
@testable import CarveCLI

/// util-linux's lsblk regression suite, run on carve: every dump of real machines
/// (NVMe, LVM, bcachefs over several devices, a CD drive, SCSI disks) replayed with
/// `--sysroot`, every case's columns, compared byte for byte with util-linux's
/// expected output. The dumps and the expected files are in Tests/Fixtures/lsblk.
enum LsblkSuite {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/lsblk").path

    /// One case: a dump, the name of its .cols file, and the columns in it.
    struct Case: CustomTestStringConvertible, Sendable {
        var dump: String, name: String, columns: String, root: String, expected: String
        var testDescription: String { "\(dump)-\(name)" }
    }

    /// Every dump of `directory` unpacked with the system's tar (as util-linux's suite
    /// does) into a scratch directory, and its cases in the order the suite runs them.
    static func cases(
        in directory: String = fixtures + "/dumps", expected: String = fixtures + "/expected"
    ) throws
        -> [Case]
    {
        let scratch = try Integration.makeScratchDirectory()
        var cases: [Case] = []
        let dumps = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tar.xz") }
        for file in dumps.sorted() {
            let dump = String(file.dropLast(".tar.xz".count))
            try Shell.check(["tar", "--no-same-owner", "-C", scratch, "--xz", "-xf", "\(directory)/\(file)"])
            let root = "\(scratch)/\(dump)"
            for cols in try FileManager.default.contentsOfDirectory(atPath: root).filter({ $0.hasSuffix(".cols") })
                .sorted()
            {
                let name = String(cols.dropLast(".cols".count))
                let columns = try String(contentsOfFile: "\(root)/\(cols)", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let wanted = try String(contentsOfFile: "\(expected)/lsblk-\(dump)-\(name)", encoding: .utf8)
                cases.append(Case(dump: dump, name: name, columns: columns, root: root, expected: wanted))
            }
        }
        return cases
    }

    /// Each case's `carve devices --sysroot ROOT --output COLUMNS` prints its expected file, exit 0.
    static func expectEachPrintsItsExpected(_ cases: [Case]) {
        for item in cases {
            let result = carve(["--sysroot", item.root, "--output", item.columns])
            #expect(result.status == 0, "\(item.testDescription): \(result.stderr)")
            #expect(result.stdout == item.expected, "\(item.testDescription)")
        }
    }

    /// `LANG=POSIX carve devices --sysroot ROOT --output COLUMNS`, in process.
    static func carve(_ arguments: [String], utf8: Bool = false) -> RunResult {
        runCarve(["devices"] + arguments) { captured in
            var services = Services(
                devices: FakeDeviceSource(), snapshots: FakeSnapshotBackend(), output: captured, isRoot: true)
            services.localeIsUTF8 = utf8
            return services
        }
    }
}

@Suite struct LsblkSuiteTests {
    @Test func everyCaseOfUtilLinuxSuiteIsByteForByteLsblks() throws {
        let cases = try LsblkSuite.cases()
        // 3 dumps: multi-devs-bcachefs has 8 cases, simple-lvm and simple-nvme 7 each.
        #expect(cases.count == 22)
        LsblkSuite.expectEachPrintsItsExpected(cases)
    }

    /// This machine's loop topologies dumped with `carve devices --dump` (GPT with an
    /// active swap partition, DOS with logical partitions, a 4 KiB-sector loop, a
    /// read-only loop, btrfs raid1 over two bare loops), against lsblk 2.38's
    /// `--sysroot` output of the same dumps (Tests/Fixtures/lsblk/lab/make.sh).
    @Test func everyLabDumpIsByteForByteLsblksSysroot() throws {
        let lab = LsblkSuite.fixtures + "/lab"
        let cases = try LsblkSuite.cases(in: lab + "/dumps", expected: lab + "/expected")
        #expect(cases.count == 22)
        #expect(Set(cases.map(\.dump)) == ["btrfs-raid1", "dos-logical", "gpt-swap", "read-only", "sector-4k"])
        LsblkSuite.expectEachPrintsItsExpected(cases)
    }

    /// Where upstream lsblk and 2.38 disagree carve does as upstream: the second device
    /// of a btrfs raid1, absent from mountinfo, shows the mount of the first.
    @Test func bothDevicesOfTheLabRaid1ShowItsMount() throws {
        let lab = LsblkSuite.fixtures + "/lab"
        let item = try #require(
            LsblkSuite.cases(in: lab + "/dumps", expected: lab + "/expected").first { $0.dump == "btrfs-raid1" })
        let result = LsblkSuite.carve(["--sysroot", item.root, "-rno", "NAME,FSTYPE,MOUNTPOINT"])
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ").dropFirst() }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { Array($0) == ["btrfs", "/tmp/carve-26lab/mnt/raid"] })
    }

    @Test func aUTF8LocaleDrawsTheSameTreeWithBoxDrawingCharacters() throws {
        let item = try #require(LsblkSuite.cases().first { $0.dump == "simple-nvme" && $0.name == "basic" })
        let result = LsblkSuite.carve(["--sysroot", item.root, "--output", item.columns], utf8: true)
        let ascii = item.expected.replacingOccurrences(of: "|-", with: "├─")
            .replacingOccurrences(of: "`-", with: "└─")
        #expect(result.stdout == ascii)
        #expect(result.stdout.contains("└─nvme0n1p3"))
    }

    @Test func theLocaleCharsetIsTakenFromLcAllThenLcCtypeThenLang() {
        func utf8(_ environment: [String: String]) -> Bool { LocaleCharset.isUTF8 { environment[$0] } }
        #expect(!utf8([:]))
        #expect(!utf8(["LANG": "POSIX"]))
        #expect(!utf8(["LANG": "C"]))
        #expect(utf8(["LANG": "en_US.UTF-8"]))
        #expect(utf8(["LANG": "C.utf8"]))
        #expect(utf8(["LANG": "de_DE.UTF-8@euro"]))
        #expect(!utf8(["LANG": "en_US.UTF-8", "LC_ALL": "POSIX"]))
        #expect(!utf8(["LANG": "en_US.UTF-8", "LC_CTYPE": "C"]))
        #expect(utf8(["LANG": "C", "LC_CTYPE": "en_US.UTF-8"]))
        #expect(utf8(["LANG": "C", "LC_ALL": "", "LC_CTYPE": "en_US.UTF-8"]))
        #expect(!utf8(["LANG": "en_US.ISO-8859-1"]))
    }

    @Test func rawAndPairsOfADumpKeepTheTreeOrderAndTheTreeParent() throws {
        let item = try #require(LsblkSuite.cases().first { $0.dump == "simple-lvm" && $0.name == "basic" })
        let result = LsblkSuite.carve(["--sysroot", item.root, "-rno", "NAME,PKNAME,MODEL"])
        let lines = result.stdout.split(separator: "\n")
        #expect(
            lines.prefix(4) == [
                "loop0  ", "vg_foo.4059-lv_foo.4059 loop0 ", "loop1  ", "vg_foo.4059-lv_foo.4059 loop1 ",
            ])
        // A model sysfs pads is escaped, never trimmed, as lsblk -r prints it.
        #expect(lines.contains { $0.hasPrefix("nvme0n1  KINGSTON\\x20SKC1000240G\\x20") })
    }
}

extension LsblkSuiteTests {
    /// -S on the bcachefs dump: its SCSI disks and CD drive only, as lsblk 2.38 prints
    /// them but for REV, which is udev's ID_REVISION as upstream reads it (2.38: sysfs
    /// device/rev, "BBF0"); TRAN is empty as in both (the dump holds no scsi_host class).
    @Test func scsiDevicesOfADump() throws {
        let item = try #require(LsblkSuite.cases().first { $0.dump == "multi-devs-bcachefs" })
        let result = LsblkSuite.carve(["--sysroot", item.root, "-S"])
        #expect(
            result.stdout == """
                NAME HCTL       TYPE VENDOR   MODEL                        REV SERIAL                                TRAN
                sda  0:0:0:0    disk ATA      KINGSTON_SH103S3240G    580ABBF0 KINGSTON_SH103S3240G_50026B724B09A1FF 
                sdb  1:0:0:0    disk ATA      WDC_WD800JD-00MSA1      10.01E01 WDC_WD800JD-00MSA1_WD-WMAM9XE78956    
                sdc  6:0:0:0    disk Linux    scsi_debug                  0191 333333330000036b0                     
                sr0  3:0:0:0    rom  HL-DT-ST HL-DT-ST_DVD+_-RW_GH82N     A101 HL-DT-ST_DVD+_-RW_GH82N_K4LC2EC0449   

                """)
        let transport = LsblkSuite.carve(["--sysroot", item.root, "-rnd", "-o", "NAME,TRAN"])
        #expect(transport.stdout.contains("nvme0n1 nvme\n"))
    }
}

extension LsblkSuiteTests {
    /// PARTTYPENAME names GPT and DOS type codes as libfdisk does, as lsblk 2.38 does on the same dumps.
    @Test func partitionTypeNamesOfTheLabDumps() throws {
        let lab = LsblkSuite.fixtures + "/lab"
        let cases = try LsblkSuite.cases(in: lab + "/dumps", expected: lab + "/expected")
        let gpt = try #require(cases.first { $0.dump == "gpt-swap" })
        let dos = try #require(cases.first { $0.dump == "dos-logical" })
        let names = { (root: String) in
            LsblkSuite.carve(["--sysroot", root, "-rn", "-o", "PARTTYPENAME"]).stdout
        }
        #expect(names(gpt.root) == "\nLinux\\x20filesystem\nLinux\\x20swap\nEFI\\x20System\n")
        #expect(names(dos.root) == "\nLinux\nExtended\nLinux\nLinux\\x20swap\\x20/\\x20Solaris\n")
    }
}
