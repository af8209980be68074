import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Only disposable snapshots go: an engine's subvolumes never, a clone in use only
/// when named, a snapshot a process holds only with --ignore-in-use.
@Suite struct LiveDataProtectionTests {
    typealias F = SnapshotFixtures
    static let podman = ManagerMetadata(manager: .podman)

    static func clone(_ id: UInt64, written: Bool) -> Volume {
        var volume = F.snapshot(id, path: "work/clone\(id)", of: F.subvolume(256, path: "@home"), daysAgo: 90)
        volume.readOnly = false
        volume.changedSinceTaken = written
        return volume
    }

    static let extras: [Volume] = [
        F.snapshot(400, path: "srv/podman/btrfs/subvolumes/aa", of: nil, daysAgo: 80, metadata: podman),
        clone(401, written: true),
        clone(402, written: false),
    ]

    func plan(
        _ fixture: DeletionFixture, ids: [UInt64], named: Bool = false, rules: DeletionRules = DeletionRules()
    )
        -> DeletionPlan
    {
        DeletionPlan.make(selected: fixture.planned(ids, named: named), rules: rules)
    }

    @Test func anEnginesSnapshotIsProtectedInBulkWithTheEnginesTool() {
        let fixture = DeletionFixture(extra: Self.extras)
        let plan = plan(fixture, ids: [300, 400])
        #expect(plan.toDelete.map(\.subvolume.id) == [300])
        #expect(plan.protected.map(\.reason) == ["owned by podman: delete it with podman"])
    }

    @Test func anEnginesSnapshotNamedIsRefusedAndTheOthersGo() {
        let fixture = DeletionFixture(extra: Self.extras)
        let plan = plan(fixture, ids: [300, 400], named: true)
        #expect(plan.protectedCountingAsFailed == 1)
        let report = fixture.run([300, 400])
        #expect(report.done.map(\.snapshot.subvolume.id) == [300])
        #expect(report.notDone.first?.errorText == "owned by podman: delete it with podman")
        #expect(fixture.remainingIDs.contains(400))
    }

    @Test(arguments: [SnapshotManager.docker, .podman, .machines, .incus])
    func everyEngineIsLiveDataWhatevertheFlags(engine: SnapshotManager) {
        var volume = F.snapshot(500, path: "x", of: nil, daysAgo: 1, metadata: ManagerMetadata(manager: engine))
        volume.readOnly = false
        let rules = DeletionRules(recursive: true, includeImportant: true, breakChains: true, ignoreInUse: true)
        let reasons = rules.protections(of: volume, named: true).map(\.reason)
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("owned by \(engine.rawValue): delete it with ") == true)
        #expect(engine.isContainerEngine)
        #expect(!SnapshotManager.snapper.isContainerEngine && !SnapshotManager.plain.isContainerEngine)
    }

    @Test func aCloneInUseIsKeptFromBulkAndDeletedWhenNamed() {
        let fixture = DeletionFixture(extra: Self.extras)
        let bulk = plan(fixture, ids: [401, 402])
        #expect(bulk.toDelete.map(\.subvolume.id) == [402])
        #expect(
            bulk.protected.map(\.reason) == ["written to since it was taken: a clone in use (name it to delete it)"])
        let named = plan(fixture, ids: [401], named: true)
        #expect(named.toDelete.map(\.subvolume.id) == [401])
        let deleter = SnapshotDeleter(backend: fixture.backend, rules: DeletionRules())
        let outcomes = named.toDelete.map(deleter.delete)
        #expect(outcomes.filter { $0.errorText == nil }.map(\.snapshot.subvolume.id) == [401])
    }

    @Test func onlyAPlainWritableSnapshotCountsAsAClone() {
        var readOnly = Self.clone(600, written: true)
        readOnly.readOnly = true
        var timeshift = Self.clone(601, written: true)
        timeshift.metadata = ManagerMetadata(manager: .timeshift, name: "2026-01-01_00-00-01")
        var received = Self.clone(602, written: true)
        received.receivedUUID = F.uuid(7)
        for volume in [readOnly, timeshift, received] { #expect(!volume.isCloneInUse) }
        #expect(Self.clone(603, written: true).isCloneInUse)
        #expect(!Self.clone(604, written: false).isCloneInUse)
    }

    @Test func aHeldSnapshotIsKeptNamedOrNotWithThePidAndCommand() {
        let fixture = DeletionFixture()
        let holders = FakeVolumeHolders([302: [VolumeHolder(pid: 4242, command: "restic")]])
        let rules = DeletionRules(holders: holders)
        for named in [false, true] {
            let plan = plan(fixture, ids: [301, 302], named: named, rules: rules)
            #expect(plan.toDelete.map(\.subvolume.id) == [301])
            #expect(plan.protected.map(\.reason) == ["in use by 4242 (restic) (use --ignore-in-use)"])
        }
        var ignoring = rules
        ignoring.ignoreInUse = true
        #expect(plan(fixture, ids: [301, 302], rules: ignoring).toDelete.count == 2)
    }

    @Test func whoHoldsASnapshotIsLookedAtAgainRightBeforeItsDeletion() {
        let fixture = DeletionFixture()
        let holders = FakeVolumeHolders()
        let plan = plan(fixture, ids: [300, 301], rules: DeletionRules(holders: holders))
        #expect(plan.toDelete.count == 2)
        // A backup starts reading 301 after the plan was made.
        holders.onRecheck = { _ in [301: [VolumeHolder(pid: 77, command: "rsync")]] }
        let report = fixture.run([300, 301], rules: DeletionRules(holders: holders))
        #expect(report.done.map(\.snapshot.subvolume.id) == [300])
        #expect(report.notDone.first?.errorText == "in use by 77 (rsync) (use --ignore-in-use)")
        #expect(holders.rechecks == 2)
        #expect(fixture.remainingIDs.contains(301))
    }

    @Test func holdersAreNotLookedForWhenAnotherRuleKeepsTheSnapshot() {
        let fixture = DeletionFixture(extra: Self.extras)
        let holders = FakeVolumeHolders([400: [VolumeHolder(pid: 1, command: "conmon")]])
        let plan = plan(fixture, ids: [400], rules: DeletionRules(holders: holders))
        #expect(plan.protected.map(\.reason) == ["owned by podman: delete it with podman"])
        #expect(holders.looks == 0)
    }

    @Test func checkNeverCountsLiveDataAsSpaceToFree() {
        #expect(Self.extras[0].isProtected)
        #expect(Self.extras[1].isProtected)
        #expect(!Self.extras[2].isProtected)
    }
}
