import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The rules as an unattended run needs them: processes carve cannot look into keep
/// what they might hold (fail closed), `--recursive` checks every nested subvolume as a
/// snapshot of its own, and a prompt that waited has the holders and clones read again.
@Suite struct UnattendedProtectionTests {
    typealias F = SnapshotFixtures
    static let blind = UnseenProcesses(
        processes: [.init(pid: 812, command: "restic"), .init(pid: 940, command: "sshd")], cause: "no CAP_SYS_PTRACE")

    /// A writable snapshot (500) with nested subvolumes: 501 a plain one, 502 a podman
    /// layer inside it, 503 a clone in use inside 501.
    static func nesting() -> [Volume] {
        var parent = F.snapshot(500, path: "work/box", of: F.subvolume(256, path: "@home"), daysAgo: 50)
        parent.hasNestedSubvolumes = true
        var plain = F.subvolume(501, path: "work/box/var")
        plain.parentID = 500
        plain.hasNestedSubvolumes = true
        var layer = F.snapshot(
            502, path: "work/box/containers/aa", of: nil, daysAgo: 40, metadata: ManagerMetadata(manager: .podman))
        layer.parentID = 500
        var clone = F.snapshot(503, path: "work/box/var/clone", of: plain, daysAgo: 30)
        clone.parentID = 501
        clone.readOnly = false
        clone.changedSinceTaken = true
        return [parent, plain, layer, clone]
    }

    func listing(_ fixture: DeletionFixture) -> VolumeListing {
        VolumeListing(filesystem: fixture.filesystem, subvolumes: fixture.subvolumes, sizes: .none)
    }

