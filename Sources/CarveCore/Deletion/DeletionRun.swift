/// What a deletion run did: one outcome per snapshot tried, and what was left untried.
public struct DeletionReport: Sendable {
    public var outcomes: [DeletionOutcome]
    /// Snapshots of the plan not tried because the run was interrupted.
    public var notAttempted: [PlannedSnapshot]
    public var interrupted: Bool

    public init(outcomes: [DeletionOutcome] = [], notAttempted: [PlannedSnapshot] = [], interrupted: Bool = false) {
        self.outcomes = outcomes; self.notAttempted = notAttempted; self.interrupted = interrupted
    }

    public var done: [DeletionOutcome] { outcomes.filter(\.isDone) }
    public var notDone: [DeletionOutcome] { outcomes.filter { !$0.isDone } }
    /// `done.count` and `notDone.count`, without copying a thousand outcomes to count them.
    public var doneCount: Int {
        outcomes.withUnsafeBufferPointer { outcomes in
            var count = 0
            for index in outcomes.indices where outcomes[index].isDone { count += 1 }
            return count
        }
    }
    public var notDoneCount: Int { outcomes.count - doneCount }

    /// The exit status: 130 interrupted; 0 when everything asked for is gone;
    /// 4 when some is and some is not; 1 when nothing could be done.
    /// `protectedFailures` counts protected snapshots that count as not done (`DeletionPlan.protectedCountingAsFailed`).
    /// A snapshot gone but whose manager metadata could not be removed (ENOSPC, EROFS)
    /// is half-done: it counts as a failure, so a script learns of the leftover.
    public func exitStatus(protectedFailures: Int = 0) -> ExitStatus {
        if interrupted { return .interrupted }
        let done = doneCount
        var halfDone = 0
        outcomes.withUnsafeBufferPointer { outcomes in
            for index in outcomes.indices where outcomes[index].isDone && outcomes[index].metadataWarning != nil {
                halfDone += 1
            }
        }
        let failures = outcomes.count - done + protectedFailures + halfDone
        if failures == 0 { return .success }
        return done == 0 ? .failure : .partialFailure
    }
}
