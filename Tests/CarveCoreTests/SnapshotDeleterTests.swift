import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// A filesystem with one source subvolume and snapshots 300…305 (oldest first),
/// each holding 10 MiB exclusively, on the in-memory backend.
struct DeletionFixture {
    typealias F = SnapshotFixtures
    let filesystem = F.filesystem()
    let home = F.subvolume(256, path: "@home")
    let backend: FakeSnapshotBackend

    init(extra: [Volume] = []) {
        let snapshots = (0..<6).map { index in
            F.snapshot(
                300 + UInt64(index), path: "snaps/home.\(index)", of: F.subvolume(256, path: "@home"),
                daysAgo: Double(60 - index * 10), exclusive: 10 << 20)
        }
        backend = FakeSnapshotBackend([
            .init(filesystem: F.filesystem(), subvolumes: [F.subvolume(256, path: "@home")] + snapshots + extra)
        ])
    }

    var subvolumes: [Volume] { backend.filesystems[0].subvolumes }
    var remainingIDs: [UInt64] { subvolumes.map(\.id) }

    func planned(_ ids: [UInt64], named: Bool = false) -> [PlannedSnapshot] {
        ids.map { id in
            PlannedSnapshot(subvolume: subvolumes.first { $0.id == id }!, filesystem: filesystem, named: named)
        }
    }

    func run(_ ids: [UInt64], rules: DeletionRules = DeletionRules(), cancelAfter: Int? = nil) -> DeletionReport {
        delete(planned(ids), rules: rules, cancelAfter: cancelAfter)
    }

    /// The snapshots deleted in this order by a session (no lock to take, no prompt), which
    /// is interrupted, as by a signal, once the `cancelAfter`th outcome is in.
    func delete(_ plan: [PlannedSnapshot], rules: DeletionRules = .init(), cancelAfter: Int? = nil) -> DeletionReport {
        struct NoLock: DeletionLock, LockHolder {
            func acquire(timeout: Double) throws -> any LockHolder { self }
            func release() {}
        }
        var flag: CancellationFlag?
        let session = DeletionSession(
            backend: backend, lock: NoLock(), lockTimeout: 0, rules: rules, dryRun: false, wait: false)
        let hooks = DeletionSession.Hooks(
            note: { _ in }, confirm: { _ in false }, catchInterrupts: { flag = $0 },
            outcome: { _, index, _ in if index == cancelAfter { flag?.cancel() } })
        do {
            return try session.run(DeletionPlan(toDelete: plan), hooks: hooks).report ?? DeletionReport()
        } catch {
            Issue.record(error, "the session failed before deleting")
            return DeletionReport()
        }
    }

    /// Changes the stored state of a subvolume, as another process would between plan and deletion.
    func change(_ id: UInt64, _ body: (inout Volume) -> Void) {
        var all = backend.filesystems
        let index = all[0].subvolumes.firstIndex { $0.id == id }!
        body(&all[0].subvolumes[index])
        backend.filesystems = all
    }
}

@Suite struct SnapshotDeleterTests {
    @Test(arguments: [(Int32(16), "EBUSY"), (1, "EPERM"), (30, "EROFS")])
    func aFailureLeavesTheOthersDeleted(code: Int32, name: String) {
        let fixture = DeletionFixture()
        fixture.backend.fail(.delete(302), with: FakeSnapshotBackend.errno(code))
        let report = fixture.run([300, 301, 302, 303])
        #expect(report.done.map(\.snapshot.subvolume.id) == [300, 301, 303])
        #expect(report.notDone.map(\.snapshot.subvolume.id) == [302])
        #expect(report.notDone.first?.errorText?.contains(name) == true)
        #expect(report.exitStatus() == .partialFailure)
        #expect(fixture.remainingIDs == [256, 302, 304, 305])
    }

    @Test func alreadyGoneCountsAsDone() {
        let fixture = DeletionFixture()
        fixture.backend.fail(.delete(301), with: FakeSnapshotBackend.errno(2))
        let report = fixture.run([300, 301])
        guard case .alreadyGone = report.outcomes[1].result else {
            Issue.record("expected already gone, got \(report.outcomes[1].result)")
            return
        }
        #expect(report.exitStatus() == .success)
    }

