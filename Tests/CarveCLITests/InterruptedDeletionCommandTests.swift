@testable import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// `delete` and `thin` finish what a killed run left in snapper's `.snapshots`
/// (the fake holds root's snapper snapshots 1, important, and 2 under /mnt/.snapshots).
@Suite struct InterruptedDeletionCommandTests {
    static let finishedFive =
        "carve: finished removing the metadata of snapper snapshot root:5 (/mnt/.snapshots/5) left by an interrupted run"

    /// A run killed between deleting root:5's subvolume and removing its directory;
    /// root:6 left without a subvolume by someone else (no marker).
    func harness() -> DeleteHarness {
        let harness = DeleteHarness()
        var snapper = harness.backend.snapperDirectories
        snapper.configs["/mnt/.snapshots"] = "root"
        snapper.marked = ["/mnt/.snapshots/5"]
        snapper.orphans = ["/mnt/.snapshots/5", "/mnt/.snapshots/6"]
        harness.backend.snapperDirectories = snapper
        return harness
    }

    @Test func theNextDeleteFinishesItFirstAndLeavesTheUnmarkedOne() throws {
        let harness = harness()
        let result = harness.run(["delete", "/mnt/snaps/home.0", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let finished = try #require(lines.firstIndex(of: Self.finishedFive), "\(result.stderr)")
        let deleted = try #require(lines.firstIndex { $0.hasPrefix("carve: deleted snapshot") })
        #expect(finished < deleted, "the leftover is finished before this run deletes anything")
        #expect(harness.backend.snapperDirectories.marked.isEmpty)
        #expect(harness.backend.snapperDirectories.orphans == ["/mnt/.snapshots/6"])
        #expect(!harness.backend.calls.contains(.finishInterrupted("/mnt/.snapshots/6")))
        #expect(harness.remaining == [256, 301, 302, 303, 304, 305, 310, 311])
    }

    @Test func aDryRunSaysWhatItWouldFinish() {
        let harness = harness()
        let result = harness.run(["delete", "/mnt/snaps/home.0", "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "carve: would finish removing the metadata of snapper snapshot root:5 (/mnt/.snapshots/5) left by an interrupted run"
            ))
        #expect(harness.backend.snapperDirectories.marked == ["/mnt/.snapshots/5"])
        #expect(harness.backend.snapperDirectories.orphans == ["/mnt/.snapshots/5", "/mnt/.snapshots/6"])
        #expect(!FileManager.default.fileExists(atPath: harness.lockPath), "a dry run takes no lock")
    }

    @Test func aRunWithNothingToDeleteStillFinishesIt() {
        let harness = harness()
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "1000d", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(Self.finishedFive), "\(result.stderr)")
        #expect(harness.backend.snapperDirectories.marked.isEmpty)
        #expect(harness.remaining.count == 9)
    }

    @Test func aRunWithNothingToDeleteLeavesItWhenAnotherCarveHoldsTheLock() throws {
        let harness = harness()
        let holder = try FileDeletionLock(path: harness.lockPath).acquire(timeout: 0)
        defer { holder.release() }
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "1000d", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "carve: another carve holds the lock: what interrupted runs left is finished by a later run"))
        #expect(harness.backend.snapperDirectories.marked == ["/mnt/.snapshots/5"])
    }

    @Test func aLockThatCannotBeTakenIsAWarningForARunWithNothingToDelete() throws {
        let harness = harness()
        try FileManager.default.createDirectory(atPath: harness.lockPath, withIntermediateDirectories: false)
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "1000d", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let line =
            result.stderr.split(separator: "\n").first { $0.hasPrefix("carve: warning: ") }.map(String.init) ?? ""
        #expect(
            line.contains(harness.lockPath)
                && line.hasSuffix(": what interrupted runs left is finished by a later run"), "\(result.stderr)")
        #expect(harness.backend.snapperDirectories.marked == ["/mnt/.snapshots/5"])
    }

    @Test func thinFinishesItToo() {
        let harness = harness()
        let result = harness.run(["thin", "/mnt", "--free", "5M", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(Self.finishedFive), "\(result.stderr)")
        #expect(harness.backend.snapperDirectories.marked.isEmpty)
    }

    @Test func aSweepThatFailsIsAWarningAndTheRunGoesOn() {
        let harness = harness()
        harness.backend.fail(
            .markedDirectories(SnapshotFixtures.filesystem().uuid),
            with: SystemCallError(
                "cannot open /mnt/.snapshots", call: "open", errno: 5))
        let result = harness.run(["delete", "/mnt/snaps/home.0", "--yes", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "carve: warning: cannot look for deletions left unfinished on /mnt: cannot open /mnt/.snapshots: input/output error (EIO, open)"
            ),
            "\(result.stderr)")
        #expect(!harness.remaining.contains(300))
        #expect(harness.backend.snapperDirectories.marked == ["/mnt/.snapshots/5"], "left for the next run")
    }

    /// The half-done case the exit status 4 reports is finished by the next run.
    @Test func aFullDiskLeftoverIsFinishedByTheNextRun() {
        let harness = DeleteHarness()
        harness.backend.fail(
            .removeMetadata(311),
            with: SystemCallError(
                "cannot remove snapshot metadata /mnt/.snapshots/2", call: "unlinkat", errno: 28))
        let first = harness.run(["delete", "root:2", "--yes"])
        #expect(first.status == 4, "\(first.stderr)")
        #expect(harness.backend.snapperDirectories.marked == ["/mnt/.snapshots/2"])
        let second = harness.run(["delete", "/mnt/snaps/home.0", "--yes"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "carve: finished removing the metadata of snapper snapshot /mnt/.snapshots/2 left by an interrupted run"
            ), "\(second.stderr)")
        #expect(harness.backend.snapperDirectories.marked.isEmpty)
        #expect(harness.backend.snapperDirectories.orphans.isEmpty)
    }
}
