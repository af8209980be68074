@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots pinned`, and `delete --dry-run --pinned`, on the fake backend's
/// trees: @home (256) and its snapshots home.0-home.5 (300-305), snapper 310
/// (important) and 311.
@Suite struct SnapshotsPinnedCommandTests {
    static let mib: UInt64 = 1 << 20

    /// home.0 (300) and home.1 (301) hold 20M of a VM image (renamed in home.1) that
    /// nobody else does; home.0 alone a 4M log; home.2 (302) alone 1M of a file with no
    /// name left; snapper 310 alone 2M; everything shares a 100M file with @home.
    static func harness(quotas: Bool = false) -> DeleteHarness {
        let harness = DeleteHarness(quotas: quotas)
        func extent(_ bytenr: UInt64, _ bytes: UInt64) -> ExtentKey {
            ExtentKey(diskBytenr: bytenr << 30, diskBytes: bytes)
        }
        var files = [
            FakeFileReference(300, inode: 1000, extent: extent(3, 20 * mib), path: "images/vm-old.qcow2"),
            FakeFileReference(301, inode: 1000, extent: extent(3, 20 * mib), path: "images/vm.qcow2"),
            FakeFileReference(300, inode: 1001, extent: extent(4, 4 * mib), path: "logs/a.log", links: 2),
            FakeFileReference(302, inode: 1002, extent: extent(5, mib), path: nil, links: 0),
            FakeFileReference(310, inode: 1003, extent: extent(6, 2 * mib), path: "etc/old.conf"),
        ]
        let ids = harness.backend.filesystems[0].subvolumes.map(\.id)
        for id in ids { files.append(FakeFileReference(id, inode: 900, extent: extent(1, 100 * mib), path: "big")) }
        harness.backend.filesystems[0].files = files
        harness.backend.filesystems[0].exact = FakeFileReference.exact(files, subvolumes: ids)
        return harness
    }

    static func json(_ result: RunResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    @Test func theFilesOnlyTheSetHoldsAddUpToItsReclaim() {
        let result = Self.harness().run(["pinned", "/mnt/snaps/home.0", "/mnt/snaps/home.1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                SIZE FIRST  LAST   LINKS PATH
                 20M home.0 home.1     1 images/vm.qcow2
                  4M home.0 home.0     2 logs/a.log
                Deleting these 2 snapshots frees 24M of file data (exact) and 32K of tree blocks and up to 24K of checksums (metadata, estimate).

                """)
    }

    @Test func topLeavesOutTheSmallerFilesAndSaysWhatTheyHold() {
        let result = Self.harness().run(["pinned", "--id", "300", "--id", "301", "--top", "1", "--bytes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("20971520 home.0 home.1"), "\(result.stdout)")
        #expect(!result.stdout.contains("logs/a.log"))
        #expect(result.stdout.contains("1 of 2 files shown (--top 0 shows all); the other 1 hold 4194304 bytes"))
        #expect(result.stdout.contains("frees 25165824 bytes of file data (exact)"))
    }

    @Test func jsonHasEveryFileWithEveryColumnAndTheTotals() throws {
        let result = Self.harness().run(["pinned", "--id", "300", "--id", "301", "--id", "302", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(result)
        let filesystem = try #require((json["filesystems"] as? [[String: Any]])?.first)
        #expect(filesystem["reclaim"] as? Int == Int(25 * Self.mib))
        #expect(filesystem["file_count"] as? Int == 3)
        let files = try #require(filesystem["files"] as? [[String: Any]])
        #expect(files.map { $0["bytes"] as? Int ?? 0 }.reduce(0, +) == Int(25 * Self.mib))
        #expect(
            Set(files[0].keys) == ["bytes", "first", "last", "links", "path", "snapshot", "inode", "extents"])
        #expect(files[0]["first"] as? String == "/mnt/snaps/home.0")
        #expect(files[0]["last"] as? String == "/mnt/snaps/home.1")
        let unnamed = try #require(files.first { $0["inode"] as? Int == 1002 })
        #expect(unnamed["path"] is NSNull)
        #expect(unnamed["snapshot"] as? String == "/mnt/snaps/home.2")
        let table = Self.harness().run(["pinned", "--id", "302"])
        #expect(table.stdout.contains("<inode 1002 in /mnt/snaps/home.2>"), "\(table.stdout)")
    }

    @Test func outputChoosesTheColumnsOfTheTableAndTheJSON() throws {
        let harness = Self.harness()
        let table = harness.run(["pinned", "--id", "300", "--output", "PATH,SIZE,INODE"])
        #expect(table.stdout.hasPrefix("PATH       SIZE INODE\nlogs/a.log   4M  1001\n"), "\(table.stdout)")
        let result = harness.run(["pinned", "--id", "300", "-o", "path,size", "--json"])
        let files = try #require((try Self.json(result)["filesystems"] as? [[String: Any]])?.first?["files"])
        #expect((files as? [[String: Any]])?.first.map { Set($0.keys) } == ["path", "bytes"])
        let help = harness.run(["pinned", "--output", "help"])
        #expect(help.status == 0 && help.stdout.contains("FIRST") && help.stdout.contains("EXTENTS"))
    }

    @Test func aSetThatPinsNothingSaysSoInOneLine() {
        let result = Self.harness().run(["pinned", "--id", "303"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "/mnt/snaps/home.3 pins no file data: deleting it frees only 16K of tree blocks (metadata, estimate)\n"
        )
    }

    @Test func quotasOnOrOffGiveTheSameAnswer() {
        let on = Self.harness(quotas: true).run(["pinned", "--id", "300", "--id", "301", "--json"])
        let off = Self.harness(quotas: false).run(["pinned", "--id", "300", "--id", "301", "--json"])
        #expect(on.status == 0 && off.status == 0, "\(on.stderr)\(off.stderr)")
        #expect(on.stdout == off.stdout)
    }

    @Test func selectedSnapshotsDeleteWouldKeepAreLeftOutAndNamed() {
        // Older than 45 days: home.0, home.1 and the snapper snapshots; 310 is important.
        let result = Self.harness().run(["pinned", "--filesystem", "/mnt", "--older-than", "45d"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("left out: /mnt/.snapshots/1/snapshot (delete keeps it: "), "\(result.stderr)")
        #expect(!result.stdout.contains("etc/old.conf"))
        #expect(result.stdout.contains("images/vm.qcow2"))
        // Named, it is in the set.
        let named = Self.harness().run(["pinned", "root:1"])
        #expect(named.stdout.contains("etc/old.conf"), "\(named.stdout)\(named.stderr)")
    }

    @Test func nothingMatchedIsOneLineAndSuccess() {
        let result = Self.harness().run(["pinned", "--filesystem", "/mnt", "--older-than", "10y"])
        #expect(result.status == 0)
        #expect(result.stdout == "no snapshots matched\n")
    }

    @Test func notRootIsTheSameNeedsRootAsExactSizes() {
        let harness = Self.harness()
        harness.isRoot = false
        let result = harness.run(["pinned", "--id", "300"])
        #expect(result.status == 77)
        #expect(result.stderr == "carve: reading exact sizes (--sizes exact) needs root\n")
    }

    @Test(arguments: [
        (["pinned"], "no snapshots named"),
        (["pinned", "--id", "300", "--top", "-1"], "invalid value '-1' for --top"),
        (["pinned", "--id", "300", "--output", "SIZE,NOPE"], "unknown column 'NOPE' for --output"),
        (["pinned", "--filesystem", "/mnt", "--older-than", "30x"], "30x"),
        (["delete", "--id", "300", "--pinned", "--yes"], "--pinned goes with --dry-run"),
    ])
    func badInputIsOneLineAndExit64(_ arguments: [String], _ message: String) {
        let result = Self.harness().run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aDryRunWithPinnedShowsTheSameRowsForThePlan() throws {
        let text = Self.harness().run(["delete", "--id", "300", "--id", "301", "--dry-run", "--pinned"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Files only the snapshots to delete hold:\nSIZE FIRST  LAST   LINKS PATH\n"))
        #expect(text.stdout.contains(" 20M home.0 home.1     1 images/vm.qcow2\n"), "\(text.stdout)")
        #expect(text.stdout.hasSuffix("dry run: would delete 2 snapshots, freeing at least 24M; nothing deleted\n"))
        // With quota sizes the plan has no extent map: the rows are read with one.
        let json = Self.harness(quotas: true).run([
            "delete", "--id", "300", "--id", "301", "--dry-run", "--pinned", "--json",
        ])
        let pinned = try #require(try Self.json(json)["pinned"] as? [String: Any], "\(json.stdout)")
        let filesystem = try #require((pinned["filesystems"] as? [[String: Any]])?.first)
        #expect(filesystem["reclaim"] as? Int == Int(24 * Self.mib))
        let thin = Self.harness().run(["thin", "/mnt", "--free", "20M", "--sizes", "exact", "--dry-run", "--pinned"])
        #expect(thin.status == 0, "\(thin.stderr)")
        #expect(thin.stdout.contains("Files only the snapshots to delete hold:"), "\(thin.stdout)")
    }

    @Test func checkNamesTheFilesUnderItsSnapshotsBlockerInTextAndJSON() throws {
        var blocker = Blocker(.snapshots, bytes: 300 * Self.mib, detail: "2 snapshot(s) pin 300M the shrink needs")
        var image = PinnedFile(inode: 300, bytes: 250 * Self.mib, first: 261, last: 262, path: "vm.img", links: 1)
        image.namedIn = SnapshotReference(id: 262, path: "/mnt/snaps/c", label: "c")
        var gone = PinnedFile(inode: 301, bytes: 50 * Self.mib, first: 261, last: 261)
        gone.namedIn = SnapshotReference(id: 261, path: "/mnt/snaps/b", label: "b")
        blocker.pinnedFiles = [image, gone]
        let report = CheckReport(
            device: "/dev/sda1", filesystem: "btrfs", operation: .shrinkTo(1 << 30), currentSize: 2 << 30,
            targetSize: 1 << 30, blockers: [blocker])
        #expect(
            CheckReportView.text(report).contains(
                """
                  snapshots (300M): 2 snapshot(s) pin 300M the shrink needs
                      the largest files only they hold:
                        250M /mnt/snaps/c/vm.img
                         50M <inode 301 in /mnt/snaps/b>

                """), "\(CheckReportView.text(report))")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(CheckReportView.json(report).rendered().utf8))
                as? [String: Any])
        let files = try #require((json["blockers"] as? [[String: Any]])?.first?["pinned_files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["vm.img", nil])
        #expect(files.first?["snapshot"] as? String == "/mnt/snaps/c")
    }
}
