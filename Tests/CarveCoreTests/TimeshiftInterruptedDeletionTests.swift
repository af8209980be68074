import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The marker in timeshift's `snapshots/DATE` while its `@…` subvolumes are deleted,
/// and what the sweep does with each state a killed run can leave, on the fake.
@Suite struct TimeshiftInterruptedDeletionTests {
    typealias F = SnapshotFixtures
    static let places = "/mnt/timeshift-btrfs/snapshots"
    static let first = places + "/2026-10-20_10-00-00"
    static let second = places + "/2026-10-21_10-00-00"

    static func timeshift(_ directory: String) -> ManagerMetadata {
        ManagerMetadata(manager: .timeshift, name: (directory as NSString).lastPathComponent, metadataPath: directory)
    }

    /// Plain snapshots 300…305; timeshift 2026-10-20 as @ (500) and @home (501),
    /// 2026-10-21 as @ (502) alone.
    func fixture() -> DeletionFixture {
        DeletionFixture(extra: [
            F.snapshot(
                500, path: "timeshift-btrfs/snapshots/2026-10-20_10-00-00/@", of: nil, daysAgo: 5,
                metadata: Self.timeshift(Self.first)),
            F.snapshot(
                501, path: "timeshift-btrfs/snapshots/2026-10-20_10-00-00/@home", of: nil, daysAgo: 5,
                metadata: Self.timeshift(Self.first)),
            F.snapshot(
                502, path: "timeshift-btrfs/snapshots/2026-10-21_10-00-00/@", of: nil, daysAgo: 4,
                metadata: Self.timeshift(Self.second)),
        ])
    }

    func sweep(_ fixture: DeletionFixture, dryRun: Bool = false) -> InterruptedDeletionReport {
        InterruptedDeletionSweep(owners: fixture.backend, dryRun: dryRun).run([
            InterruptedDeletionScope(filesystem: fixture.filesystem)
        ])
    }

    @Test func theMarkerIsWrittenBeforeTheFirstSubvolumeAndLeavesWithTheDirectory() throws {
        let fixture = fixture()
        let report = fixture.run([500, 501])
        #expect(report.done.count == 2)
        #expect(report.outcomes.map(\.metadataRemoved) == [nil, Self.first], "DATE goes with its last @…")
        let calls = fixture.backend.calls
        let mark = try #require(calls.firstIndex(of: .markDeletion(500)))
        #expect(mark < calls.firstIndex(of: .delete(500))!)
        #expect(calls.firstIndex(of: .markDeletion(501))! < calls.firstIndex(of: .delete(501))!)
        #expect(calls.firstIndex(of: .delete(501))! < calls.firstIndex(of: .removeMetadata(501))!)
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(fixture.backend.snapperDirectories.orphans.isEmpty)
    }

    @Test func aFailureBeforeAnythingOfTheSnapshotWentTakesTheMarkerBack() {
        let fixture = fixture()
        fixture.backend.fail(.delete(500), with: FakeSnapshotBackend.errno(1))
        let report = fixture.run([500])
        #expect(report.notDone.count == 1)
        #expect(fixture.backend.calls.contains(.unmarkDeletion(500)))
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(sweep(fixture).isEmpty)
    }