    @Test func processesCarveCannotSeeIntoKeepEverySnapshotTheyMightHoldAndSaySoOnce() {
        let fixture = DeletionFixture()
        let holders = FakeVolumeHolders([303: [VolumeHolder(pid: 77, command: "rsync")]])
        holders.unseen = (Self.blind, [301, 302, 303])
        let plan = DeletionPlan.make(
            selected: fixture.planned([300, 301, 302, 303]), rules: DeletionRules(holders: holders))
        #expect(plan.toDelete.map(\.subvolume.id) == [300])
        #expect(
            plan.protected.map(\.reason) == [
                "may be in use by one of 2 processes carve cannot see into (no CAP_SYS_PTRACE) (use --ignore-in-use)",
                "may be in use by one of 2 processes carve cannot see into (no CAP_SYS_PTRACE) (use --ignore-in-use)",
                // A holder seen is named; the unseen ones add nothing to it.
                "in use by 77 (rsync) (use --ignore-in-use)",
            ])
        #expect(
            plan.notes == [
                "cannot see what 2 processes hold (PIDs 812 (restic), 940 (sshd): no CAP_SYS_PTRACE): nothing deleted that they might hold; run as full root, or --ignore-in-use"
            ])
        // Not done, though not named: a timer's run must not look like a clean one.
        #expect(plan.protectedCountingAsFailed == 2)
        var ignoring = DeletionRules(holders: holders)
        ignoring.ignoreInUse = true
        #expect(DeletionPlan.make(selected: fixture.planned([300, 301]), rules: ignoring).toDelete.count == 2)
    }

    @Test func aNamedSnapshotIsKeptTooWhenItsHoldersCannotBeSeen() {
        let fixture = DeletionFixture()
        let holders = FakeVolumeHolders()
        holders.unseen = (UnseenProcesses(processes: [], cause: "cannot read /proc: ENOENT"), nil)
        let plan = DeletionPlan.make(
            selected: fixture.planned([300], named: true), rules: DeletionRules(holders: holders))
        #expect(plan.toDelete.isEmpty)
        #expect(
            plan.protected.first?.reason
                == "may be in use by processes carve cannot see (cannot read /proc: ENOENT) (use --ignore-in-use)")
        #expect(plan.notes.count == 1)
        let report = fixture.run([300], rules: DeletionRules(holders: holders))
        #expect(report.done.isEmpty)
        #expect(report.exitStatus(protectedFailures: 0) == .failure)
    }

    @Test func recursiveKeepsAParentWhoseNestedSubvolumeIsProtectedAndNamesIt() {
        let fixture = DeletionFixture(extra: Self.nesting())
        let rules = DeletionRules(recursive: true)
        let plan = DeletionPlan.make(
            selected: fixture.planned([500], named: true), rules: rules, listings: [listing(fixture)])
        #expect(plan.toDelete.isEmpty)
        #expect(
            plan.protected.first?.reason
                == "its nested subvolume /mnt/work/box/containers/aa is protected: owned by podman: delete it with podman; "
                + "its nested subvolume /mnt/work/box/var/clone is protected: written to since it was taken: a clone in use (name it to delete it)"
        )
        // Without --recursive, the nested subvolumes keep it as before.
        let alone = DeletionPlan.make(
            selected: fixture.planned([500], named: true), rules: DeletionRules(), listings: [listing(fixture)])
        #expect(alone.protected.first?.protections == [.nestedSubvolumes])
    }

    @Test func recursiveLetsAPlainNestedSubvolumeGoWithItsParent() {
        let fixture = DeletionFixture(extra: Array(Self.nesting().prefix(2)))
        let plan = DeletionPlan.make(
            selected: fixture.planned([500], named: true), rules: DeletionRules(recursive: true),
            listings: [listing(fixture)])
        #expect(plan.toDelete.map(\.subvolume.id) == [500])
    }

    @Test func recursiveKeepsAParentWhoseNestedSubvolumeIsHeld() {
        let fixture = DeletionFixture(extra: Array(Self.nesting().prefix(2)))
        let holders = FakeVolumeHolders([501: [VolumeHolder(pid: 9, command: "postgres")]])
        let plan = DeletionPlan.make(
            selected: fixture.planned([500]), rules: DeletionRules(recursive: true, holders: holders),
            listings: [listing(fixture)])
        #expect(
            plan.protected.first?.reason
                == "its nested subvolume /mnt/work/box/var is protected: in use by 9 (postgres) (use --ignore-in-use)")
    }

    @Test func aNestedSubvolumeThatBecameProtectedAfterThePlanKeepsItsParent() {
        let fixture = DeletionFixture(extra: Array(Self.nesting().prefix(2)))
        let holders = FakeVolumeHolders()
        let rules = DeletionRules(recursive: true, holders: holders)
        let plan = DeletionPlan.make(
            selected: fixture.planned([500], named: true), rules: rules, listings: [listing(fixture)])
        #expect(plan.toDelete.count == 1)
        // Someone mounts something inside the nested subvolume before the deletion.
        fixture.change(501) { $0.mountsInside = ["/mnt/work/box/var/proc"] }
        let report = fixture.delete(plan.toDelete, rules: rules)
        #expect(report.done.isEmpty)
        #expect(
            report.notDone.first?.errorText
                == "its nested subvolume /mnt/work/box/var is protected: something is mounted inside it at /mnt/work/box/var/proc (unmount it first)"
        )
        #expect(fixture.remainingIDs.contains(500) && fixture.remainingIDs.contains(501))
    }

    @Test func aCloneWrittenToWhileThePromptWaitedIsKept() throws {
        var writable = F.snapshot(600, path: "work/tree", of: F.subvolume(256, path: "@home"), daysAgo: 20)
        writable.readOnly = false
        let fixture = DeletionFixture(extra: [writable])
        let holders = FakeVolumeHolders()
        let rules = DeletionRules(holders: holders)
        let plan = DeletionPlan.make(selected: fixture.planned([300, 600]), rules: rules)
        #expect(plan.toDelete.map(\.subvolume.id) == [300, 600])
        let session = DeletionSession(
            backend: fixture.backend, lock: NoLock(), lockTimeout: 0, rules: rules, dryRun: false, wait: false)
        let hooks = DeletionSession.Hooks(
            note: { _ in },
            confirm: { _ in
                // While the question waits, someone starts working in the clone.
                fixture.change(600) { $0.changedSinceTaken = true }
                return true
            })
        let report = try #require(try session.run(plan, hooks: hooks).report)
        #expect(report.done.map(\.snapshot.subvolume.id) == [300])
        #expect(
            report.notDone.first?.errorText == "written to since it was taken: a clone in use (name it to delete it)")
        #expect(holders.refreshes == 1, "who holds what is read afresh once the prompt is answered")
    }

    @Test func noPromptNoRefresh() throws {
        let fixture = DeletionFixture()
        let holders = FakeVolumeHolders()
        let rules = DeletionRules(holders: holders)
        let plan = DeletionPlan.make(selected: fixture.planned([300]), rules: rules)
        let session = DeletionSession(
            backend: fixture.backend, lock: NoLock(), lockTimeout: 0, rules: rules, dryRun: false, wait: false)
        _ = try session.run(plan, hooks: DeletionSession.Hooks(note: { _ in }, confirm: { _ in false }))
        #expect(holders.refreshes == 0)
    }

    struct NoLock: DeletionLock, LockHolder {
        func acquire(timeout: Double) throws -> any LockHolder { self }
        func release() {}
    }
}