    /// Whether an outcome is done is kept beside its result (the counts read it in
    /// place): a result set later moves it too, and the counts and exit status follow.
    @Test func anOutcomeIsDoneAsItsResultSays() {
        let fixture = DeletionFixture()
        var report = fixture.run([300, 301, 302])
        #expect(report.doneCount == 3 && report.notDoneCount == 0 && report.exitStatus() == .success)
        report.outcomes[1].result = .refused([.important])
        report.outcomes[2].result = .failedToDelete(SystemCallError("x", call: "y", errno: 16))
        #expect(report.outcomes.map(\.isDone) == [true, false, false])
        #expect(report.doneCount == 1 && report.notDoneCount == 2 && report.exitStatus() == .partialFailure)
        report.outcomes[0].result = .refused([.important])
        #expect(report.doneCount == 0 && report.exitStatus() == .failure)
        report.outcomes[1].result = .alreadyGone
        report.outcomes[1].metadataWarning = "cannot remove its metadata"
        // Gone, with its metadata left behind: half-done counts as a failure.
        #expect(report.doneCount == 1 && report.exitStatus() == .partialFailure)
        #expect(report.done.map(\.snapshot.subvolume.id) == [301])
    }

    @Test func aSnapshotDeletedBetweenPlanAndRunIsReportedAsGone() {
        let fixture = DeletionFixture()
        let plan = fixture.planned([300, 301])
        var all = fixture.backend.filesystems
        all[0].subvolumes.removeAll { $0.id == 301 }
        fixture.backend.filesystems = all
        let report = fixture.delete(plan)
        #expect(report.done.count == 2)
        #expect(!fixture.backend.calls.contains(.delete(301)))
    }

    @Test func everyFailureMeansNothingDone() {
        let fixture = DeletionFixture()
        fixture.backend.fail(.delete(300), with: FakeSnapshotBackend.errno(1))
        fixture.backend.fail(.delete(301), with: FakeSnapshotBackend.errno(16))
        #expect(fixture.run([300, 301]).exitStatus() == .failure)
    }

    @Test func theRulesAreCheckedAgainstTheStateRightBeforeDeleting() {
        let fixture = DeletionFixture()
        let plan = fixture.planned([300, 301, 302])
        fixture.change(301) { $0.mountpoints = ["/srv/old"] }
        fixture.change(302) { $0.isDefault = true }
        let report = fixture.delete(plan)
        #expect(report.done.map(\.snapshot.subvolume.id) == [300])
        #expect(report.outcomes[1].errorText == "subvolume is mounted at /srv/old (EBUSY)")
        #expect(report.outcomes[2].errorText == "it is the filesystem's default subvolume")
        #expect(!fixture.backend.calls.contains(.delete(301)))
        #expect(!fixture.backend.calls.contains(.delete(302)))
        #expect(fixture.remainingIDs.contains(301) && fixture.remainingIDs.contains(302))
    }

    /// btrfs refuses the default subvolume inside the deletion call: a rule kept, not a failure.
    @Test func aRefusalByTheFilesystemIsTheRulesVerdictAndTakesTheMarkerBack() {
        let snapper = ManagerMetadata(manager: .snapper, config: "root", number: 7, metadataPath: "/mnt/.snapshots/7")
        let fixture = DeletionFixture(extra: [
            SnapshotFixtures.snapshot(400, path: ".snapshots/7/snapshot", of: nil, daysAgo: 5, metadata: snapper)
        ])
        fixture.backend.fail(.delete(400), with: RefusedByFilesystem(.defaultSubvolume))
        fixture.backend.fail(.delete(301), with: RefusedByFilesystem(.nestedSubvolumes))
        let report = fixture.run([300, 400, 301])
        #expect(report.done.map(\.snapshot.subvolume.id) == [300])
        guard case .refused(let protections) = report.outcomes[1].result else {
            Issue.record("expected a refusal, got \(report.outcomes[1].result)")
            return
        }
        #expect(protections == [.defaultSubvolume])
        #expect(report.outcomes[2].errorText == "it has nested subvolumes (use --recursive to delete them too)")
        #expect(fixture.backend.calls.contains(.unmarkDeletion(400)))
        #expect(!fixture.backend.calls.contains(.removeMetadata(400)))
        #expect(fixture.remainingIDs.contains(400) && fixture.remainingIDs.contains(301))
    }

