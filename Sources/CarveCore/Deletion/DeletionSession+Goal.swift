extension DeletionSession {
    /// `thin --until-available` with `--wait`: after each batch (the space of which the
    /// caller has waited for), reads the real available figure; while it is short, plans
    /// the next batch from the snapshots not yet tried and deletes it, until the target
    /// holds, no eligible snapshot is left, `--max-count` is reached or the run is
    /// interrupted. Returns the last figure read.
    func pursue(
        _ goal: AvailabilityGoal, plan: inout DeletionPlan, report: inout DeletionReport, hooks: Hooks,
        cancellation: CancellationFlag
    ) throws -> UInt64 {
        let mountpoint = goal.filesystem.mountpoint
        while true {
            let available = try backend.spaceUsage(of: goal.filesystem).available
            let shortfall = goal.shortfall(available: available)
            let now = "\(ByteSize.format(available)) available on \(mountpoint)"
            guard shortfall > 0 else {
                hooks.note("\(now): the target of \(goal.targetText) holds")
                return available
            }
            // A signal while waiting for the space: no further batch.
            if cancellation.isCancelled {
                report.interrupted = true
                return available
            }
            let room = goal.limit.map { max($0 - report.outcomes.count, 0) } ?? Int.max
            let batch = goal.batch(
                shortfall: shortfall, tried: Set(report.outcomes.map(\.snapshot.subvolume.id)),
                deleted: report.done.map(\.snapshot.subvolume.id)
            ).prefix(room)
            let short = "\(ByteSize.format(shortfall)) short of the \(goal.targetText) asked for"
            guard !batch.isEmpty else {
                hooks.note("\(now), \(short): " + (room == 0 ? "--max-count reached" : "no eligible snapshot is left"))
                return available
            }
            hooks.note("\(now), \(short): deleting \(batch.count) more")
            var next = DeletionPlan(toDelete: Array(batch))
            next.exactSizes = plan.exactSizes
            if try hooks.confirm(next) { rules.holders?.refresh() }
            let more = delete(next, hooks, cancellation)
            plan.toDelete += next.toDelete
            report.outcomes += more.outcomes
            report.notAttempted = more.notAttempted
            report.interrupted = more.interrupted
            if more.interrupted { return available }
            try waitForCleanup(more, hooks)
        }
    }
}
