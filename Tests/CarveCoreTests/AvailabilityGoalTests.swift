import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `thin --until-available` on the fake: the target's grammar, the up-front plan, the
/// batches `--wait` re-plans from the real figure, and `--max-count`.
@Suite struct AvailabilityGoalTests {
    let fixture = DeletionFixture()
    let mib: UInt64 = 1 << 20

    /// The fake's available bytes now (its size is 100 GiB).
    var available: UInt64 { try! fixture.backend.spaceUsage(of: fixture.filesystem).available }

    func request(
        _ value: String, keepLast: Int? = nil, order: ThinOrder = .oldest, bestEffort: Bool = false
    ) throws
        -> ThinRequest
    {
        try ThinRequest(
            path: "/mnt", untilAvailable: value, selection: SnapshotSelection(keepLast: keepLast), order: order,
            bestEffort: bestEffort)
    }

    func plan(_ request: ThinRequest) throws -> DeletionPlan {
        try request.plan(backend: fixture.backend, rules: DeletionRules(), now: SnapshotFixtures.epoch)
    }

    func ids(_ plan: DeletionPlan) -> [UInt64] { plan.toDelete.map(\.subvolume.id) }

    @Test(arguments: [
        ("20%", AvailabilityTarget.Amount.percent(hundredths: 2000)), ("12.5%", .percent(hundredths: 1250)),
        ("100%", .percent(hundredths: 10000)), ("0.01%", .percent(hundredths: 1)), ("10G", .bytes(10 << 30)),
        ("512M", .bytes(512 << 20)),
    ])
    func targetsAreRead(text: String, amount: AvailabilityTarget.Amount) throws {
        #expect(try AvailabilityTarget.parse(text) == AvailabilityTarget(amount, text: text))
    }

