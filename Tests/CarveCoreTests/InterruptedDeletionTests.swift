import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The marker carve leaves in snapper's `.snapshots/N` while deleting its snapshot,
/// and the sweep that finishes what a killed run left, on the in-memory backend.
@Suite struct InterruptedDeletionTests {
    typealias F = SnapshotFixtures
    static func snapper(_ number: Int) -> ManagerMetadata {
        ManagerMetadata(manager: .snapper, config: "root", number: number, metadataPath: "/mnt/.snapshots/\(number)")
    }

    /// Plain snapshots 300…305 and snapper snapshots 7 (400) and 8 (401) under /mnt/.snapshots, a config's.
    func fixture() -> DeletionFixture {
        let fixture = DeletionFixture(extra: [
            F.snapshot(400, path: ".snapshots/7/snapshot", of: nil, daysAgo: 5, metadata: Self.snapper(7)),
            F.snapshot(401, path: ".snapshots/8/snapshot", of: nil, daysAgo: 4, metadata: Self.snapper(8)),
        ])
        fixture.backend.snapperDirectories.configs["/mnt/.snapshots"] = "root"
        return fixture
    }

    func sweep(_ fixture: DeletionFixture, dryRun: Bool = false, seen: [String] = []) -> InterruptedDeletionReport {
        InterruptedDeletionSweep(owners: fixture.backend, dryRun: dryRun)
            .run([InterruptedDeletionScope(filesystem: fixture.filesystem, seen: [.snapper: seen])])
    }

    @Test func theMarkerIsWrittenBeforeTheSubvolumeGoesAndLeavesWithItsDirectory() throws {
        let fixture = fixture()
        let report = fixture.run([300, 400])
        #expect(report.done.count == 2)
        let calls = fixture.backend.calls
        let mark = try #require(calls.firstIndex(of: .markDeletion(400)))
        #expect(mark < calls.firstIndex(of: .delete(400))!)
        #expect(calls.firstIndex(of: .delete(400))! < calls.firstIndex(of: .removeMetadata(400))!)
        #expect(!calls.contains(.markDeletion(300)), "a plain snapshot has no snapper directory to mark")
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(fixture.backend.snapperDirectories.orphans.isEmpty)
    }

    @Test(arguments: [Int32(16), 1, 30])
    func aFailedDeletionTakesItsMarkerBack(code: Int32) {
        let fixture = fixture()
        fixture.backend.fail(.delete(400), with: FakeSnapshotBackend.errno(code))
        let report = fixture.run([400])
        #expect(report.notDone.count == 1)
        #expect(fixture.backend.calls.contains(.unmarkDeletion(400)))
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
    }

    @Test func aRefusedSnapshotIsNeverMarked() {
        let fixture = fixture()
        fixture.change(400) { $0.mountpoints = ["/srv/old"] }
        let report = fixture.run([400])
        #expect(report.notDone.count == 1)
        #expect(!fixture.backend.calls.contains(.markDeletion(400)))
    }

    @Test func aMarkerThatCannotBeWrittenDoesNotStopTheDeletion() {
        let fixture = fixture()
        fixture.backend.fail(
            .markDeletion(400),
            with: SystemCallError("cannot write /mnt/.snapshots/7/.carve-deleting", call: "openat", errno: 28))
        let report = fixture.run([400])
        #expect(report.done.map(\.snapshot.subvolume.id) == [400])
        #expect(report.exitStatus() == .success)
    }

    /// A kill between the subvolume and its directory, as the fake models it: the
    /// metadata removal never comes.
    func killedAfterDeleting(_ fixture: DeletionFixture, _ id: UInt64) {
        fixture.backend.fail(.removeMetadata(id), with: RuntimeError("killed"))
        _ = fixture.run([id])
    }

