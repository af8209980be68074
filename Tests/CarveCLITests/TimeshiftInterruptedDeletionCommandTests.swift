@testable import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// `delete` and `thin` finish what a killed run left in timeshift's
/// `/mnt/timeshift-btrfs/snapshots` (the harness's filesystem is mounted at its top level).
@Suite struct TimeshiftInterruptedDeletionCommandTests {
    typealias F = SnapshotFixtures
    static let places = "/mnt/timeshift-btrfs/snapshots"
    static let killed = places + "/2026-10-20_10-00-00"
    static let partial = places + "/2026-10-21_10-00-00"
    static let foreign = places + "/2026-10-19_10-00-00"
    static let finishedLine =
        "carve: finished removing the metadata of timeshift snapshot 2026-10-20_10-00-00 (\(killed)) left by an interrupted run"
    static let partialLine =
        "carve: warning: timeshift snapshot 2026-10-21_10-00-00 (\(partial)) may be partly deleted by an interrupted run (@home left): deleting the rest with carve finishes it"

    /// 2026-10-20: a run killed after deleting its @ and @home (marked, no subvolume);
    /// 2026-10-21: marked, @ gone and @home (id 501) left; 2026-10-19 left without
    /// subvolumes by someone else (no marker).
    func harness() -> DeleteHarness {
        let harness = DeleteHarness()
        let metadata = ManagerMetadata(manager: .timeshift, name: "2026-10-21_10-00-00", metadataPath: Self.partial)
        var all = harness.backend.filesystems
        all[0].subvolumes.append(
            F.snapshot(
                501, path: "timeshift-btrfs/snapshots/2026-10-21_10-00-00/@home", of: nil, daysAgo: 4,
                metadata: metadata, exclusive: 1 << 20))
        harness.backend.filesystems = all
        var directories = harness.backend.snapperDirectories
        directories.marked = [Self.killed, Self.partial]
        directories.orphans = [Self.killed, Self.foreign]
        harness.backend.snapperDirectories = directories
        return harness
    }

    @Test func theNextDeleteFinishesItFirstReportsThePartOneAndLeavesTheUnmarkedOne() throws {
        let harness = harness()
        let result = harness.run(["delete", "/mnt/snaps/home.0", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let finished = try #require(lines.firstIndex(of: Self.finishedLine), "\(result.stderr)")
        let partial = try #require(lines.firstIndex(of: Self.partialLine), "\(result.stderr)")
        let deleted = try #require(lines.firstIndex { $0.hasPrefix("carve: deleted snapshot") })
        #expect(
            finished < deleted && partial < deleted, "the leftovers are dealt with before this run deletes anything")
        #expect(harness.backend.snapperDirectories.marked == [Self.partial], "the partly deleted one keeps its marker")
        #expect(harness.backend.snapperDirectories.orphans == [Self.foreign])
        #expect(!harness.backend.calls.contains(.finishInterrupted(Self.foreign)))
        #expect(!harness.backend.calls.contains(.finishInterrupted(Self.partial)))
        #expect(!harness.backend.calls.contains(.dropMarker(Self.partial)))
        #expect(harness.remaining.contains(501))
    }

    @Test func aDryRunSaysWhatItWouldFinishAndChangesNothing() {
        let harness = harness()
        let result = harness.run(["delete", "/mnt/snaps/home.0", "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "carve: would finish removing the metadata of timeshift snapshot 2026-10-20_10-00-00 (\(Self.killed)) left by an interrupted run"
            ),
            "\(result.stderr)")
        #expect(result.stderr.contains(Self.partialLine))
        #expect(!result.stdout.contains("interrupted run"), "stdout holds the report only")
        #expect(harness.backend.snapperDirectories.marked == [Self.killed, Self.partial])
        #expect(harness.backend.snapperDirectories.orphans == [Self.killed, Self.foreign])
        #expect(!FileManager.default.fileExists(atPath: harness.lockPath), "a dry run takes no lock")
    }

    @Test func aRunWithNothingToDeleteFinishesItAndOnlyReportsThePartOne() {
        let harness = harness()
        let result = harness.run(["delete", "--manager", "btrbk", "--all", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(Self.finishedLine), "\(result.stderr)")
        #expect(result.stderr.contains(Self.partialLine), "\(result.stderr)")
        #expect(harness.backend.snapperDirectories.marked == [Self.partial])
        #expect(harness.remaining.count == 10)

        let again = harness.run(["delete", "--manager", "btrbk", "--all", "--yes"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stderr.contains(Self.finishedLine))
        #expect(
            again.stderr.contains(Self.partialLine),
            "a partly deleted snapshot is reported on every run: \(again.stderr)")
        #expect(harness.backend.snapperDirectories.marked == [Self.partial])
    }

    @Test func deletingTheRestWithCarveFinishesIt() {
        let harness = harness()
        let result = harness.run(["delete", Self.partial + "/@home", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("carve: removed its timeshift metadata \(Self.partial)"), "\(result.stderr)")
        #expect(!harness.backend.snapperDirectories.marked.contains(Self.partial))
        let again = harness.run(["delete", "/mnt/snaps/home.1", "--yes"])
        #expect(again.status == 0 && again.stdout.contains("deleted 1 snapshot"), "\(again.stdout)\(again.stderr)")
        #expect(!again.stderr.contains("interrupted run"), "nothing is left to finish: \(again.stderr)")
        #expect(harness.backend.snapperDirectories.orphans == [Self.foreign])
    }

    @Test func thinFinishesItToo() {
        let harness = harness()
        let result = harness.run(["thin", "/mnt", "--free", "5M", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(Self.finishedLine), "\(result.stderr)")
        #expect(!harness.backend.snapperDirectories.marked.contains(Self.killed))
    }
}