    @Test(arguments: ["0", "0%", "-5%", "101%", "20 %", " 20%", "abc", "", "%", "12.345%", "1e3%", "-1G", "0M", "20%%"])
    func badTargetsNameTheValue(text: String) {
        #expect {
            try AvailabilityTarget.parse(text)
        } throws: { error in
            let message = (error as? UsageError)?.message ?? ""
            return message.hasPrefix("invalid value '\(text)' for --until-available: ")
        }
    }

    @Test func aPercentageIsRoundedUpAndASizeMustFit() throws {
        #expect(try AvailabilityTarget.parse("50%").bytes(ofSize: 1 << 30, filesystem: "/mnt") == 512 << 20)
        #expect(try AvailabilityTarget.parse("33.33%").bytes(ofSize: 1000, filesystem: "/mnt") == 334)
        #expect(throws: UsageError("invalid value '2GiB' for --until-available: larger than /mnt (1G)")) {
            try AvailabilityTarget.parse("2GiB").bytes(ofSize: 1 << 30, filesystem: "/mnt")
        }
    }

    @Test func theOldestGoUntilTheShortfallIsCovered() throws {
        // 25M short: three of the 10M snapshots, oldest first.
        let plan = try plan(request("\((available + 25 * mib) >> 20)M"))
        #expect(ids(plan) == [300, 301, 302])
        #expect(plan.goal?.eligible.count == 6)
        let largest = try self.plan(request("\((available + 5 * mib) >> 20)M", order: .largest))
        #expect(ids(largest) == [300])
    }

    @Test func alreadyMetListsNothingAndDeletesNothing() throws {
        let plan = try plan(request("50%"))
        #expect(plan.toDelete.isEmpty && plan.protected.isEmpty)
        #expect(fixture.backend.calls.allSatisfy { if case .subvolumes = $0 { false } else { true } })
        let goal = try #require(plan.goal)
        #expect(goal.metText.hasPrefix("nothing to delete: ") && goal.metText.hasSuffix("at least 50% (50G) asked for"))
    }

    @Test func unreachableRefusesWithTheShortfallUnlessBestEffort() throws {
        // 99% of 100G is 99G; 60M of snapshots are held above the 1G base, and --keep-last 1 keeps one (10M).
        #expect {
            try plan(request("99%", keepLast: 1))
        } throws: { error in
            guard case .targetUnreachable(_, let eligible, _, _, _, let shortfall)? = error as? ThinRefusal else {
                return false
            }
            return eligible == 5 && shortfall == 10 * mib
        }
        #expect(fixture.remainingIDs.count == 7)
        let forced = try plan(request("99%", keepLast: 1, bestEffort: true))
        // Retention survivors are never thinned, even with --best-effort.
        #expect(ids(forced) == [300, 301, 302, 303, 304])
    }

    @Test func maxCountKeepsTheFirstAndSaysWhatIsLeft() throws {
        let plan = DeletionPlan.make(selected: fixture.planned([303, 300, 301]), rules: DeletionRules())
        let limited = plan.limited(to: 2)
        #expect(ids(limited) == [300, 301])
        #expect(limited.notes == ["--max-count 2: 1 more snapshot is left for a later run"])
        #expect(ids(plan.limited(to: nil)) == [300, 301, 303])
        #expect(throws: UsageError("invalid value '0' for --max-count: give 1 or more deletions")) {
            try DeletionLimit.check(0)
        }
        #expect(throws: UsageError.self) { try DeletionLimit.check(-3) }
        try DeletionLimit.check(1)
    }

    /// The plan for 40M more available, by an extent map that claims 20M a snapshot
    /// where the fake frees 10M.
    func overclaimedPlan() throws -> DeletionPlan {
        var map = ExtentMap(subvolumes: [256] + Array(300...305))
        for id in UInt64(300)...305 { map.addReference(subvolume: id, diskBytenr: id * 100 * mib, diskBytes: 20 * mib) }
        fixture.backend.filesystems[0].exact = ExactSizes(map: map, scan: ExtentScanReport(), nodeSize: 16384)
        var request = try request("\((available + 40 * mib) >> 20)M")
        request.sizes = .exact
        return try plan(request)
    }

    /// The extent map claims 20M a snapshot, the fake frees 10M: after each batch the real
    /// figure is short, and the next batch is planned from it until the target holds.
    @Test func withWaitTheRealFigureDrivesTheNextBatch() throws {
        let plan = try overclaimedPlan()
        #expect(ids(plan) == [300, 301])
        var notes: [String] = []
        let result = try session(wait: true).run(
            plan, hooks: DeletionSession.Hooks(note: { notes.append($0) }, confirm: { _ in false }))
        #expect(result.report?.done.map(\.snapshot.subvolume.id) == [300, 301, 302, 303])
        #expect(result.plan.toDelete.count == 4)
        #expect(notes.filter { $0.contains("deleting 1 more") }.count == 2, "\(notes)")
        #expect(notes.last?.hasSuffix("holds") == true, "\(notes)")
        #expect(result.availableAfter == available)
        #expect(plan.goal!.shortfall(available: available) == 0)
    }

    /// Ctrl-C while btrfs frees the first batch's space: no further batch, and the run says it was interrupted.
    @Test func aSignalWhileWaitingStopsBeforeTheNextBatch() throws {
        final class Caught: @unchecked Sendable { var flag: CancellationFlag? }
        let caught = Caught()
        let hooks = DeletionSession.Hooks(
            note: { _ in }, confirm: { _ in false }, catchInterrupts: { caught.flag = $0 },
            waiting: { _ in caught.flag?.cancel() })
        let result = try session(wait: true).run(try overclaimedPlan(), hooks: hooks)
        #expect(result.report?.done.map(\.snapshot.subvolume.id) == [300, 301])
        #expect(result.report?.interrupted == true)
        #expect(result.report?.exitStatus() == .interrupted)
    }

    @Test func withWaitMaxCountBoundsEveryBatch() throws {
        var request = try request("\((available + 40 * mib) >> 20)M")
        request.sizes = .quota
        let plan = try plan(request).limited(to: 3)
        #expect(ids(plan) == [300, 301, 302])
        var notes: [String] = []
        let result = try session(wait: true).run(
            plan, hooks: DeletionSession.Hooks(note: { notes.append($0) }, confirm: { _ in false }))
        #expect(result.report?.done.count == 3)
        #expect(notes.last?.hasSuffix("--max-count reached") == true, "\(notes)")
    }

    func session(wait: Bool) -> DeletionSession {
        DeletionSession(
            backend: fixture.backend, lock: NoLock(), lockTimeout: 0, rules: DeletionRules(), dryRun: false, wait: wait)
    }

    struct NoLock: DeletionLock {
        struct Holder: LockHolder { func release() {} }
        func acquire(timeout: Double) throws -> any LockHolder { Holder() }
    }
}