    @Test func aKilledRunIsFinishedAndNothingElseIsTouched() {
        let fixture = fixture()
        killedAfterDeleting(fixture, 400)
        #expect(fixture.backend.snapperDirectories.marked == ["/mnt/.snapshots/7"])
        // An earlier run died before deleting 8: its marker is there, so is its subvolume.
        fixture.backend.snapperDirectories.marked.insert("/mnt/.snapshots/8")
        // Left without a subvolume by someone else: no marker, never carve's to remove.
        fixture.backend.snapperDirectories.orphans.insert("/mnt/.snapshots/3")
        let report = sweep(fixture)
        #expect(report.finished.map(\.number) == [7])
        #expect(report.markersDropped.map(\.number) == [8])
        #expect(report.warnings.isEmpty)
        #expect(
            report.lines == [
                "finished removing the metadata of snapper snapshot root:7 (/mnt/.snapshots/7) left by an interrupted run",
                "removed the deletion marker of snapper snapshot root:8 (/mnt/.snapshots/8): an interrupted run had not deleted it",
            ])
        #expect(fixture.backend.snapperDirectories.marked.isEmpty)
        #expect(fixture.backend.snapperDirectories.orphans == ["/mnt/.snapshots/3"])
        #expect(fixture.remainingIDs.contains(401), "the snapshot whose marker was dropped is still there")
        #expect(!fixture.backend.calls.contains(.finishInterrupted("/mnt/.snapshots/3")))
        #expect(!fixture.backend.calls.contains(.finishInterrupted("/mnt/.snapshots/8")))
    }

    @Test func aDryRunSaysWhatItWouldFinishAndChangesNothing() {
        let fixture = fixture()
        killedAfterDeleting(fixture, 400)
        fixture.backend.snapperDirectories.marked.insert("/mnt/.snapshots/8")
        let before = fixture.backend.snapperDirectories
        let report = sweep(fixture, dryRun: true)
        #expect(
            report.lines == [
                "would finish removing the metadata of snapper snapshot root:7 (/mnt/.snapshots/7) left by an interrupted run",
                "would remove the deletion marker of snapper snapshot root:8 (/mnt/.snapshots/8): an interrupted run had not deleted it",
            ])
        #expect(fixture.backend.snapperDirectories.marked == before.marked)
        #expect(fixture.backend.snapperDirectories.orphans == before.orphans)
        #expect(
            !fixture.backend.calls.contains {
                if case .finishInterrupted = $0 { true } else if case .dropMarker = $0 { true } else { false }
            })
    }

    @Test func failuresAreWarningsAndTheOtherDirectoriesAreStillFinished() {
        let fixture = fixture()
        killedAfterDeleting(fixture, 400)
        killedAfterDeleting(fixture, 401)
        fixture.backend.fail(
            .finishInterrupted("/mnt/.snapshots/7"),
            with: SystemCallError("cannot remove snapshot metadata /mnt/.snapshots/7", call: "unlinkat", errno: 30))
        let report = sweep(fixture)
        #expect(report.finished.map(\.number) == [8])
        #expect(
            report.warnings == [
                "cannot finish the interrupted deletion of snapper snapshot root:7 (/mnt/.snapshots/7): read-only filesystem (EROFS, unlinkat)"
            ])
        #expect(fixture.backend.snapperDirectories.marked == ["/mnt/.snapshots/7"], "left for the next run")

        fixture.backend.fail(
            .markedDirectories(fixture.filesystem.uuid), with: RuntimeError("cannot open /mnt/.snapshots"))
        let failed = sweep(fixture)
        #expect(failed.finished.isEmpty)
        #expect(failed.warnings == ["cannot look for deletions left unfinished on /mnt: cannot open /mnt/.snapshots"])
        #expect(sweep(fixture).finished.map(\.number) == [7], "the next run finishes it")
    }

    @Test func onlyConfigsAndListedSnapperDirectoriesAreLookedIn() {
        let fixture = fixture()
        fixture.backend.snapperDirectories.configs = [:]
        fixture.backend.snapperDirectories.marked = ["/mnt/.snapshots/9", "/mnt/data/.snapshots/4"]
        fixture.backend.snapperDirectories.orphans = ["/mnt/.snapshots/9", "/mnt/data/.snapshots/4"]
        let listing = VolumeListing(filesystem: fixture.filesystem, subvolumes: fixture.subvolumes, sizes: .none)
        let scopes = InterruptedDeletionScope.from([listing])
        #expect(scopes.map(\.snapperDirectories) == [["/mnt/.snapshots"]])
        let report = InterruptedDeletionSweep(owners: fixture.backend, dryRun: false).run(scopes)
        #expect(
            report.lines == [
                "finished removing the metadata of snapper snapshot /mnt/.snapshots/9 left by an interrupted run"
            ])
        #expect(fixture.backend.snapperDirectories.marked == ["/mnt/data/.snapshots/4"])
    }

    /// One pass over the listing serves every owner that marks: each owner's parents,
    /// each once, in listing order, whatever the other owners' snapshots between them.
    @Test func eachMarkingOwnerGetsItsOwnParentsOnce() {
        func volume(_ id: UInt64, _ manager: SnapshotManager, _ path: String) -> Volume {
            var volume = SnapshotFixtures.snapshot(id, path: "v\(id)", of: nil, daysAgo: 1)
            volume.metadata.manager = manager
            volume.metadata.metadataPath = path
            return volume
        }
        let subvolumes = [
            volume(300, .snapper, "/mnt/.snapshots/1"), volume(301, .timeshift, "/ts/snapshots/a"),
            volume(302, .snapper, "/mnt/data/.snapshots/4"), volume(303, .snapper, "/mnt/.snapshots/2"),
            volume(304, .timeshift, "/ts/snapshots/b"), volume(305, .plain, "/elsewhere/x"),
        ]
        let listing = VolumeListing(filesystem: SnapshotFixtures.filesystem(), subvolumes: subvolumes, sizes: .none)
        let scope = InterruptedDeletionScope.from([listing])[0]
        #expect(scope.snapperDirectories == ["/mnt/.snapshots", "/mnt/data/.snapshots"])
        #expect(scope.timeshiftDirectories == ["/ts/snapshots"])
        #expect(scope.seen[.plain] == nil)
    }
}