    /// @ went, @home failed: the marker stays, the sweep reports the snapshot, and
    /// deleting @home later finishes DATE.
    @Test func aFailureAfterASiblingWentKeepsTheMarker() throws {
        let fixture = fixture()
        fixture.backend.fail(.delete(501), with: FakeSnapshotBackend.errno(16))
        let report = fixture.run([500, 501])
        #expect(report.done.map(\.snapshot.subvolume.id) == [500])
        #expect(report.notDone.map(\.snapshot.subvolume.id) == [501])
        #expect(!fixture.backend.calls.contains(.unmarkDeletion(501)))
        #expect(fixture.backend.snapperDirectories.marked == [Self.first])

        let found = sweep(fixture)
        #expect(
            found.lines == [
                "warning: timeshift snapshot 2026-10-20_10-00-00 (\(Self.first)) may be partly deleted by an interrupted run (@home left): deleting the rest with carve finishes it"
            ])
        #expect(!found.hasWork)
        #expect(fixture.backend.snapperDirectories.marked == [Self.first], "kept: the lost @ stays on record")
        #expect(
            !fixture.backend.calls.contains {
                if case .finishInterrupted = $0 { true } else if case .dropMarker = $0 { true } else { false }
            })

        let rest = fixture.run([501])
        #expect(rest.outcomes.map(\.metadataRemoved) == [Self.first])
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(sweep(fixture).isEmpty)
    }

    /// A kill after the last @…'s deletion, as the fake models it: the metadata removal never comes.
    func killedAfterDeleting(_ fixture: DeletionFixture, _ ids: [UInt64]) {
        fixture.backend.fail(.removeMetadata(ids.last!), with: RuntimeError("killed"))
        _ = fixture.run(ids)
    }

    @Test func aKilledRunIsFinishedAndAnUnmarkedOrphanIsLeft() {
        let fixture = fixture()
        killedAfterDeleting(fixture, [500, 501])
        #expect(fixture.backend.snapperDirectories.marked == [Self.first])
        // 2026-10-19 lost its subvolumes some other way: no marker, never carve's to remove.
        fixture.backend.snapperDirectories.orphans.insert(Self.places + "/2026-10-19_10-00-00")
        let dry = sweep(fixture, dryRun: true)
        #expect(
            dry.lines == [
                "would finish removing the metadata of timeshift snapshot 2026-10-20_10-00-00 (\(Self.first)) left by an interrupted run"
            ])
        #expect(fixture.backend.snapperDirectories.marked == [Self.first], "a dry run changes nothing")
        let report = sweep(fixture)
        #expect(
            report.lines == [
                "finished removing the metadata of timeshift snapshot 2026-10-20_10-00-00 (\(Self.first)) left by an interrupted run"
            ])
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(fixture.backend.snapperDirectories.orphans == [Self.places + "/2026-10-19_10-00-00"])
        #expect(fixture.remainingIDs.contains(502))
    }

    /// A kill after @'s deletion, before @home's: reported and kept, like a failure.
    @Test func aKillBetweenTheSubvolumesIsReportedAndKept() {
        let fixture = fixture()
        fixture.backend.fail(.markDeletion(501), with: RuntimeError("killed"))
        fixture.backend.fail(.delete(501), with: RuntimeError("killed"))
        _ = fixture.run([500, 501])
        let report = sweep(fixture)
        #expect(report.partlyDeleted.map(\.remaining) == [["@home"]])
        #expect(report.finished.isEmpty && report.markersDropped.isEmpty)
        #expect(fixture.backend.snapperDirectories.marked == [Self.first])
    }

    @Test func onlyTimeshiftsPlaceAndListedDirectoriesAreLookedIn() {
        let fixture = fixture()
        // Not at timeshift's top-level place, and not listed: not looked in.
        fixture.backend.snapperDirectories.marked = ["/mnt/elsewhere/snapshots/2026-10-22_10-00-00"]
        fixture.backend.snapperDirectories.orphans = ["/mnt/elsewhere/snapshots/2026-10-22_10-00-00"]
        #expect(sweep(fixture).isEmpty)
        let scope = InterruptedDeletionScope(
            filesystem: fixture.filesystem, seen: [.timeshift: ["/mnt/elsewhere/snapshots"]])
        let report = InterruptedDeletionSweep(owners: fixture.backend, dryRun: false).run([scope])
        #expect(report.finished.map(\.path) == ["/mnt/elsewhere/snapshots/2026-10-22_10-00-00"])
        // The listing names the `snapshots` that hold listed timeshift snapshots.
        let listing = VolumeListing(filesystem: fixture.filesystem, subvolumes: fixture.subvolumes, sizes: .none)
        #expect(InterruptedDeletionScope.from([listing]).map(\.timeshiftDirectories) == [[Self.places]])
    }

    @Test func aFilesystemMountedBelowTheTopLevelHasNoTimeshiftPlace() {
        let fixture = fixture()
        killedAfterDeleting(fixture, [502])
        var all = fixture.backend.filesystems
        all[0].filesystem = F.filesystem(subvolumePath: "/@", subvolumeID: 256)
        fixture.backend.filesystems = all
        #expect(
            InterruptedDeletionSweep(owners: fixture.backend, dryRun: false)
                .run([InterruptedDeletionScope(filesystem: all[0].filesystem)]).isEmpty)
        #expect(fixture.backend.snapperDirectories.marked == [Self.second], "left for a run that can reach it")
    }

    @Test func aFailureToFinishIsAWarningNamingTheTimeshiftSnapshot() {
        let fixture = fixture()
        killedAfterDeleting(fixture, [502])
        fixture.backend.fail(
            .finishInterrupted(Self.second),
            with: SystemCallError(
                "cannot remove snapshot metadata \(Self.second)", call: "unlinkat", errno: 30))
        let report = sweep(fixture)
        #expect(
            report.lines == [
                "warning: cannot finish the interrupted deletion of timeshift snapshot 2026-10-21_10-00-00 (\(Self.second)): read-only filesystem (EROFS, unlinkat)"
            ])
        #expect(sweep(fixture).finished.map(\.path) == [Self.second], "the next run finishes it")
    }
}