    @Test func aPlainSubvolumeIsNeverDeletedEvenWhenHandedIn() {
        let fixture = DeletionFixture()
        let report = fixture.run([256], rules: DeletionRules(recursive: true, includeImportant: true))
        #expect(report.outcomes.first?.errorText?.contains("not a snapshot") == true)
        #expect(!fixture.backend.calls.contains(.delete(256)))
        #expect(report.exitStatus() == .failure)
    }

    @Test func managerMetadataGoesOnlyAfterItsSnapshot() {
        let snapper = ManagerMetadata(manager: .snapper, config: "root", number: 7, metadataPath: "/mnt/.snapshots/7")
        let fixture = DeletionFixture(extra: [
            SnapshotFixtures.snapshot(400, path: ".snapshots/7/snapshot", of: nil, daysAgo: 5, metadata: snapper),
            SnapshotFixtures.snapshot(401, path: ".snapshots/8/snapshot", of: nil, daysAgo: 4, metadata: snapper),
        ])
        fixture.backend.fail(.delete(401), with: FakeSnapshotBackend.errno(16))
        let report = fixture.run([400, 401])
        #expect(report.outcomes[0].metadataRemoved == "/mnt/.snapshots/7")
        let calls = fixture.backend.calls
        #expect(calls.firstIndex(of: .delete(400))! < calls.firstIndex(of: .removeMetadata(400))!)
        #expect(!calls.contains(.removeMetadata(401)))
    }

    @Test func anInterruptedRunStopsAfterTheSnapshotBeingDeleted() {
        let fixture = DeletionFixture()
        let report = fixture.run([300, 301, 302, 303], cancelAfter: 2)
        #expect(report.interrupted)
        #expect(report.done.map(\.snapshot.subvolume.id) == [300, 301])
        #expect(report.notAttempted.map(\.subvolume.id) == [302, 303])
        #expect(report.exitStatus() == .interrupted)
        #expect(fixture.remainingIDs == [256, 302, 303, 304, 305])
    }

    @Test func protectionsFollowTheRulesAndTheirFlags() {
        typealias F = SnapshotFixtures
        let important = F.snapshot(
            1, path: "a", of: nil, daysAgo: 1,
            metadata: ManagerMetadata(manager: .snapper, config: "root", number: 3, important: true))
        let zero = F.snapshot(
            2, path: "b", of: nil, daysAgo: 1,
            metadata: ManagerMetadata(manager: .snapper, config: "root", number: 0))
        var nested = F.snapshot(3, path: "c", of: nil, daysAgo: 1)
        nested.hasNestedSubvolumes = true
        var root = F.snapshot(4, path: "d", of: nil, daysAgo: 1)
        root.mountpoints = ["/"]
        var holdsMounts = F.snapshot(5, path: "e", of: nil, daysAgo: 1)
        holdsMounts.mountsInside = ["/mnt/e/proc", "/mnt/e/dev"]
        let strict = DeletionRules()
        let lenient = DeletionRules(recursive: true, includeImportant: true)
        #expect(strict.protections(of: important) == [.important])
        #expect(lenient.protections(of: important).isEmpty)
        #expect(lenient.protections(of: zero) == [.snapperZero])
        #expect(strict.protections(of: nested) == [.nestedSubvolumes])
        #expect(lenient.protections(of: nested).isEmpty)
        #expect(lenient.protections(of: root) == [.mountedAtRoot])
        let everyFlag = DeletionRules(recursive: true, includeImportant: true, breakChains: true, ignoreInUse: true)
        #expect(everyFlag.protections(of: holdsMounts, named: true) == [.mountsInside(["/mnt/e/proc", "/mnt/e/dev"])])
        #expect(
            Protection.mountsInside(["/mnt/e/proc"]).reason
                == "something is mounted inside it at /mnt/e/proc (unmount it first)")
    }
}
