import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Deletion in batches (a ZFS dataset's snapshots in one `zfs destroy fs@a,b,c`) still goes
/// through every rule: the batch's current state is read in one call right before it,
/// each snapshot is judged on it as alone, and only those that pass are in the call.
@Suite struct BatchedDeletionTests {
    typealias F = SnapshotFixtures

    /// The fake backend, batching by source: what one call would destroy together.
    final class Batching: SnapshotBackend, SnapshotBatchDeleting, @unchecked Sendable {
        let fake: FakeSnapshotBackend
        private let lock = NSLock()
        private var batchCalls: [[UInt64]] = []
        private var stateCalls: [[UInt64]] = []
        /// Errors the batch call reports for these ids.
        var errors: [UInt64: any Error] = [:]

        init(_ fake: FakeSnapshotBackend) { self.fake = fake }

        var batches: [[UInt64]] { lock.withLock { batchCalls } }
        var stateReads: [[UInt64]] { lock.withLock { stateCalls } }

        func batchKey(of subvolume: Volume, on filesystem: Filesystem) -> String? { subvolume.sourcePath }

        func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume {
            try fake.refreshingCloneState(of: subvolume, on: filesystem)
        }

        func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] {
            try fake.nestedVolumes(of: subvolume, on: filesystem)
        }

        func currentStates(of subvolumes: [Volume], on filesystem: Filesystem) throws -> [Volume?] {
            lock.withLock { stateCalls.append(subvolumes.map(\.id)) }
            return try subvolumes.map { try fake.currentState(of: $0, on: filesystem) }
        }

        func deleteSubvolumes(_ subvolumes: [Volume], on filesystem: Filesystem) -> [(any Error)?] {
            lock.withLock { batchCalls.append(subvolumes.map(\.id)) }
            return subvolumes.map { volume in
                if let error = errors[volume.id] { return error }
                do {
                    try fake.deleteSubvolume(volume, on: filesystem, recursive: false)
                    return nil
                } catch { return error }
            }
        }

        func mountedFilesystems() throws -> [Filesystem] { try fake.mountedFilesystems() }
        func filesystem(containing path: String) throws -> Filesystem { try fake.filesystem(containing: path) }
        func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }
        func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
            try fake.subvolumes(of: filesystem, sizes: sizes)
        }
        func resolvedPath(_ path: String) -> String? { fake.resolvedPath(path) }
        var workingDirectory: String { fake.workingDirectory }
        func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
            try fake.currentState(of: subvolume, on: filesystem)
        }
        func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
            try fake.deleteSubvolume(subvolume, on: filesystem, recursive: recursive)
        }
        func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {}
        func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage { try fake.spaceUsage(of: filesystem) }
    }

    let backend: Batching
    let filesystem = F.filesystem()

    /// Two sources (`a` and `b`), their snapshots 300… and 400…, a day apart and interleaved by date.
    init() {
        let a = F.subvolume(256, path: "a"), b = F.subvolume(257, path: "b")
        var volumes = [a, b]
        for index in 0..<3 {
            volumes.append(F.snapshot(300 + UInt64(index), path: "a.\(index)", of: a, daysAgo: Double(10 - 2 * index)))
            volumes.append(F.snapshot(400 + UInt64(index), path: "b.\(index)", of: b, daysAgo: Double(9 - 2 * index)))
        }
        for index in volumes.indices where volumes[index].isSnapshot {
            volumes[index].sourcePath = volumes[index].id < 400 ? "a" : "b"
            volumes[index].zfs = ZFSFacts()
        }
        backend = Batching(FakeSnapshotBackend([.init(filesystem: F.filesystem(), subvolumes: volumes)]))
    }

    func plan(_ ids: [UInt64]) -> [PlannedSnapshot] {
        let stored = backend.fake.filesystems[0].subvolumes
        return DeletionPlan.make(
            selected: ids.map { id in PlannedSnapshot(subvolume: stored.first { $0.id == id }!, filesystem: filesystem)
            },
            rules: DeletionRules()
        ).toDelete
    }

    func run(_ snapshots: [PlannedSnapshot], cancelAfter: Int? = nil) throws -> DeletionReport {
        struct NoLock: DeletionLock, LockHolder {
            func acquire(timeout: Double) throws -> any LockHolder { self }
            func release() {}
        }
        var flag: CancellationFlag?
        let session = DeletionSession(
            backend: backend, lock: NoLock(), lockTimeout: 0, rules: DeletionRules(), dryRun: false, wait: false)
        let hooks = DeletionSession.Hooks(
            note: { _ in }, confirm: { _ in false }, catchInterrupts: { flag = $0 },
            outcome: { _, index, _ in if index == cancelAfter { flag?.cancel() } })
        return try #require(try session.run(DeletionPlan(toDelete: snapshots), hooks: hooks).report)
    }

    var remaining: Set<UInt64> { Set(backend.fake.filesystems[0].subvolumes.map(\.id)) }

    @Test func eachSourcesSnapshotsGoInOneCallThoughThePlanInterleavesThem() throws {
        let snapshots = plan([300, 301, 302, 400, 401, 402])
        #expect(snapshots.map(\.subvolume.id) == [300, 400, 301, 401, 302, 402], "oldest first")
        let report = try run(snapshots)
        #expect(backend.batches == [[300, 301, 302], [400, 401, 402]])
        #expect(backend.stateReads == [[300, 301, 302], [400, 401, 402]], "one read of the state per batch")
        #expect(report.doneCount == 6 && remaining == [256, 257])
    }

    @Test func everySnapshotOfABatchIsJudgedOnItsFreshState() throws {
        let snapshots = plan([300, 301, 302])
        // Between the plan and the deletion: a hold on 301, 302 gone.
        var stored = backend.fake.filesystems
        let index = stored[0].subvolumes.firstIndex { $0.id == 301 }!
        stored[0].subvolumes[index].zfs = ZFSFacts(holds: 1, holdTags: ["backup"])
        stored[0].subvolumes.removeAll { $0.id == 302 }
        backend.fake.filesystems = stored
        let report = try run(snapshots)
        #expect(backend.batches == [[300]], "only what passed is in the call")
        let results = report.outcomes.map { ($0.snapshot.subvolume.id, $0.errorText ?? "done") }
        #expect(results.map(\.0) == [300, 301, 302])
        #expect(results[1].1.contains("1 user hold (backup)") && results[2].1 == "done")
        #expect(report.outcomes[2].result.isAlreadyGone)
    }

    @Test func theCallsErrorsAreEachSnapshotsOwn() throws {
        backend.errors = [301: RuntimeError("cannot destroy snapshot tank/a@1: dataset is busy")]
        let report = try run(plan([300, 301, 302]))
        #expect(
            report.outcomes.map { $0.errorText } == [nil, "cannot destroy snapshot tank/a@1: dataset is busy", nil])
        #expect(report.exitStatus() == .partialFailure)
    }

    @Test func aSignalStopsTheRunBetweenTwoBatches() throws {
        let report = try run(plan([300, 301, 400, 401]), cancelAfter: 1)
        #expect(backend.batches == [[300, 301]], "the batch in hand ends")
        #expect(report.interrupted && report.notAttempted.map(\.subvolume.id) == [400, 401])
    }

    @Test func aSnapshotWhoseOwnerMarksItsDirectoryGoesAlone() throws {
        var stored = backend.fake.filesystems
        let index = stored[0].subvolumes.firstIndex { $0.id == 301 }!
        stored[0].subvolumes[index].metadata = ManagerMetadata(manager: .snapper, config: "a", number: 1)
        backend.fake.filesystems = stored
        var snapshots = plan([300, 301, 302])
        snapshots[1].subvolume.metadata = stored[0].subvolumes[index].metadata
        _ = try run(snapshots)
        #expect(backend.batches == [[300, 302]], "snapper's went through delete, one at a time")
    }
}

extension DeletionOutcome.Result {
    var isAlreadyGone: Bool {
        if case .alreadyGone = self { return true }
        return false
    }
}
