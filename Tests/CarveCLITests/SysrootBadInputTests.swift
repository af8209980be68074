import CarveCore
import CarveTestSupport
import Foundation
import Testing
@testable import CarveCLI

/// `--sysroot` of broken dumps: a clear line on stderr for what cannot be read, the
/// rest listed, status 1 only when nothing could be; never a crash.
@Suite struct SysrootBadInputTests {
    /// simple-nvme, unpacked afresh, for a test to break.
    func nvmeDump() throws -> String {
        let item = try #require(LsblkSuite.cases().first { $0.dump == "simple-nvme" })
        return item.root
    }

    func names(_ result: RunResult) -> [String] {
        result.stdout.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }
    }

    @Test func aMissingDirectoryIsOneLineAndStatus1() {
        let result = LsblkSuite.carve(["--sysroot", "/tmp/carve-test-no-such-dump"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "carve: --sysroot /tmp/carve-test-no-such-dump: no such directory\n")
    }

    @Test func anEmptyDirectoryListsNothingAndSaysWhy() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = LsblkSuite.carve(["--sysroot", root])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no block devices in sys/block or sys/dev/block"))
    }

    @Test func aTruncatedDeviceNumberLeavesThatDeviceOut() throws {
        let root = try nvmeDump()
        try Data("8:".utf8).write(to: URL(fileURLWithPath: root + "/sys/block/sdb/dev"))
        let result = LsblkSuite.carve(["--sysroot", root, "-rno", "NAME"])
        #expect(result.status == 0)
        #expect(!names(result).contains("sdb"))
        #expect(names(result).contains("sda") && names(result).contains("nvme0n1p3"))
        #expect(result.stderr.contains("sys/block/sdb/dev: missing or not MAJ:MIN; left out"))
    }

    @Test func aTruncatedSizeIsZero() throws {
        let root = try nvmeDump()
        let resolved = try #require(realpath(root + "/sys/block/sda/size", nil))
        defer { free(resolved) }
        let size = String(cString: resolved)
        try Data().write(to: URL(fileURLWithPath: size))
        let result = LsblkSuite.carve(["--sysroot", root, "-rnd", "-o", "NAME,SIZE"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("sda 0B\n"))
    }

    @Test func aSymlinkLoopIsNamedAndTheRestListed() throws {
        let root = try nvmeDump()
        try FileManager.default.createSymbolicLink(atPath: root + "/sys/block/loopy", withDestinationPath: "loopy")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/sys/dev/block/1:1", withDestinationPath: "../../dev/block/1:1")
        let result = LsblkSuite.carve(["--sysroot", root, "-rno", "NAME"])
        #expect(result.status == 0)
        #expect(names(result).count == 13)
        #expect(result.stderr.contains("sys/block/loopy: not a directory (a dangling link or a symlink loop)"))
    }

    @Test func binaryJunkInAUdevFileGivesNoProperties() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The bcachefs dump has dev/NAME files: replace one with junk, one with a directory.
        let item = try #require(LsblkSuite.cases().first { $0.dump == "multi-devs-bcachefs" })
        var junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        junk.append(contentsOf: Array("\nID_FS_TYPE=\u{0}x\nID_FS_LABEL_ENC=\\xff\\x0\n".utf8))
        try junk.write(to: URL(fileURLWithPath: item.root + "/dev/sdc1"))
        try FileManager.default.removeItem(atPath: item.root + "/dev/sdc2")
        try FileManager.default.createDirectory(atPath: item.root + "/dev/sdc2", withIntermediateDirectories: false)
        let result = LsblkSuite.carve(["--sysroot", item.root, "-rn", "-o", "NAME,FSTYPE,LABEL,MOUNTPOINT"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains("sdc2   /mnt/test"))
        #expect(lines.contains { $0.hasPrefix("sdc1 ") && $0.hasSuffix(" /mnt/test") })
        #expect(lines.contains("nvme0n1p1 xfs  /home/data"))
    }

    @Test func aMountinfoLineThatDoesNotParseIsNamedAndIgnored() throws {
        let root = try nvmeDump()
        let path = root + "/proc/self/mountinfo"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = "garbage line\n" + text
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try Data([0xff, 0x00, 0x0a]).write(to: URL(fileURLWithPath: root + "/proc/swaps"))
        let result = LsblkSuite.carve(["--sysroot", root, "-rno", "NAME,MOUNTPOINT"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("nvme0n1p2 /home\n"))
        #expect(result.stderr.contains("proc/self/mountinfo: line 1 does not parse; ignored"))
    }
}

/// Cells outside a UTF-8 locale, as lsblk 2.38 prints the same dump (its output here):
/// a table writes each byte of a non-ASCII character as \xHH; --raw and --pairs escape
/// the same way in both locales.
@Suite struct SysrootLocaleEscapingTests {
    func dump() throws -> String {
        let lab = LsblkSuite.fixtures + "/lab"
        let item = try #require(
            LsblkSuite.cases(in: lab + "/dumps", expected: lab + "/expected").first { $0.dump == "gpt-swap" })
        try Data("ID_FS_LABEL_ENC=caf\\xc3\\xa9\\x20\\x22q\\x24\n".utf8)
            .write(to: URL(fileURLWithPath: item.root + "/dev/loop0p1"))
        try Data("ID_FS_LABEL_ENC=bad\\xff\\x09tab\n".utf8).write(to: URL(fileURLWithPath: item.root + "/dev/loop0p3"))
        return item.root
    }

    @Test func aTableEscapesNonASCIIOnlyOutsideUTF8() throws {
        let root = try dump()
        let posix = LsblkSuite.carve(["--sysroot", root, "-o", "NAME,LABEL"])
        #expect(
            posix.stdout
                == "NAME      LABEL\nloop0     \n|-loop0p1 caf\\xc3\\xa9 \"q$\n|-loop0p2 labswap\n`-loop0p3 bad\\xff\\x09tab\n"
        )
        let utf8 = LsblkSuite.carve(["--sysroot", root, "-o", "NAME,LABEL"], utf8: true)
        #expect(
            utf8.stdout
                == "NAME      LABEL\nloop0     \n├─loop0p1 café \"q$\n├─loop0p2 labswap\n└─loop0p3 bad\\xff\\x09tab\n")
    }

    @Test func rawAndPairsEscapeAlikeInBothLocales() throws {
        let root = try dump()
        for utf8 in [false, true] {
            let raw = LsblkSuite.carve(["--sysroot", root, "-r", "-o", "NAME,LABEL"], utf8: utf8)
            #expect(
                raw.stdout
                    == "NAME LABEL\nloop0 \nloop0p1 caf\\xc3\\xa9\\x20\"q$\nloop0p2 labswap\nloop0p3 bad\\xff\\x09tab\n"
            )
            let pairs = LsblkSuite.carve(["--sysroot", root, "-P", "-o", "NAME,LABEL"], utf8: utf8)
            #expect(pairs.stdout.contains("NAME=\"loop0p1\" LABEL=\"caf\\xc3\\xa9 \\x22q\\x24\"\n"))
            #expect(pairs.stdout.contains("NAME=\"loop0p3\" LABEL=\"bad\\xff\\x09tab\"\n"))
        }
    }
}

extension SysrootBadInputTests {
    @Test func dumpAndSysrootTogetherAreAUsageError() {
        let result = LsblkSuite.carve(["--sysroot", "/tmp", "--dump", "/tmp/carve-test-dump"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--dump and --sysroot are mutually exclusive"))
    }
}
