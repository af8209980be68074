import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct DeletionPlanningTests {
    typealias F = SnapshotFixtures
    let fixture = DeletionFixture()

    func sized(_ sizes: [UInt64?]) -> [PlannedSnapshot] {
        sizes.enumerated().map { index, size in
            PlannedSnapshot(
                subvolume: F.snapshot(
                    UInt64(500 + index), path: "s\(index)", of: nil, daysAgo: Double(100 - index), exclusive: size),
                filesystem: fixture.filesystem)
        }
    }

    @Test func thePlanSplitsProtectedSnapshotsOffWithTheirReasons() {
        var selected = fixture.planned([302, 300, 301])
        selected[1].subvolume.mountpoints = ["/srv"]
        selected.append(selected[0]) // named twice: once in the plan
        let plan = DeletionPlan.make(selected: selected, rules: DeletionRules())
        #expect(plan.toDelete.map(\.subvolume.id) == [301, 302])
        #expect(plan.protected.map(\.snapshot.subvolume.id) == [300])
        #expect(plan.protected.first?.reason == "subvolume is mounted at /srv (EBUSY)")
        #expect(plan.estimatedReclaim == 20 << 20)
        #expect(plan.protectedCountingAsFailed == 0)
    }

    /// A key hashes by id alone; two filesystems' snapshots of one id stay two, and the
    /// same snapshot named and selected again is one, named.
    @Test func theSameIDOnTwoFilesystemsIsTwoSnapshots() {
        let other = F.filesystem(uuid: "f5c3e1d2-0000-4000-8000-000000000002", mountpoint: "/backup")
        let here = fixture.planned([300, 301])
        let there = PlannedSnapshot(subvolume: here[0].subvolume, filesystem: other, named: true)
        #expect(here[0].key != there.key)
        #expect(here[0].key.hashValue == fixture.planned([300], named: true)[0].key.hashValue)
        let plan = DeletionPlan.make(
            selected: here + [there] + fixture.planned([300], named: true), rules: DeletionRules())
        #expect(plan.toDelete.count == 3)
        #expect(plan.toDelete.filter { $0.filesystem.uuid == other.uuid }.map(\.subvolume.id) == [300])
        let named = plan.toDelete.filter { $0.subvolume.id == 300 }.map(\.named)
        #expect(named == [true, true])
        #expect(!plan.toDelete.first { $0.subvolume.id == 301 }!.named)
    }

    @Test func aProtectedSnapshotTheUserNamedCountsAsNotDone() {
        var named = fixture.planned([300], named: true)
        named[0].subvolume.isDefault = true
        let plan = DeletionPlan.make(selected: named + fixture.planned([301]), rules: DeletionRules())
        #expect(plan.protectedCountingAsFailed == 1)
        var report = DeletionReport()
        report.outcomes = [DeletionOutcome(snapshot: plan.toDelete[0], result: .deleted)]
        #expect(report.exitStatus(protectedFailures: plan.protectedCountingAsFailed) == .partialFailure)
        #expect(DeletionReport().exitStatus(protectedFailures: 1) == .failure)
    }

    @Test func theEstimateIsUnknownWhenOneSizeIsUnknown() {
        #expect(DeletionPlan(toDelete: sized([1, nil])).estimatedReclaim == nil)
        #expect(DeletionPlan(toDelete: []).estimatedReclaim == 0)
    }

    @Test func thinTakesTheOldestUntilTheTargetIsReached() throws {
        let eligible = sized([10, 40, 30, 20])
        let chosen = try ThinPlanner(target: 45).choose(from: eligible.reversed(), filesystem: "/mnt")
        #expect(chosen.map(\.subvolume.id) == [500, 501])
        #expect(
            try ThinPlanner(target: 50).choose(from: eligible, filesystem: "/mnt").map(\.subvolume.id) == [500, 501])
        #expect(try ThinPlanner(target: 51).choose(from: eligible, filesystem: "/mnt").count == 3)
        #expect(try ThinPlanner(target: 100).choose(from: eligible, filesystem: "/mnt").count == 4)
    }

    @Test func thinLargestFirstTakesFewerSnapshots() throws {
        let chosen = try ThinPlanner(target: 45, order: .largest).choose(
            from: sized([10, 40, 30, 20]), filesystem: "/mnt")
        #expect(chosen.map(\.subvolume.id) == [501, 502])
    }

    @Test func thinNeverDeletesOnAGuess() {
        #expect(throws: ThinRefusal.sizesUnknown(filesystem: "/mnt", note: "quotas are off on /mnt")) {
            try ThinPlanner(target: 1).choose(
                from: sized([10, nil]), filesystem: "/mnt", sizeNote: "quotas are off on /mnt")
        }
    }

    @Test func thinSaysWhenEverythingIsNotEnough() throws {
        #expect(throws: ThinRefusal.notEnough(filesystem: "/mnt", eligible: 2, estimate: 30, target: 31)) {
            try ThinPlanner(target: 31).choose(from: sized([10, 20]), filesystem: "/mnt")
        }
        let all = try ThinPlanner(target: 31, bestEffort: true).choose(from: sized([10, 20]), filesystem: "/mnt")
        #expect(all.count == 2)
        #expect(throws: ThinRefusal.nothingEligible(filesystem: "/mnt", target: 1)) {
            try ThinPlanner(target: 1).choose(from: [], filesystem: "/mnt")
        }
    }

    @Test func snapshotNamesParse() throws {
        #expect(try SnapshotName.parse("root:12") == .snapper(config: "root", numbers: 12...12))
        #expect(try SnapshotName.parse("home:3-17") == .snapper(config: "home", numbers: 3...17))
        #expect(try SnapshotName.parse("/mnt/snap:1") == .path("/mnt/snap:1"))
        #expect(try SnapshotName.parse("snaps/home.1") == .path("snaps/home.1"))
    }

    @Test(arguments: ["root:17-3", "root:", "root:x", ":3", "root:3-", "root:-3", "ro ot:3", "root:1-2-3", ""])
    func malformedSnapshotNamesAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try SnapshotName.parse(text) }
    }

    @Test func theLockErrorNamesTheHolder() {
        let error = LockedError(path: "/run/lock/carve.lock", holder: 4242, waited: 0)
        #expect(error.exitStatus == .locked)
        #expect(error.message.contains("pid 4242"))
        #expect(LockedError(path: "/x", holder: nil, waited: 2).message.contains("after waiting 2s"))
    }
}
